/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The schedule engine of partitioned collectives: channels, steps, and the
 * per-partition walk through them (Algorithm 2 of Temucin et al., "Design
 * and Implementation of MPI-Native GPU-Initiated MPI Partitioned
 * Communication", Queen's University and Sandia National Laboratories), run
 * by MPI_Pready (step 0), by MPI_Parrived and by the progress function.
 */

#include "ompi_config.h"

#include "ompi/datatype/ompi_datatype.h"

#include "opal/mca/accelerator/accelerator.h"
#include "opal/util/show_help.h"
#include "opal/util/string_copy.h"
#include "ompi/mca/pml/pml.h"

#include "part_ucx.h"
#include "part_ucx_coll.h"
#include "part_ucx_coll_gpu.h"
#include "part_ucx_device_plugin.h"

#include <inttypes.h>

/* Room for one more entry in a growing schedule array (its counts are
 * ints). */
static int mca_part_ucx_coll_grow(void **array, int *max, int used, size_t size)
{
    size_t cap = (size_t) *max;

    if (used < *max) {
        return OMPI_SUCCESS;
    }
    if (*max > INT_MAX / 2 || !mca_part_ucx_grow(array, (size_t) used, &cap, size)) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *max = (int) cap;
    return OMPI_SUCCESS;
}

int mca_part_ucx_coll_chan(mca_part_ucx_coll_t *c, bool send, int peer, size_t off, size_t len,
                           bool reduce)
{
    mca_part_ucx_chan_t *ch;
    int rc = mca_part_ucx_coll_grow((void **) &c->chans, &c->max_chans, c->nchans,
                                    sizeof(*c->chans));

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    ch = &c->chans[c->nchans];
    memset(ch, 0, sizeof(*ch));
    ch->send = send;
    ch->reduce = reduce;
    ch->peer = peer;
    ch->off = off;
    ch->len = len;
    return c->nchans++;
}

static int mca_part_ucx_cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *) a, y = *(const size_t *) b;

    return (x > y) - (x < y);
}

/* Index of the first of the n sorted values that is >= v. */
static size_t mca_part_ucx_lower_bound(const size_t *sorted, size_t n, size_t v)
{
    size_t lo = 0, hi = n, mid;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        if (sorted[mid] < v) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* A send that covers whole partitions goes zero-copy from the result
 * buffer, possibly after MPI_Pready returned (it waits for the receiver);
 * if a receive of its step or a later one writes that range, it must be
 * copied out when the partition enters its step (ch->staged). Chunk sends
 * are packed then anyway. The steps are swept from the last: the receives
 * seen so far are kept by start offset in a prefix-maximum (Fenwick) tree
 * of their ends, so a send overlaps one of them when the largest end among
 * those starting before the send's end lies past its start. O((channels)
 * log(channels)), where comparing every send with every later receive cost
 * O(n^2) for the ring of an allgather. */
static int mca_part_ucx_mark_staged(mca_part_ucx_coll_t *c)
{
    size_t *starts, *tree, n = 0, k, i, best;
    mca_part_ucx_chan_t *ch;
    int s, j;

    if (0 == c->nins) {
        return OMPI_SUCCESS;
    }
    starts = malloc((size_t) c->nins * sizeof(*starts));
    tree = calloc((size_t) c->nins + 1, sizeof(*tree));
    if (NULL == starts || NULL == tree) {
        free(starts);
        free(tree);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (j = 0; j < c->nins; ++j) {
        starts[j] = c->chans[c->ins[j]].off;
    }
    qsort(starts, (size_t) c->nins, sizeof(*starts), mca_part_ucx_cmp_size);
    for (k = 0; k < (size_t) c->nins; ++k) {
        if (0 == n || starts[n - 1] != starts[k]) {
            starts[n++] = starts[k];
        }
    }
    for (s = c->nsteps - 1; s >= 0; --s) {
        const mca_part_ucx_step_t *st = &c->steps[s];

        for (j = 0; j < st->nin; ++j) {
            ch = &c->chans[c->ins[st->in0 + j]];
            for (i = mca_part_ucx_lower_bound(starts, n, ch->off) + 1; i <= n; i += i & -i) {
                tree[i] = (tree[i] > ch->off + ch->len) ? tree[i] : ch->off + ch->len;
            }
        }
        for (j = 0; j < st->nout; ++j) {
            ch = &c->chans[c->outs[st->out0 + j]];
            if (ch->from_send || ch->len != c->count) {
                continue; /* user send buffer, or packed chunk */
            }
            best = 0; /* the largest end of a receive starting before ch's end */
            for (i = mca_part_ucx_lower_bound(starts, n, ch->off + ch->len); i > 0; i -= i & -i) {
                best = (best > tree[i]) ? best : tree[i];
            }
            ch->staged = best > ch->off;
        }
    }
    free(starts);
    free(tree);
    return OMPI_SUCCESS;
}

/* Scratch memory of a channel, on the GPU where the collective's buffers are. */
void *mca_part_ucx_coll_alloc(mca_part_ucx_coll_t *c, size_t bytes)
{
    void *ptr = NULL;

    if (!c->device) {
        return malloc(bytes + 1);
    }
    return (OMPI_SUCCESS == mca_part_ucx_devmem_alloc(bytes + 1, &ptr, &c->dev_id)) ? ptr
                                                                                  : NULL;
}

/* `bytes` as given to mca_part_ucx_coll_alloc. */
static void mca_part_ucx_coll_free(mca_part_ucx_coll_t *c, void *ptr, size_t bytes)
{
    if (NULL == ptr) {
        return;
    }
    if (c->device) {
        mca_part_ucx_devmem_free(ptr, bytes + 1, c->dev_id);
    } else {
        free(ptr);
    }
}

static int mca_part_ucx_coll_create(mca_part_ucx_coll_t *c, mca_part_ucx_chan_t *ch)
{
    ompi_datatype_t *contig = NULL, *type = c->dtype;
    size_t count = ch->len;
    char *buf = (ch->from_send ? (char *) c->sendbuf : c->acc) + (ptrdiff_t) ch->off * c->extent;
    int rc;

    if (NULL != ch->tmp) {
        /* Contiguous per partition: reduced into, copied from or into the result. */
        buf = ch->tmp;
    } else if (ch->len != c->count) {
        /* A chunk of every partition: len elements, one partition apart. */
        rc = ompi_datatype_create_contiguous((int) ch->len, c->dtype, &contig);
        if (OMPI_SUCCESS == rc) {
            rc = ompi_datatype_create_resized(contig, 0, (ptrdiff_t) c->count * c->extent, &type);
        }
        if (OMPI_SUCCESS == rc) {
            rc = ompi_datatype_commit(&type);
        }
        if (NULL != contig) {
            ompi_datatype_destroy(&contig);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        count = 1;
    }
    rc = ch->send ? mca_part_ucx_psend_init(buf, c->parts, count, type, ch->peer, c->chan_tag,
                                            c->chan_comm, NULL, &ch->req)
                  : mca_part_ucx_precv_init(buf, c->parts, count, type, ch->peer, c->chan_tag,
                                            c->chan_comm, NULL, &ch->req);
    if (type != c->dtype) {
        ompi_datatype_destroy(&type); /* the request holds its own reference */
    }
    if (OMPI_SUCCESS != rc) {
        ch->req = NULL;
    }
    return rc;
}

/* Whether a channel goes through tmp, and its share of the scratch memory
 * (256-byte aligned; 0 for an empty chunk, which still has a tmp). */
static bool mca_part_ucx_chan_uses_tmp(const mca_part_ucx_chan_t *ch)
{
    return ch->reduce || ch->staged || ch->bounce;
}

static size_t mca_part_ucx_chan_tmp_bytes(const mca_part_ucx_coll_t *c,
                                          const mca_part_ucx_chan_t *ch)
{
    return mca_part_ucx_chan_uses_tmp(ch) ? (c->parts * ch->len * c->extent + 255) & ~(size_t) 255
                                          : 0;
}

int mca_part_ucx_coll_commit(mca_part_ucx_coll_t *c)
{
    mca_part_ucx_chan_t *ch;
    size_t bytes = 0;
    int i, rc;

    rc = mca_part_ucx_mark_staged(c);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    for (i = 0; i < c->nchans; ++i) {
        ch = &c->chans[i];
        /* GPU memory is moved contiguously: chunks go through tmp. */
        ch->staged = ch->send && (ch->staged || (c->device && ch->len != c->count));
        ch->bounce = !ch->send && !ch->reduce && c->device && ch->len != c->count;
        bytes += mca_part_ucx_chan_tmp_bytes(c, ch);
    }
    /* One scratch allocation for every channel: on a GPU, an allocation
     * costs more than all the rest of the init. */
    if (bytes > 0) {
        c->scratch = mca_part_ucx_coll_alloc(c, bytes);
        c->scratch_bytes = bytes;
        if (NULL == c->scratch) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    for (i = 0, bytes = 0; i < c->nchans; ++i) {
        ch = &c->chans[i];
        if (mca_part_ucx_chan_uses_tmp(ch)) {
            ch->tmp = c->scratch + bytes;
            bytes += mca_part_ucx_chan_tmp_bytes(c, ch);
        }
    }
    for (i = 0; i < c->nchans; ++i) {
        rc = mca_part_ucx_coll_create(c, &c->chans[i]);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

int mca_part_ucx_coll_device_check(mca_part_ucx_coll_t *c, bool reduction)
{
    int rc;

    c->gpu = mca_part_ucx_device();
    if (NULL == c->gpu) {
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    if (!ompi_datatype_is_contiguous_memory_layout(c->dtype, 2)) {
        return MPI_ERR_TYPE; /* GPU buffers: contiguous types only */
    }
    c->gpu_type = mca_part_ucx_device_dt(c->dtype);
    c->gpu_op = reduction ? mca_part_ucx_device_op(c->op) : 0;
    rc = (reduction && c->gpu_type >= 0 && c->gpu_op >= 0)
             ? c->gpu->reduce_load(c->gpu_op, c->gpu_type) : 0;
    if (reduction && (c->gpu_type < 0 || c->gpu_op < 0 || -2 == rc)) {
        opal_show_help("help-part-ucx.txt", "device op", true, c->op->o_name,
                       c->dtype->name);
        return MPI_ERR_OP;
    }
    if (0 != rc) {
        MCA_PART_UCX_ERROR("loading the GPU reduction kernel failed: %s", c->gpu->last_error());
        return MPI_ERR_INTERN;
    }
    return MPI_SUCCESS;
}

int mca_part_ucx_coll_device(mca_part_ucx_coll_t *c)
{
    size_t p;

    c->events = calloc(c->parts + 1, sizeof(*c->events));
    if (NULL == c->events) {
        return MPI_ERR_NO_MEM;
    }
    if (0 != mca_part_ucx_device_stream_get(&c->stream)) {
        return MPI_ERR_INTERN;
    }
    for (p = 0; p < c->parts; ++p) {
        if (0 != mca_part_ucx_device_event_get(&c->events[p])) {
            return MPI_ERR_INTERN;
        }
    }
    return MPI_SUCCESS;
}

int mca_part_ucx_coll_step(mca_part_ucx_coll_t *c)
{
    int rc = mca_part_ucx_coll_grow((void **) &c->steps, &c->max_steps, c->nsteps,
                                    sizeof(*c->steps));

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    c->steps[c->nsteps].out0 = c->nouts;
    c->steps[c->nsteps].nout = 0;
    c->steps[c->nsteps].in0 = c->nins;
    c->steps[c->nsteps].nin = 0;
    return c->nsteps++;
}

int mca_part_ucx_step_out(mca_part_ucx_coll_t *c, int step, int chan)
{
    int rc;

    if (MCA_PART_UCX_NO_CHAN == chan) {
        return OMPI_SUCCESS;
    }
    if (step != c->nsteps - 1) {
        return OMPI_ERR_BAD_PARAM; /* a builder's mistake: steps are filled in order */
    }
    rc = mca_part_ucx_coll_grow((void **) &c->outs, &c->max_outs, c->nouts, sizeof(*c->outs));
    if (OMPI_SUCCESS == rc) {
        c->outs[c->nouts++] = chan;
        ++c->steps[step].nout;
    }
    return rc;
}

int mca_part_ucx_step_in(mca_part_ucx_coll_t *c, int step, int chan)
{
    int rc;

    if (MCA_PART_UCX_NO_CHAN == chan) {
        return OMPI_SUCCESS;
    }
    if (step != c->nsteps - 1) {
        return OMPI_ERR_BAD_PARAM;
    }
    rc = mca_part_ucx_coll_grow((void **) &c->ins, &c->max_ins, c->nins, sizeof(*c->ins));
    if (OMPI_SUCCESS == rc) {
        c->ins[c->nins++] = chan;
        ++c->steps[step].nin;
    }
    return rc;
}

/* Element copy within the collective's memory (GPU: on its stream). */
static int mca_part_ucx_coll_copy(mca_part_ucx_coll_t *c, char *dst, const char *src, size_t n)
{
    if (c->device) {
        return (0 == c->gpu->copy(dst, src, n * (size_t) c->extent, c->stream)) ? OMPI_SUCCESS
                                                                                : OMPI_ERROR;
    }
    return ompi_datatype_copy_content_same_ddt(c->dtype, n, dst, (char *) src);
}

/* Step s's sends of partition p that go from a copy: make the copies
 * (on the GPU: *gpu_work then becomes true). */
static int mca_part_ucx_coll_stage(mca_part_ucx_coll_t *c, size_t p, int s, bool *gpu_work)
{
    mca_part_ucx_step_t *st = &c->steps[s];
    mca_part_ucx_chan_t *ch;
    int i, rc;

    for (i = 0; i < st->nout; ++i) {
        ch = &c->chans[c->outs[st->out0 + i]];
        if (ch->staged) {
            /* from the send buffer (first step) or the running result */
            rc = mca_part_ucx_coll_copy(c, ch->tmp + (ptrdiff_t) (p * ch->len) * c->extent,
                                        (ch->from_send ? c->sendbuf : c->acc) +
                                            (ptrdiff_t) (ch->off + p * c->count) * c->extent,
                                        ch->len);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
            *gpu_work = *gpu_work || c->device;
        }
    }
    return OMPI_SUCCESS;
}

/* Partition p is in state t (its data for t is in place): it sends what
 * step t sends, or is done. */
static int mca_part_ucx_coll_arrive(mca_part_ucx_coll_t *c, size_t p, int t, uint64_t epoch)
{
    mca_part_ucx_step_t *st;
    size_t u;
    int i, rc;

    opal_atomic_wmb(); /* the result before the state that says so */
    c->state[p] = t;
    if (t == c->nsteps) {
        ++c->done;
        for (u = p * c->group; NULL != c->done_words && u < (p + 1) * c->group; ++u) {
            c->done_words[u] = epoch; /* kernels' MPIX_Parrived, per user partition */
        }
        return OMPI_SUCCESS;
    }
    st = &c->steps[t];
    for (i = 0; i < st->nout; ++i) {
        mca_part_ucx_request_t *ch =
            (mca_part_ucx_request_t *) c->chans[c->outs[st->out0 + i]].req;
        rc = ch->ops->pready(ch, p, p);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* After the copies and reductions for state t were issued: on the GPU,
 * state t is taken when they have run (mca_part_ucx_coll_advance). */
static int mca_part_ucx_coll_reach(mca_part_ucx_coll_t *c, size_t p, int t, uint64_t epoch,
                                   bool gpu_work)
{
    if (!gpu_work) {
        return mca_part_ucx_coll_arrive(c, p, t, epoch);
    }
    if (0 != c->gpu->event_record(c->events[p], c->stream)) {
        MCA_PART_UCX_ERROR("GPU event record failed: %s", c->gpu->last_error());
        return OMPI_ERROR;
    }
    c->gpu_pending_state[p] = t;
    return OMPI_SUCCESS;
}

/* Walk partition p through every step whose inputs are there; the caller
 * holds c->lock. */
static int mca_part_ucx_coll_advance(mca_part_ucx_coll_t *c, size_t p, uint64_t epoch)
{
    mca_part_ucx_step_t *st;
    mca_part_ucx_chan_t *ch;
    int s, i, flag, rc, t;
    bool gpu_work;
    char *in, *out, *mine;

    for (;;) {
        if (c->gpu_pending_state[p] >= 0) {
            rc = c->gpu->event_query(c->events[p]);
            if (rc < 0) {
                MCA_PART_UCX_ERROR("GPU work of a collective failed: %s", c->gpu->last_error());
                return OMPI_ERROR;
            }
            if (0 == rc) {
                return OMPI_SUCCESS;
            }
            t = c->gpu_pending_state[p];
            c->gpu_pending_state[p] = -1;
            rc = mca_part_ucx_coll_arrive(c, p, t, epoch);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
            continue;
        }
        s = c->state[p];
        if (s < 0 || s >= c->nsteps) {
            return OMPI_SUCCESS;
        }
        st = &c->steps[s];
        for (i = 0; i < st->nin; ++i) {
            flag = 0;
            ch = &c->chans[c->ins[st->in0 + i]];
            rc = mca_part_ucx_arrived((mca_part_ucx_request_t *) ch->req, p, p,
                                      &flag); /* no progress: we are inside it */
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
            if (!flag) {
                return OMPI_SUCCESS;
            }
        }
        gpu_work = false;
        for (i = 0; i < st->nin; ++i) {
            ch = &c->chans[c->ins[st->in0 + i]];
            if ((!ch->reduce && !ch->bounce) || 0 == ch->len) {
                continue;
            }
            in = ch->tmp + (ptrdiff_t) (p * ch->len) * c->extent;
            out = c->acc + (ptrdiff_t) (p * c->count + ch->off) * c->extent;
            if (ch->bounce) {
                rc = mca_part_ucx_coll_copy(c, out, in, ch->len);
            } else if (ch->first && c->no_copy_in) {
                mine = (char *) c->sendbuf + (ptrdiff_t) (p * c->count + ch->off) * c->extent;
                if (c->device) {
                    rc = (0 == c->gpu->reduce3(c->gpu_op, c->gpu_type, mine, in, out, ch->len,
                                               c->stream))
                             ? OMPI_SUCCESS : OMPI_ERROR;
                } else if (ompi_datatype_is_predefined(c->dtype)) {
                    ompi_3buff_op_reduce(c->op, in, mine, out, (int) ch->len, c->dtype);
                    rc = OMPI_SUCCESS;
                } else { /* the 3-buffer kernels index predefined types only */
                    rc = ompi_datatype_copy_content_same_ddt(c->dtype, ch->len, out, mine);
                    ompi_op_reduce(c->op, in, out, (int) ch->len, c->dtype);
                }
            } else if (c->device) {
                rc = (0 == c->gpu->reduce(c->gpu_op, c->gpu_type, in, out, ch->len, c->stream))
                         ? OMPI_SUCCESS : OMPI_ERROR;
            } else {
                ompi_op_reduce(c->op, in, out, (int) ch->len, c->dtype);
                rc = OMPI_SUCCESS;
            }
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
            gpu_work = c->device;
        }
        if (s + 1 < c->nsteps) {
            rc = mca_part_ucx_coll_stage(c, p, s + 1, &gpu_work);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
        }
        rc = mca_part_ucx_coll_reach(c, p, s + 1, epoch, gpu_work);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
}

/* Partition p starts: its data becomes the running result. */
static int mca_part_ucx_coll_begin(mca_part_ucx_coll_t *c, size_t p, uint64_t epoch)
{
    ptrdiff_t off = (ptrdiff_t) (p * c->count) * c->extent;
    bool gpu_work = false;
    int rc;

    c->state[p] = -2;
    if (NULL != c->sendbuf && !c->no_copy_in &&
        (c->sendbuf != c->acc || c->own_src != c->own_dst)) {
        rc = mca_part_ucx_coll_copy(c, c->acc + (ptrdiff_t) c->own_dst * c->extent + off,
                                    c->sendbuf + (ptrdiff_t) c->own_src * c->extent + off,
                                    c->count);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        gpu_work = c->device;
    }
    if (0 < c->nsteps) {
        rc = mca_part_ucx_coll_stage(c, p, 0, &gpu_work);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    rc = mca_part_ucx_coll_reach(c, p, 0, epoch, gpu_work);
    return (OMPI_SUCCESS == rc) ? mca_part_ucx_coll_advance(c, p, epoch) : rc;
}

static int mca_part_ucx_coll_start(mca_part_ucx_request_t *req)
{
    mca_part_ucx_collreq_t *creq = mca_part_ucx_collreq(req);
    mca_part_ucx_coll_t *c = creq->coll;
    ompi_request_t **reqs;
    size_t p;
    int i, rc = OMPI_SUCCESS;

    if (NULL != c->gcoll) {
        /* the GPU engine: one kernel takes the whole epoch, no channels */
        OPAL_THREAD_LOCK(&c->lock);
        rc = mca_part_ucx_gcoll_start(c, req->epoch);
        OPAL_THREAD_UNLOCK(&c->lock);
        return rc;
    }
    reqs = malloc(sizeof(*reqs) * (c->nchans + 1));
    if (NULL == reqs) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (i = 0; i < c->nchans; ++i) {
        reqs[i] = c->chans[i].req;
    }
    OPAL_THREAD_LOCK(&c->lock);
    c->done = 0;
    for (p = 0; p < c->parts; ++p) {
        c->state[p] = -1;
        c->gpu_pending_state[p] = -1;
        c->ready_count[p] = 0;
    }
    rc = mca_part_ucx_start(c->nchans, reqs);
    for (p = 0; OMPI_SUCCESS == rc && !c->user_pready && p < c->parts; ++p) {
        rc = mca_part_ucx_coll_begin(c, p, req->epoch); /* nothing of ours to wait for */
    }
    OPAL_THREAD_UNLOCK(&c->lock);
    free(reqs);
    return rc;
}

/* User partition u is ready (once per epoch): its transport partition
 * starts with the last of its group. The caller holds c->lock. */
static int mca_part_ucx_coll_user_ready(mca_part_ucx_coll_t *c, size_t u, uint64_t epoch)
{
    size_t p = u / c->group;

    if (c->user_ready[u] == epoch || -1 != c->state[p]) {
        return MPI_ERR_ARG; /* already ready in this epoch */
    }
    c->user_ready[u] = epoch;
    return (++c->ready_count[p] == c->group) ? mca_part_ucx_coll_begin(c, p, epoch)
                                             : OMPI_SUCCESS;
}

static int mca_part_ucx_coll_pready(mca_part_ucx_request_t *req, size_t first,
                                    size_t last)
{
    mca_part_ucx_collreq_t *creq = mca_part_ucx_collreq(req);
    mca_part_ucx_coll_t *c = creq->coll;
    int rc = OMPI_SUCCESS;
    size_t u;

    OPAL_THREAD_LOCK(&c->lock);
    for (u = first; u <= last && OMPI_SUCCESS == rc; ++u) {
        rc = (NULL != c->gcoll) ? mca_part_ucx_gcoll_pready(c, u, req->epoch)
                                : mca_part_ucx_coll_user_ready(c, u, req->epoch);
    }
    if (OMPI_SUCCESS == rc && NULL != c->gcoll) {
        rc = mca_part_ucx_gcoll_launch(c);
    }
    OPAL_THREAD_UNLOCK(&c->lock);
    return rc;
}

static void mca_part_ucx_coll_dev_attach(mca_part_ucx_request_t *req,
                                         volatile uint64_t *done_words, volatile uint32_t *error)
{
    mca_part_ucx_collreq_t *creq = mca_part_ucx_collreq(req);
    mca_part_ucx_coll_t *c = creq->coll;
    size_t u;

    if (NULL != c->gcoll) {
        /* its kernel writes the done words the device request reads; its
         * gate reports stream-ordered marks missing (the lock: another
         * thread's launch reads the engine's arguments) */
        OPAL_THREAD_LOCK(&c->lock);
        if (mca_part_ucx_gcoll_ordered(c) && OMPI_SUCCESS != mca_part_ucx_gcoll_attach(c, error)) {
            req->error = MPI_ERR_INTERN;
        }
        OPAL_THREAD_UNLOCK(&c->lock);
        return;
    }
    OPAL_THREAD_LOCK(&c->lock);
    c->done_words = done_words;
    for (u = 0; NULL != done_words && u < c->user_parts; ++u) {
        if (c->state[u / c->group] == c->nsteps) {
            done_words[u] = req->epoch; /* done before the device request existed */
        }
    }
    OPAL_THREAD_UNLOCK(&c->lock);
}

static bool mca_part_ucx_coll_done(const mca_part_ucx_coll_t *c, size_t first, size_t last)
{
    size_t p;

    for (p = first; p <= last; ++p) {
        if (c->state[p] != c->nsteps) {
            return false;
        }
    }
    return true;
}

static int mca_part_ucx_coll_parrived(mca_part_ucx_request_t *req, size_t first, size_t last,
                                      int *flag)
{
    mca_part_ucx_collreq_t *creq = mca_part_ucx_collreq(req);
    mca_part_ucx_coll_t *c = creq->coll;

    if (NULL != c->gcoll) {
        *flag = mca_part_ucx_gcoll_parrived(c, first, last, req->epoch);
        if (!*flag) {
            mca_part_ucx_poll_progress(); /* the epoch's kernel may still be to launch */
        }
        return OMPI_SUCCESS;
    }
    first /= c->group; /* user partitions -> their transport partitions */
    last /= c->group;
    if (!mca_part_ucx_coll_done(c, first, last)) {
        mca_part_ucx_poll_progress(); /* steps move only through progress */
    }
    *flag = mca_part_ucx_coll_done(c, first, last);
    if (*flag) {
        opal_atomic_rmb();
    }
    return OMPI_SUCCESS;
}

static bool mca_part_ucx_coll_progress(mca_part_ucx_request_t *req)
{
    mca_part_ucx_collreq_t *creq = mca_part_ucx_collreq(req);
    mca_part_ucx_coll_t *c = creq->coll;
    mca_part_ucx_request_t *ch;
    size_t p, u;
    int i, rc = OMPI_SUCCESS;

    if (0 != opal_mutex_trylock(&c->lock)) {
        return false;
    }
    if (NULL != c->gcoll) {
        /* the GPU engine's kernel says when the epoch is complete */
        bool done = false;
        if (OMPI_SUCCESS != mca_part_ucx_gcoll_launch(c)) {
            req->error = MPI_ERR_INTERN;
            opal_mutex_unlock(&c->lock);
            return true;
        }
        done = *mca_part_ucx_gcoll_finished(c) >= req->epoch;
        if (done && NULL != req->dev) {
            (void) mca_part_ucx_dev_failed(req); /* kernels' misuse: MPI_ERR_ARG */
        }
        if (done) {
            opal_atomic_rmb(); /* the results after the word */
        }
        opal_mutex_unlock(&c->lock);
        return done;
    }
    for (p = 0; p < c->parts && OMPI_SUCCESS == rc; ++p) {
        if (NULL != req->dev && -1 == c->state[p] && c->user_pready) {
            /* user partitions the kernels marked */
            for (u = p * c->group; u < (p + 1) * c->group && OMPI_SUCCESS == rc; ++u) {
                if (c->user_ready[u] != req->epoch && mca_part_ucx_dev_marked(req, u)) {
                    opal_atomic_rmb(); /* the kernel's data before its mark */
                    rc = mca_part_ucx_coll_user_ready(c, u, req->epoch);
                }
            }
        } else {
            rc = mca_part_ucx_coll_advance(c, p, req->epoch);
        }
    }
    if (OMPI_SUCCESS != rc) {
        req->error = (rc < 0) ? MPI_ERR_INTERN : rc;
    }
    if (NULL != req->dev) {
        (void) mca_part_ucx_dev_failed(req); /* kernels' misuse: MPI_ERR_ARG */
    }
    if (c->done < c->parts && MPI_SUCCESS == req->error) {
        opal_mutex_unlock(&c->lock);
        return false;
    }
    for (i = 0; i < c->nchans; ++i) {
        if (!REQUEST_COMPLETE(c->chans[i].req)) {
            opal_mutex_unlock(&c->lock);
            return false;
        }
    }
    /* Our channels are never waited on by the user: make them startable. */
    for (i = 0; i < c->nchans; ++i) {
        ch = (mca_part_ucx_request_t *) c->chans[i].req;
        if (MPI_SUCCESS != ch->error && MPI_SUCCESS == req->error) {
            req->error = ch->error;
        }
        ch->super.req_state = OMPI_REQUEST_INACTIVE;
    }
    opal_mutex_unlock(&c->lock);
    return true;
}

/* MPIX_Pbuf_prepare: every channel of this epoch ready. A rank that only
 * forwards (a bcast's non-root) may have finished the epoch before it asks,
 * its channels already made inactive by the progress of another thread:
 * those need nothing more. The lock (also where threads are not in use)
 * keeps the collective's progress, which only tries it, from ending the
 * epoch while we look; the channels progress on their own meanwhile. */
static int mca_part_ucx_coll_prepare(mca_part_ucx_request_t *req)
{
    mca_part_ucx_collreq_t *creq = mca_part_ucx_collreq(req);
    mca_part_ucx_coll_t *c = creq->coll;
    int i, rc = MPI_SUCCESS;

    opal_mutex_lock(&c->lock); /* the GPU engine has no channels: nothing to prepare */
    for (i = 0; i < c->nchans && MPI_SUCCESS == rc; ++i) {
        if (OMPI_REQUEST_ACTIVE == c->chans[i].req->req_state) {
            rc = mca_part_ucx_pbuf_prepare(c->chans[i].req);
        }
    }
    opal_mutex_unlock(&c->lock);
    return rc;
}

/* Whether nothing the collective queued on its GPU stream can still run:
 * after a failed epoch (a partition's error ends it while copies and
 * reductions of other partitions are queued) the request completes
 * without waiting for them, and its scratch memory, result buffer of a
 * non-root reduce, stream and events must not go back to their pools
 * before that work has run. An event recorded now completes once all of
 * it has. False where the device reports an error instead. */
static bool mca_part_ucx_coll_quiesce(mca_part_ucx_coll_t *c)
{
    int rc;

    if (!c->device || NULL == c->stream || NULL == c->events || 0 == c->parts ||
        NULL == c->events[0]) {
        return true; /* no GPU work was ever queued */
    }
    if (0 != c->gpu->event_record(c->events[0], c->stream)) {
        return false;
    }
    while (0 == (rc = c->gpu->event_query(c->events[0]))) {
        /* copies and reductions only: nothing on the stream waits for us */
    }
    return rc > 0;
}

static void mca_part_ucx_coll_release(mca_part_ucx_request_t *req)
{
    mca_part_ucx_collreq_t *creq = mca_part_ucx_collreq(req);
    mca_part_ucx_coll_t *c = creq->coll;
    int i;

    if (NULL == c) {
        return;
    }
    for (i = 0; i < c->nchans; ++i) {
        if (NULL != c->chans[i].req) {
            c->chans[i].req->req_state = OMPI_REQUEST_INACTIVE;
            (void) ompi_request_free(&c->chans[i].req);
        }
    }
    mca_part_ucx_gcoll_release(c); /* before the stream goes back to its pool */
    if (mca_part_ucx_coll_quiesce(c)) {
        mca_part_ucx_coll_free(c, c->scratch, c->scratch_bytes);
        mca_part_ucx_coll_free(c, c->owned, c->owned_bytes);
        for (i = 0; NULL != c->events && i < (int) c->parts; ++i) {
            if (NULL != c->events[i]) {
                mca_part_ucx_device_event_put(c->events[i]); /* completed: reusable */
            }
        }
        if (NULL != c->stream) {
            mca_part_ucx_device_stream_put(c->stream); /* idle */
        }
    } else {
        /* GPU work of ours may still be queued (the device failed): its
         * memory, stream and events go back to no pool, where later work
         * could get them while it still runs. */
        MCA_PART_UCX_ERROR("GPU work of a collective did not complete (%s): its scratch memory "
                           "is not reused", c->gpu->last_error());
    }
    free(c->events);
    free(c->user_ready);
    free(c->ready_count);
    free(c->gpu_pending_state);
    free(c->chans);
    free(c->steps);
    free(c->outs);
    free(c->ins);
    free((void *) c->state);
    OBJ_DESTRUCT(&c->lock);
    free(c);
    creq->coll = NULL;
}

/* A failed epoch completes while its channels may still be busy: only
 * then may the request be freed active. */
static bool mca_part_ucx_coll_idle(const mca_part_ucx_request_t *req)
{
    return MCA_PART_UCX_SETUP_FAILED == req->setup;
}

static bool mca_part_ucx_coll_setup_pending(const mca_part_ucx_request_t *req)
{
    const mca_part_ucx_coll_t *c = mca_part_ucx_collreq((mca_part_ucx_request_t *) req)->coll;
    const mca_part_ucx_request_t *ch;
    int i;

    for (i = 0; i < c->nchans; ++i) {
        ch = (const mca_part_ucx_request_t *) c->chans[i].req;
        if (NULL != ch->ops->setup_pending && ch->ops->setup_pending(ch)) {
            return true;
        }
    }
    return false;
}

/* Each partition's step and pending GPU work, each user partition's ready
 * epoch and the kernels' mark, each channel's epoch. */
static void mca_part_ucx_coll_dump(const mca_part_ucx_request_t *req)
{
    mca_part_ucx_coll_t *c = mca_part_ucx_collreq(req)->coll;
    mca_part_ucx_request_t *ch;
    size_t p;
    int i;

    if (NULL != c->gcoll) {
        mca_part_ucx_gcoll_dump(c, req->epoch);
        return;
    }
    mca_part_ucx_dump_line("  collective: %zu of %zu partitions done, %d steps, %d channels",
                           c->done, c->parts, c->nsteps, c->nchans);
    for (p = 0; p < c->parts; ++p) {
        mca_part_ucx_dump_line("  partition %zu: state %d gpu_pending %d ready %zu/%zu "
                               "user_ready[0] %" PRIu64 " marked %d",
                               p, c->state[p], c->gpu_pending_state[p], c->ready_count[p],
                               c->group, c->user_ready[p * c->group],
                               (NULL != req->dev) ? (int) mca_part_ucx_dev_marked(req, p * c->group)
                                                  : -1);
    }
    for (i = 0; i < c->nchans; ++i) {
        ch = (mca_part_ucx_request_t *) c->chans[i].req;
        mca_part_ucx_dump_line("  channel %d: %s peer %d epoch %" PRIu64
                               " state %d complete %d setup %d",
                               i, c->chans[i].send ? "send" : "recv", c->chans[i].peer, ch->epoch,
                               (int) ch->super.req_state, (int) REQUEST_COMPLETE(&ch->super),
                               ch->setup);
    }
}

static const volatile uint64_t *mca_part_ucx_coll_gpu_epochs(const mca_part_ucx_request_t *req)
{
    const mca_part_ucx_coll_t *c = mca_part_ucx_collreq((mca_part_ucx_request_t *) req)->coll;

    return (NULL != c->gcoll) ? mca_part_ucx_gcoll_finished(c) : NULL;
}

static int mca_part_ucx_coll_gpu_enqueue(mca_part_ucx_request_t *req, void *stream,
                                         uint64_t epoch, const volatile uint64_t *epoch_word)
{
    return mca_part_ucx_gcoll_enqueue(mca_part_ucx_collreq(req)->coll, stream, epoch, epoch_word);
}

static volatile uint64_t *mca_part_ucx_coll_gpu_epoch_word(const mca_part_ucx_request_t *req)
{
    return mca_part_ucx_gcoll_epoch_word(mca_part_ucx_collreq((mca_part_ucx_request_t *) req)->coll);
}

static int mca_part_ucx_coll_gpu_join(mca_part_ucx_request_t *req, void *stream)
{
    return mca_part_ucx_gcoll_join(mca_part_ucx_collreq(req)->coll, stream);
}

const mca_part_ucx_request_ops_t mca_part_ucx_coll_ops = {
    .start = mca_part_ucx_coll_start,
    .progress = mca_part_ucx_coll_progress,
    .release = mca_part_ucx_coll_release,
    .pready = mca_part_ucx_coll_pready,
    .parrived = mca_part_ucx_coll_parrived,
    .prepare = mca_part_ucx_coll_prepare,
    .idle = mca_part_ucx_coll_idle,
    .dev_attach = mca_part_ucx_coll_dev_attach,
    .setup_pending = mca_part_ucx_coll_setup_pending,
    .dump = mca_part_ucx_coll_dump,
    .gpu_epochs = mca_part_ucx_coll_gpu_epochs,
    .gpu_enqueue = mca_part_ucx_coll_gpu_enqueue,
    .gpu_epoch_word = mca_part_ucx_coll_gpu_epoch_word,
    .gpu_join = mca_part_ucx_coll_gpu_join,
};

/* The channels go on a duplicate of the collective's communicator, one for
 * all collectives of that communicator, made by the first (every rank
 * makes it then: collective inits are collective, in the same order on
 * every rank). Each collective tags its channels with its number there,
 * so two collectives' channels between the same ranks never match. */
int mca_part_ucx_coll_channels(mca_part_ucx_coll_t *c)
{
    mca_part_ucx_comm_state_t *state = mca_part_ucx_comm_state(c->comm);
    int rc;

    if (NULL == state) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (NULL == state->coll_comm) {
        rc = ompi_comm_dup(c->comm, &state->coll_comm);
        if (OMPI_SUCCESS != rc) {
            state->coll_comm = NULL;
            return rc;
        }
        (void) opal_string_copy(state->coll_comm->c_name, "part/ucx collectives",
                                sizeof(state->coll_comm->c_name));
    }
    c->chan_comm = state->coll_comm;
    c->chan_tag = (int) (state->coll_seq++ % ((uint32_t) mca_pml.pml_max_tag + 1));
    return OMPI_SUCCESS;
}
