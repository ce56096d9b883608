/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#include "ompi_config.h"

#include "opal/datatype/opal_convertor.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/show_help.h"
#include "ompi/proc/proc.h"

#include "part_ucx.h"
#include "part_ucx_request.h"
#include "part_ucx_device_plugin.h"
#include "part_ucx_pvar.h"

#include <inttypes.h>

/* Every partition costs two puts (data, then flag) per epoch. */
#define MCA_PART_UCX_SEND_OPS(_req) ((int64_t) (_req)->parts * 2)

static void mca_part_ucx_put_cb(void *op, ucs_status_t status, void *user_data)
{
    mca_part_ucx_request_t *req = user_data;
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);

    if (UCS_OK != status) {
        MCA_PART_UCX_ERROR("put to rank %d failed: %s", req->peer, ucs_status_string(status));
        mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
    }
    opal_atomic_add_fetch_64(&sreq->ops_done, 1);
    ucp_request_free(op);
}

/* An operation that stands for `ops` of the request's operations (joined
 * partitions, a batch of arrivals). */
typedef struct {
    mca_part_ucx_request_t *req;
    int64_t ops;
} mca_part_ucx_ops_ctx_t;

_Static_assert(sizeof(mca_part_ucx_ops_ctx_t) <= MCA_PART_UCX_OP_CTX_WORDS * sizeof(uint64_t),
               "an operation context fits mca_part_ucx_op_ctx_get");

static void mca_part_ucx_ops_cb(void *op, ucs_status_t status, void *user_data)
{
    mca_part_ucx_ops_ctx_t *c = user_data;

    if (UCS_OK != status) {
        MCA_PART_UCX_ERROR("transfer to rank %d failed: %s", c->req->peer,
                           ucs_status_string(status));
        mca_part_ucx_request_fail(c->req, MPI_ERR_INTERN);
    }
    opal_atomic_add_fetch_64(&mca_part_ucx_sendreq(c->req)->ops_done, c->ops);
    mca_part_ucx_op_ctx_put(c);
    ucp_request_free(op);
}

/* Make `param` complete through mca_part_ucx_ops_cb; NULL without memory. */
static mca_part_ucx_ops_ctx_t *mca_part_ucx_ops_ctx(mca_part_ucx_request_t *req, int64_t ops,
                                                    ucp_request_param_t *param)
{
    mca_part_ucx_ops_ctx_t *c = mca_part_ucx_op_ctx_get();

    if (NULL != c) {
        c->req = req;
        c->ops = ops;
        param->cb.send = mca_part_ucx_ops_cb;
        param->user_data = c;
    }
    return c;
}

static void mca_part_ucx_put(mca_part_ucx_request_t *req, ucp_ep_h ep, const void *src,
                             size_t len, uint64_t raddr, ucp_rkey_h rkey, int64_t count)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    mca_part_ucx_ops_ctx_t *c = NULL;
    ucp_request_param_t param;
    ucs_status_ptr_t op;

    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send = mca_part_ucx_put_cb;
    param.user_data = req;
    if (count > 1 && NULL == (c = mca_part_ucx_ops_ctx(req, count, &param))) {
        mca_part_ucx_request_fail(req, MPI_ERR_NO_MEM);
        opal_atomic_add_fetch_64(&sreq->ops_done, count);
        return;
    }
    op = ucp_put_nbx(ep, src, len, raddr, rkey, &param);
    if (UCS_PTR_IS_ERR(op)) {
        MCA_PART_UCX_ERROR("put to rank %d failed: %s", req->peer,
                           ucs_status_string(UCS_PTR_STATUS(op)));
        mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
    }
    if (!UCS_PTR_IS_PTR(op)) {
        opal_atomic_add_fetch_64(&sreq->ops_done, count);
        mca_part_ucx_op_ctx_put(c);
    }
}

/* How far apart the receiver's partitions are (packed: one partition). */
static size_t mca_part_ucx_remote_stride(const mca_part_ucx_request_t *req)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    return sreq->remote_stride ? sreq->remote_stride : req->part_bytes;
}

/* Take the next run out of *bits: its lowest set bit i (returned) and the
 * *n adjacent set bits from there that may move together (`join`), up to
 * `cap` bytes of `unit` each. */
static size_t mca_part_ucx_next_run(uint64_t *bits, bool join, size_t unit, size_t cap,
                                    size_t *n)
{
    size_t i = (size_t) __builtin_ctzll(*bits);

    *n = 1;
    while (join && i + *n < 64 && (*bits >> (i + *n)) & 1 && (*n + 1) * unit <= cap) {
        ++*n;
    }
    *bits &= (64 == i + *n) ? 0 : ~UINT64_C(0) << (i + *n);
    return i;
}

static size_t mca_part_ucx_join_cap(const mca_part_ucx_request_t *req)
{
    int bytes = mca_part_ucx_data_on_device(mca_part_ucx_p2p(req))
                    ? mca_part_ucx_module.params.join_bytes_gpu
                    : mca_part_ucx_module.params.join_bytes;
    return (size_t) (bytes > 0 ? bytes : 0);
}

/* Flags of one batch on one worker, put once the batch's data is complete
 * at the receiver. */
typedef struct {
    mca_part_ucx_request_t *req;
    size_t first;
    uint64_t parts; /* bit i: partition first + i */
    int worker;
} mca_part_ucx_flag_batch_t;

_Static_assert(sizeof(mca_part_ucx_flag_batch_t) <= MCA_PART_UCX_OP_CTX_WORDS * sizeof(uint64_t),
               "a batch fits mca_part_ucx_op_ctx_get");

static void mca_part_ucx_put_flags(mca_part_ucx_flag_batch_t *b)
{
    mca_part_ucx_request_t *req = b->req;
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    uint64_t bits = b->parts;
    bool join = 1 == mca_part_ucx_module.num_workers && 0 < mca_part_ucx_join_cap(req);
    size_t n, p;

    /* adjacent flags are adjacent words on both sides: one put per run */
    while (bits) {
        p = b->first + mca_part_ucx_next_run(&bits, join, 0, 0, &n);
        mca_part_ucx_put(req, sreq->super.remote->eps[b->worker], &sreq->flag_values[p],
                         n * sizeof(uint64_t), sreq->remote_flags + p * sizeof(uint64_t),
                         sreq->super.flags_rkeys[b->worker], (int64_t) n);
    }
}

static void mca_part_ucx_flush_cb(void *op, ucs_status_t status, void *user_data)
{
    mca_part_ucx_flag_batch_t *b = user_data;

    if (UCS_OK != status) {
        mca_part_ucx_request_fail(b->req, MPI_ERR_INTERN);
        opal_atomic_add_fetch_64(&mca_part_ucx_sendreq(b->req)->ops_done,
                                 __builtin_popcountll(b->parts));
    } else {
        mca_part_ucx_put_flags(b);
    }
    mca_part_ucx_op_ctx_put(b);
    ucp_request_free(op);
}

static void mca_part_ucx_am_sent_cb(void *op, ucs_status_t status, void *user_data)
{
    mca_part_ucx_request_t *req = user_data;
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);

    if (UCS_OK != status) {
        MCA_PART_UCX_ERROR("partition to rank %d failed: %s", req->peer,
                           ucs_status_string(status));
        mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
    }
    opal_atomic_add_fetch_64(&sreq->ops_done, 2);
    ucp_request_free(op);
}

/* am transfer: one message carries the data and arrival of partitions
 * p .. p + n - 1 (n > 1 only where they are contiguous on both sides); it
 * counts for both operations of each. */
static void mca_part_ucx_send_am(mca_part_ucx_request_t *req, size_t p, size_t n)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    mca_part_ucx_data_hdr_t *hdr = &sreq->am_hdrs[p];
    mca_part_ucx_ops_ctx_t *c = NULL;
    ucp_request_param_t param;
    ucs_status_ptr_t op;
    int w = (int) (p % mca_part_ucx_module.num_workers);

    hdr->epoch = req->epoch;
    hdr->part = p;
    hdr->count = n;
    hdr->copied = 0;
    mca_part_ucx_recv_rtr_ride(sreq->super.remote, &hdr->rtr);
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                         UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.cb.send = mca_part_ucx_am_sent_cb;
    param.user_data = req;
    if (n > 1 && NULL == (c = mca_part_ucx_ops_ctx(req, 2 * (int64_t) n, &param))) {
        for (; n > 0; --n, ++p) { /* one by one then */
            mca_part_ucx_send_am(req, p, 1);
        }
        return;
    }
    param.memory_type = mca_part_ucx_memtype(mca_part_ucx_data_on_device(&sreq->super));
    if (sreq->rndv) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
        param.flags = UCP_AM_SEND_FLAG_RNDV;
    } else if (mca_part_ucx_data_on_device(&sreq->super) &&
               n * req->part_bytes <= (size_t) mca_part_ucx_module.params.gpu_eager_bytes) {
        /* UCX would pick a rendezvous for GPU memory, a round trip or more
         * before the data; eager stages it through host memory at once. */
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
        param.flags = UCP_AM_SEND_FLAG_EAGER;
    }
    op = ucp_am_send_nbx(sreq->super.remote->eps[w], MCA_PART_UCX_AM_DATA, hdr, sizeof(*hdr),
                         sreq->super.data + p * sreq->super.stride, n * req->part_bytes, &param);
    if (UCS_PTR_IS_ERR(op)) {
        MCA_PART_UCX_ERROR("partition to rank %d failed: %s", req->peer,
                           ucs_status_string(UCS_PTR_STATUS(op)));
        mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
    }
    if (!UCS_PTR_IS_PTR(op)) {
        opal_atomic_add_fetch_64(&sreq->ops_done, 2 * (int64_t) n);
        mca_part_ucx_op_ctx_put(c);
    }
}

struct mca_part_ucx_hcopy_run_t {
    void *event;                    /* recorded after the run's copy (NULL: a kernel's) */
    uint64_t seq;                   /* a kernel's copy: it sets hcopy_word to this */
    size_t first;
    uint64_t bits;                  /* the run: bits of partitions first + i */
};

static void mca_part_ucx_send_arrivals(mca_part_ucx_request_t *req, size_t first,
                                       uint64_t copied);

/* The device plugin loaded, a stream in its pool and the copy kernel
 * loaded before the first epoch: they cost tens of microseconds the first
 * time, which would otherwise fall on the first MPIX_Pbuf_prepare or
 * MPI_Wait of a GPU send; and a kernel's first launch waits behind the
 * context's work, which may be a stream waiting for this send's copies. */
static volatile bool mca_part_ucx_hcopy_kernel_loaded = false;

static void mca_part_ucx_send_hcopy_warm(void)
{
    const mca_part_ucx_device_ops_t *gpu = mca_part_ucx_device();
    void *stream;

    if (NULL != gpu && 0 == mca_part_ucx_device_stream_get(&stream)) {
        mca_part_ucx_device_stream_put(stream);
        if (mca_part_ucx_module.params.gpu_host_copy_kernel && !mca_part_ucx_hcopy_kernel_loaded) {
            if (0 == gpu->copy_signal(NULL, NULL, 0, NULL, NULL, 0)) {
                mca_part_ucx_hcopy_kernel_loaded = true;
            } else {
                MCA_PART_UCX_VERBOSE(5, "the host copy's kernel did not load (copies and "
                                     "events then): %s", gpu->last_error());
            }
        }
    }
}

static void mca_part_ucx_send_hcopy_setup(mca_part_ucx_request_t *req, void *mapped)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    if (!mca_part_ucx_module.params.gpu_host_copy || 0 == req->part_bytes ||
        NULL == mca_part_ucx_device()) {
        return;
    }
    sreq->hcopy_runs = calloc(req->parts, sizeof(*sreq->hcopy_runs));
    if (NULL == sreq->hcopy_runs || 0 != mca_part_ucx_device_stream_get(&sreq->hcopy_stream)) {
        free(sreq->hcopy_runs);
        sreq->hcopy_runs = NULL;
        return; /* rendezvous then */
    }
    opal_atomic_lock_init(&sreq->hcopy_lock, OPAL_ATOMIC_LOCK_UNLOCKED);
    if (mca_part_ucx_hcopy_kernel_loaded &&
        OMPI_SUCCESS == mca_part_ucx_block_alloc_mapped(sizeof(uint64_t), &sreq->hcopy_word)) {
        *(volatile uint64_t *) sreq->hcopy_word.addr = sreq->hcopy_seq = 0;
    }
    sreq->hcopy_dst = mapped;
    MCA_PART_UCX_VERBOSE(10, "send to rank %d tag %d: GPU partitions copied by this host",
                         req->peer, req->tag);
}

/* A run's copy on the send's stream, under its lock: by a kernel that
 * then sets the send's word to the run's sequence number, where the run
 * is small enough, else a copy and an event (a pool's; NULL where none). */
static int mca_part_ucx_hcopy_issue(mca_part_ucx_sendreq_t *sreq, void *dst, const void *src,
                                    size_t bytes, struct mca_part_ucx_hcopy_run_t *r)
{
    const mca_part_ucx_device_ops_t *gpu = mca_part_ucx_device();

    r->event = NULL;
    r->seq = 0;
    if (NULL != sreq->hcopy_word.addr && bytes <= gpu->copy_signal_max) {
        r->seq = sreq->hcopy_seq + 1;
        if (0 != gpu->copy_signal(dst, src, bytes, sreq->hcopy_stream,
                                  (volatile uint64_t *) sreq->hcopy_word.addr, r->seq)) {
            return -1;
        }
        sreq->hcopy_seq = r->seq;
        return 0;
    }
    if (0 != mca_part_ucx_device_event_get(&r->event)) {
        r->event = NULL; /* none to give back */
        return -1;
    }
    return (0 != gpu->copy(dst, src, bytes, sreq->hcopy_stream) ||
            0 != gpu->event_record(r->event, sreq->hcopy_stream)) ? -1 : 0;
}

/* Whether a run's copy is complete: 1, 0 not yet, < 0 failed. */
static int mca_part_ucx_hcopy_done(const mca_part_ucx_sendreq_t *sreq,
                                   const struct mca_part_ucx_hcopy_run_t *r)
{
    if (NULL != r->event) {
        return mca_part_ucx_device()->event_query(r->event);
    }
    return *(const volatile uint64_t *) sreq->hcopy_word.addr >= r->seq;
}

/* Host copy of partitions first + i (bit i of `bits`): one copy per run of
 * adjacent ones where both sides are contiguous. */
static void mca_part_ucx_hcopy_bits(mca_part_ucx_request_t *req, size_t first, uint64_t bits,
                                    bool join)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    const mca_part_ucx_device_ops_t *gpu = mca_part_ucx_device();
    size_t rstride = mca_part_ucx_remote_stride(req);
    size_t cap = mca_part_ucx_join_cap(req), i, n;
    struct mca_part_ucx_hcopy_run_t *r;

    while (bits) {
        i = mca_part_ucx_next_run(&bits, join, req->part_bytes, cap, &n);
        opal_atomic_lock(&sreq->hcopy_lock); /* stream order = ring order */
        r = &sreq->hcopy_runs[sreq->hcopy_tail % req->parts];
        if (0 != mca_part_ucx_hcopy_issue(sreq, sreq->hcopy_dst + (first + i) * rstride,
                                          sreq->super.data + (first + i) * sreq->super.stride,
                                          n * req->part_bytes, r)) {
            opal_atomic_unlock(&sreq->hcopy_lock);
            MCA_PART_UCX_ERROR("GPU copy to rank %d failed: %s", req->peer, gpu->last_error());
            if (NULL != r->event) {
                mca_part_ucx_device_event_put(r->event);
            }
            mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
            opal_atomic_add_fetch_64(&sreq->ops_done, 2 * (int64_t) n);
            continue;
        }
        ++sreq->hcopy_tail;
        r->first = first;
        r->bits = ((n < 64) ? ((UINT64_C(1) << n) - 1) : ~UINT64_C(0)) << i;
        opal_atomic_unlock(&sreq->hcopy_lock);
    }
}

/* Arrivals of the runs whose copies are done, in stream order. */
static void mca_part_ucx_hcopy_progress(mca_part_ucx_request_t *req)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    const mca_part_ucx_device_ops_t *gpu = mca_part_ucx_device();
    struct mca_part_ucx_hcopy_run_t r;
    int done;

    while (sreq->hcopy_head != sreq->hcopy_tail && opal_atomic_trylock(&sreq->hcopy_lock) == 0) {
        done = 0;
        if (sreq->hcopy_head != sreq->hcopy_tail) { /* again, under the lock */
            r = sreq->hcopy_runs[sreq->hcopy_head % req->parts];
            done = mca_part_ucx_hcopy_done(sreq, &r);
            sreq->hcopy_head += (0 != done);
        }
        opal_atomic_unlock(&sreq->hcopy_lock);
        if (0 == done) {
            return;
        }
        if (NULL != r.event) {
            mca_part_ucx_device_event_put(r.event);
        } else {
            opal_atomic_rmb(); /* the kernel's data before its word */
        }
        if (done < 0) {
            MCA_PART_UCX_ERROR("GPU copy to rank %d failed: %s", req->peer, gpu->last_error());
            mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
            opal_atomic_add_fetch_64(&sreq->ops_done, 2 * __builtin_popcountll(r.bits));
            continue;
        }
        mca_part_ucx_send_arrivals(req, r.first, r.bits);
    }
}

/* The partitions first + i (bit i of `bits`) as active messages: runs of
 * adjacent ones in one message each where both sides are contiguous and
 * one worker carries everything (several spread partitions over rails). */
static void mca_part_ucx_send_am_bits(mca_part_ucx_request_t *req, size_t first, uint64_t bits)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    bool join = sreq->super.stride == req->part_bytes && 0 == sreq->remote_stride &&
                1 == mca_part_ucx_module.num_workers;
    size_t cap = mca_part_ucx_join_cap(req), i, n;

    if (NULL != sreq->hcopy_dst) {
        mca_part_ucx_count(MCA_PART_UCX_PVAR_PARTS_HOST_COPY, __builtin_popcountll(bits));
        mca_part_ucx_hcopy_bits(req, first, bits, join);
        return;
    }
    mca_part_ucx_count(MCA_PART_UCX_PVAR_PARTS_AM, __builtin_popcountll(bits));
    while (bits) {
        i = mca_part_ucx_next_run(&bits, join, req->part_bytes, cap, &n);
        mca_part_ucx_send_am(req, first + i, n);
    }
}

/* Kernel copy: the data of partitions first + i (bit i of `copied`) are
 * already in the receiver's buffer; one header-only message carries all
 * their arrivals (one per partition made the host the bottleneck from a
 * thousand partitions on). The header of the lowest one is free to use. */
static void mca_part_ucx_send_arrivals(mca_part_ucx_request_t *req, size_t first,
                                       uint64_t copied)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    size_t low = first + (size_t) __builtin_ctzll(copied);
    int64_t ops = 2 * __builtin_popcountll(copied);
    mca_part_ucx_data_hdr_t *hdr = &sreq->am_hdrs[low];
    mca_part_ucx_ops_ctx_t *c;
    ucp_request_param_t param;
    ucs_status_ptr_t op;

    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    c = mca_part_ucx_ops_ctx(req, ops, &param);
    if (NULL == c) {
        mca_part_ucx_request_fail(req, MPI_ERR_NO_MEM);
        opal_atomic_add_fetch_64(&sreq->ops_done, ops);
        return;
    }
    hdr->epoch = req->epoch;
    hdr->part = low;
    hdr->count = 1;
    hdr->copied = copied >> (low - first);
    hdr->rtr.epoch = 0;
    op = ucp_am_send_nbx(sreq->super.remote->eps[low % mca_part_ucx_module.num_workers],
                         MCA_PART_UCX_AM_DATA, hdr, sizeof(*hdr), NULL, 0, &param);
    if (UCS_PTR_IS_PTR(op)) {
        return; /* the callback counts them */
    }
    if (UCS_PTR_IS_ERR(op)) {
        MCA_PART_UCX_ERROR("arrivals to rank %d failed: %s", req->peer,
                           ucs_status_string(UCS_PTR_STATUS(op)));
        mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
    }
    opal_atomic_add_fetch_64(&sreq->ops_done, ops);
    mca_part_ucx_op_ctx_put(c);
}

/* The data of partitions first + i (bit i of `bits`): one put per run of
 * adjacent ones where both sides are contiguous and one worker carries
 * everything. */
static void mca_part_ucx_put_data(mca_part_ucx_request_t *req, size_t first, uint64_t bits)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    size_t rstride = mca_part_ucx_remote_stride(req);
    bool join = sreq->super.stride == req->part_bytes && rstride == req->part_bytes &&
                1 == mca_part_ucx_module.num_workers;
    size_t cap = mca_part_ucx_join_cap(req), n, p;
    int w;

    while (bits) {
        p = first + mca_part_ucx_next_run(&bits, join, req->part_bytes, cap, &n);
        w = (int) (p % mca_part_ucx_module.num_workers);
        if (0 == req->part_bytes) {
            opal_atomic_add_fetch_64(&sreq->ops_done, (int64_t) n);
            continue;
        }
        mca_part_ucx_put(req, sreq->super.remote->eps[w], sreq->super.data + p * sreq->super.stride,
                         n * req->part_bytes, sreq->remote_buf + p * rstride,
                         sreq->super.buf_rkeys[w],
                         (int64_t) n);
    }
}

/* Issue the partitions of [first, first + n) that this caller claims
 * (queued -> issued): the data puts, then per worker a flush, and the flags
 * when the flush completes. A flush means remote completion on every UCX
 * transport, software-emulated RMA included, where a fence is not enough
 * to keep a flag behind its data. */
static void mca_part_ucx_issue_batch(mca_part_ucx_request_t *req, size_t first, size_t n)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    uint64_t queued = MCA_PART_UCX_QUEUED(req->epoch), claimed = 0, copied = 0, am = 0, expected;
    int64_t by_am = 0;
    mca_part_ucx_flag_batch_t local, *b;
    ucp_request_param_t param;
    ucs_status_ptr_t op;
    int w, nw = m->num_workers;
    size_t i, p;

    for (i = 0; i < n; ++i) {
        p = first + i;
        expected = queued;
        /* A plain read first: progress walks every partition of a request,
         * and an atomic per partition showed up from a thousand on. */
        if (sreq->part_state[p] != queued ||
            !opal_atomic_compare_exchange_strong_64((opal_atomic_int64_t *) &sreq->part_state[p],
                                                    (int64_t *) &expected,
                                                    MCA_PART_UCX_ISSUED(req->epoch))) {
            continue;
        }
        if (sreq->super.am) {
            ++by_am;
            if (NULL != req->dev && mca_part_ucx_dev_copied(req, p)) {
                copied |= UINT64_C(1) << i;
            } else {
                am |= UINT64_C(1) << i;
            }
            continue;
        }
        claimed |= UINT64_C(1) << i;
        sreq->flag_values[p] = req->epoch;
    }
    if (0 != by_am) {
        opal_atomic_add_fetch_64(&sreq->queued, -by_am);
    }
    if (0 != (claimed | am | copied) && 0 != req->part_bytes) {
        mca_part_ucx_count(MCA_PART_UCX_PVAR_BYTES_SENT, (int64_t) req->part_bytes *
                           __builtin_popcountll(claimed | am | copied));
    }
    if (0 != claimed) {
        mca_part_ucx_count(MCA_PART_UCX_PVAR_PARTS_PUT, __builtin_popcountll(claimed));
        mca_part_ucx_put_data(req, first, claimed);
    }
    if (0 != copied) {
        mca_part_ucx_count(MCA_PART_UCX_PVAR_PARTS_KERNEL_COPY, __builtin_popcountll(copied));
    }
    if (0 != am) {
        mca_part_ucx_send_am_bits(req, first, am);
    }
    if (0 != copied && mca_part_ucx_dev_sets_arrivals(req)) {
        /* the kernels set the receiver's flags with the data */
        opal_atomic_add_fetch_64(&sreq->ops_done, 2 * __builtin_popcountll(copied));
    } else if (0 != copied) {
        mca_part_ucx_send_arrivals(req, first, copied);
    }
    if (0 == claimed) {
        return;
    }
    opal_atomic_add_fetch_64(&sreq->queued, -(int64_t) __builtin_popcountll(claimed));

    for (w = 0; w < nw; ++w) {
        local.req = req;
        local.first = first;
        local.worker = w;
        local.parts = 0;
        for (i = 0; i < n; ++i) {
            if ((claimed & (UINT64_C(1) << i)) && (int) ((first + i) % nw) == w) {
                local.parts |= UINT64_C(1) << i;
            }
        }
        if (0 == local.parts) {
            continue;
        }
        b = mca_part_ucx_op_ctx_get();
        if (NULL == b) {
            mca_part_ucx_request_fail(req, MPI_ERR_NO_MEM);
            opal_atomic_add_fetch_64(&sreq->ops_done, __builtin_popcountll(local.parts));
            continue;
        }
        *b = local;
        param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
        param.cb.send = mca_part_ucx_flush_cb;
        param.user_data = b;
        op = ucp_ep_flush_nbx(sreq->super.remote->eps[w], &param);
        if (UCS_PTR_IS_PTR(op)) {
            continue; /* the callback puts the flags */
        }
        if (UCS_OK == UCS_PTR_STATUS(op)) {
            mca_part_ucx_put_flags(b);
        } else {
            mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
            opal_atomic_add_fetch_64(&sreq->ops_done, __builtin_popcountll(local.parts));
        }
        mca_part_ucx_op_ctx_put(b);
    }
}

/* Kernel copy over active messages: partition p, which a kernel stored
 * into the receiver, goes from not ready straight to issued (no queue, no
 * second compare-and-swap in mca_part_ucx_issue); false where another
 * caller had it. */
bool mca_part_ucx_claim_copied(mca_part_ucx_request_t *req, size_t p)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    uint64_t expected = sreq->part_state[p];

    return expected < MCA_PART_UCX_QUEUED(req->epoch) &&
           opal_atomic_compare_exchange_strong_64((opal_atomic_int64_t *) &sreq->part_state[p],
                                                  (int64_t *) &expected,
                                                  MCA_PART_UCX_ISSUED(req->epoch));
}

/* The arrivals of claimed copied partitions first + i (bit i of `bits`):
 * one message for up to 64 of them. */
void mca_part_ucx_send_copied(mca_part_ucx_request_t *req, size_t first, uint64_t bits)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    if (0 == bits) {
        return;
    }
    mca_part_ucx_count(MCA_PART_UCX_PVAR_PARTS_KERNEL_COPY, __builtin_popcountll(bits));
    mca_part_ucx_count(MCA_PART_UCX_PVAR_BYTES_SENT,
                       (int64_t) req->part_bytes * __builtin_popcountll(bits));
    if (mca_part_ucx_dev_sets_arrivals(req)) {
        opal_atomic_add_fetch_64(&sreq->ops_done, 2 * __builtin_popcountll(bits));
    } else {
        mca_part_ucx_send_arrivals(req, first, bits);
    }
}

static void mca_part_ucx_issue(mca_part_ucx_request_t *req, size_t first, size_t last)
{
    size_t n;

    for (; first <= last; first += n) {
        n = last - first + 1;
        n = (n > 64) ? 64 : n;
        mca_part_ucx_issue_batch(req, first, n);
    }
}

/* Non-contiguous data is packed partition by partition at MPI_Pready, each
 * with its own convertor so that threads may pack concurrently. */
static void mca_part_ucx_pack(mca_part_ucx_request_t *req, size_t p)
{
    mca_part_ucx_p2p_t *p2p = mca_part_ucx_p2p(req);
    opal_convertor_t conv;
    struct iovec iov;
    uint32_t iov_count = 1;
    size_t max = req->part_bytes;

    OBJ_CONSTRUCT(&conv, opal_convertor_t);
    opal_convertor_copy_and_prepare_for_send(ompi_proc_local()->super.proc_convertor,
                                             &req->datatype->super, req->count,
                                             (char *) req->buf + p * req->count * req->extent,
                                             0, &conv);
    iov.iov_base = p2p->pack_buf + p * req->part_bytes;
    iov.iov_len = req->part_bytes;
    opal_convertor_pack(&conv, &iov, &iov_count, &max);
    OBJ_DESTRUCT(&conv);
}

/* Partition p from not ready to queued, by this caller only; the caller
 * counts it into req->queued (once for a whole range: an atomic per
 * partition showed up at a thousand partitions an epoch). */
bool mca_part_ucx_claim_ready(mca_part_ucx_request_t *req, size_t p)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    uint64_t queued = MCA_PART_UCX_QUEUED(req->epoch), old = sreq->part_state[p];

    if (old >= queued) {
        return false;
    }
    if (NULL != sreq->super.pack_buf) {
        mca_part_ucx_pack(req, p);
    }
    /* false: made ready concurrently by another thread */
    return opal_atomic_compare_exchange_strong_64((opal_atomic_int64_t *) &sreq->part_state[p],
                                                  (int64_t *) &old, queued);
}

static int mca_part_ucx_send_pready(mca_part_ucx_request_t *req, size_t min_part,
                                    size_t max_part)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    size_t p;

    if (NULL != req->dev && mca_part_ucx_dev_group(req) > 1) {
        /* kernels complete whole groups: a host-readied partition of one
         * would leave its group waiting for calls that never come */
        static opal_atomic_int32_t told = 0;
        mca_part_ucx_show_help(&told, "host pready grouped", (int) mca_part_ucx_dev_group(req),
                               (unsigned long) (mca_part_ucx_dev_group(req) * req->part_bytes));
        return MPI_ERR_REQUEST;
    }
    for (p = min_part; p <= max_part && mca_part_ucx_claim_ready(req, p); ++p) {
    }
    opal_atomic_add_fetch_64(&sreq->queued, (int64_t) (p - min_part));
    if (p <= max_part) {
        return MPI_ERR_ARG; /* already ready in this epoch */
    }
    if (req->proc_null) {
        return OMPI_SUCCESS;
    }
    /* Progress issues what stays queued once the receiver is ready. */
    if (mca_part_ucx_receiver_ready(sreq)) {
        mca_part_ucx_issue(req, min_part, max_part);
    }
    return OMPI_SUCCESS;
}

static int mca_part_ucx_send_start(mca_part_ucx_request_t *req)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    sreq->ops_done = 0;
    return OMPI_SUCCESS;
}

/* Ready-to-receive words of freed sends whose receive may still put into
 * them (held), the sends whose receive said it puts no more (released),
 * both by the send's cookie, and held words so released (freeable). A
 * word goes back to the pool once both its send is freed and its receive
 * said so: a put that came later (a receive started more often than its
 * send, which is erroneous) would otherwise land in the word of the
 * request the pool gives it next, whose epochs would then run ahead of
 * their receiver and overwrite data it has not read. The lists have a lock
 * of their own, which the message's AM callback takes (it must never wait
 * for the module lock); the pool's calls need the module lock, so
 * freeable words go back from the sends' init and free. */
typedef struct {
    uint64_t cookie;
    mca_part_ucx_block_t block;
} mca_part_ucx_rtr_held_t;

typedef struct {
    opal_atomic_lock_t lock;
    mca_part_ucx_rtr_held_t *held, *freeable;
    size_t held_n, held_cap, freeable_n, freeable_cap;
    uint64_t *released;
    size_t released_n, released_cap;
} mca_part_ucx_rtr_words_t;

static mca_part_ucx_rtr_words_t mca_part_ucx_rtr_words = {.lock = OPAL_ATOMIC_LOCK_INIT};

/* Whether cookie was in the list, from which it is then removed. */
static bool mca_part_ucx_take_cookie(uint64_t *list, size_t *n, uint64_t cookie)
{
    for (size_t i = 0; i < *n; ++i) {
        if (list[i] == cookie) {
            list[i] = list[--*n];
            return true;
        }
    }
    return false;
}

/* Held words that their receive released, back to the pool (module lock
 * held). */
static void mca_part_ucx_send_rtr_drain(void)
{
    mca_part_ucx_rtr_words_t *w = &mca_part_ucx_rtr_words;

    opal_atomic_lock(&w->lock);
    while (w->freeable_n > 0) {
        mca_part_ucx_block_free(&w->freeable[--w->freeable_n].block);
    }
    opal_atomic_unlock(&w->lock);
}

/* A freed send's word (module lock held): back to the pool where its
 * receive said it puts no more (the cookie then leaves the released list),
 * else held until it says so. */
static void mca_part_ucx_send_rtr_hold(uint64_t cookie, mca_part_ucx_block_t *block)
{
    mca_part_ucx_rtr_words_t *w = &mca_part_ucx_rtr_words;
    bool released;

    opal_atomic_lock(&w->lock);
    released = mca_part_ucx_take_cookie(w->released, &w->released_n, cookie);
    if (!released &&
        mca_part_ucx_grow((void **) &w->held, w->held_n, &w->held_cap, sizeof(*w->held))) {
        w->held[w->held_n].cookie = cookie;
        w->held[w->held_n++].block = *block;
        block->addr = NULL;
    }
    opal_atomic_unlock(&w->lock);
    if (released) {
        mca_part_ucx_block_free(block);
    } else if (NULL != block->addr) {
        mca_part_ucx_block_retire(block); /* no room to hold it: never given back */
    }
}

/* The receive of the send (id, cookie) was freed and puts no more into
 * its word (AM callback). */
static void mca_part_ucx_send_rtr_released(int32_t id, uint64_t cookie)
{
    mca_part_ucx_rtr_words_t *w = &mca_part_ucx_rtr_words;
    mca_part_ucx_request_t *req;
    size_t i;

    opal_atomic_lock(&w->lock);
    for (i = 0; i < w->held_n && w->held[i].cookie != cookie; ++i) {
    }
    if (i < w->held_n) {
        if (mca_part_ucx_grow((void **) &w->freeable, w->freeable_n, &w->freeable_cap,
                              sizeof(*w->freeable))) {
            w->freeable[w->freeable_n++] = w->held[i];
            w->held[i] = w->held[--w->held_n];
        }
    } else if (mca_part_ucx_grow((void **) &w->released, w->released_n, &w->released_cap,
                                 sizeof(*w->released))) {
        w->released[w->released_n++] = cookie; /* the send is live */
    }
    opal_atomic_unlock(&w->lock);
    /* a live send's later epochs would wait for it forever */
    if (NULL != (req = mca_part_ucx_request_get(id, cookie))) {
        if (MCA_PART_UCX_SEND == req->kind) {
            mca_part_ucx_sendreq(req)->receiver_gone = true;
        }
        mca_part_ucx_request_put(req);
    }
}

void mca_part_ucx_send_dump_words(void)
{
    const volatile mca_part_ucx_rtr_words_t *w = &mca_part_ucx_rtr_words;

    mca_part_ucx_dump_line("ready-to-receive words of freed sends: %zu held, %zu freeable; "
                           "%zu live sends whose receive was freed",
                           w->held_n, w->freeable_n, w->released_n);
}

void mca_part_ucx_send_fini(void)
{
    /* the words go with their chunks */
    mca_part_ucx_rtr_words_t *w = &mca_part_ucx_rtr_words;

    free(w->held);
    free(w->freeable);
    free(w->released);
    w->held = w->freeable = NULL;
    w->released = NULL;
    w->held_n = w->held_cap = w->freeable_n = w->freeable_cap = 0;
    w->released_n = w->released_cap = 0;
}

void mca_part_ucx_send_rtr_arrived(const mca_part_ucx_rtr_msg_t *msg)
{
    mca_part_ucx_request_t *req;
    mca_part_ucx_sendreq_t *sreq;
    volatile uint64_t *word;

    if (MCA_PART_UCX_RTR_RELEASED == msg->epoch) {
        mca_part_ucx_send_rtr_released(msg->sreq_id, msg->sreq_cookie);
        return;
    }
    /* held until written: another thread may be freeing the request */
    req = mca_part_ucx_request_get(msg->sreq_id, msg->sreq_cookie);
    sreq = mca_part_ucx_sendreq(req);

    if (NULL == req || MCA_PART_UCX_SEND != req->kind || NULL == sreq->rtr_block.addr) {
        /* One epoch ahead, a sender may complete and free its request
         * before the receiver's last ready-to-receive comes. */
        MCA_PART_UCX_VERBOSE(5, "ready-to-receive for no live send dropped");
        if (NULL != req) {
            mca_part_ucx_request_put(req);
        }
        return;
    }
    word = sreq->rtr_block.addr;
    if (msg->epoch > *word) { /* epochs only grow: a late message changes nothing */
        *word = msg->epoch;
    }
    mca_part_ucx_request_put(req);
}

static void mca_part_ucx_send_setup_done(mca_part_ucx_request_t *req)
{
    opal_atomic_wmb();
    req->setup = MCA_PART_UCX_SETUP_DONE;
    MCA_PART_UCX_VERBOSE(10, "send to rank %d tag %d: receiver buffer known", req->peer, req->tag);
}

/* The receiver's answer to the setup record (from progress). */
void mca_part_ucx_send_answer(const mca_part_ucx_ack_msg_t *ack, size_t len)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_sendreq_t *sreq;
    mca_part_ucx_p2p_t *p2p;
    mca_part_ucx_request_t *req;
    ucs_status_t status;
    int i;

    if (len < sizeof(*ack) || ack->buf_rkey_len > MCA_PART_UCX_MAX_RKEY ||
        ack->flags_rkey_len > MCA_PART_UCX_MAX_RKEY ||
        ack->words_rkey_len > MCA_PART_UCX_MAX_RKEY ||
        len < sizeof(*ack) + ack->buf_rkey_len + ack->flags_rkey_len + ack->words_rkey_len) {
        MCA_PART_UCX_ERROR("malformed setup answer dropped");
        return;
    }
    req = mca_part_ucx_request_lookup(ack->sreq_id, ack->sreq_cookie);
    if (NULL == req || MCA_PART_UCX_SEND != req->kind ||
        MCA_PART_UCX_SETUP_PENDING != req->setup) {
        /* Legal: the send request was freed before its setup completed. */
        MCA_PART_UCX_VERBOSE(5, "setup answer for unknown request %d dropped", ack->sreq_id);
        return;
    }
    sreq = mca_part_ucx_sendreq(req);
    p2p = &sreq->super;
    if (MPI_SUCCESS != ack->error) {
        mca_part_ucx_request_fail(req, ack->error);
        return;
    }
    /* The receiver checked the sizes; check again: a put must never leave
     * the buffer the receiver registered. */
    if (ack->total_bytes != req->total_bytes || (0 == ack->parts && 0 != ack->total_bytes)) {
        mca_part_ucx_request_fail(req, MPI_ERR_TRUNCATE);
        return;
    }

    /* A strided receiver matched our partitions one to one (it packs
     * otherwise); never put past a partition of its buffer. */
    if (0 != ack->buf_stride && (ack->parts != req->parts || ack->buf_stride < req->part_bytes)) {
        mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
        return;
    }
    p2p->remote_parts = ack->parts;
    sreq->remote_stride = ack->buf_stride;
    sreq->remote_buf = ack->buf_addr;
    sreq->remote_flags = ack->flags_addr;
    sreq->receiver_same_gpu = 0 != (ack->flags & MCA_PART_UCX_ACK_SAME_GPU);
    sreq->receiver_rtr_am = 0 != (ack->flags & MCA_PART_UCX_ACK_RTR_AM);
    if (ack->am) {
        /* The receiver asked for active messages: no keys needed. */
        p2p->am = true;
        p2p->ahead = 0 != (ack->am & MCA_PART_UCX_ACK_AHEAD);
        for (i = 0; i < (int) req->parts; ++i) {
            sreq->am_hdrs[i].rreq_id = ack->rreq_id;
            sreq->am_hdrs[i].rreq_cookie = ack->rreq_cookie;
            sreq->am_hdrs[i].part = (uint64_t) i;
        }
        /* A GPU receive buffer offered for kernel copy (MPIX_Prequest). */
        if (ack->buf_rkey_len > 0 &&
            UCS_OK != ucp_ep_rkey_unpack(p2p->remote->eps[0], ack->rkeys, &p2p->buf_rkeys[0])) {
            p2p->buf_rkeys[0] = NULL;
        }
        /* GPU data goes by rendezvous where cuda_ipc maps the receiver's
         * buffer here (zero-copy; eager would stage it through host memory
         * with a synchronous copy on both sides), and as UCX chooses
         * elsewhere: forced rendezvous over a network pipelines small
         * partitions through host fragments, slower than eager. */
        if (NULL != p2p->buf_rkeys[0] && mca_part_ucx_data_on_device(&sreq->super)) {
            void *mapped;
            sreq->rndv = (UCS_OK == ucp_rkey_ptr(p2p->buf_rkeys[0], sreq->remote_buf, &mapped));
            if (sreq->rndv) {
                mca_part_ucx_send_hcopy_setup(req, mapped);
            }
        }
        /* ... and its flags, which our kernels may then set themselves. */
        if (sreq->rndv && ack->flags_rkey_len > 0 &&
            OMPI_SUCCESS != mca_part_ucx_peer_rkey(p2p->remote, 0, ack->rkeys + ack->buf_rkey_len,
                                                   ack->flags_rkey_len, &p2p->flags_rkeys[0])) {
            p2p->flags_rkeys[0] = NULL;
        }
        sreq->remote_flags_chunk = ack->flags_chunk_addr;
        sreq->remote_flags_chunk_size = ack->flags_chunk_size;
        /* ... and its stream words (stream-ordered epochs, kernel copy) */
        if (sreq->rndv && ack->words_rkey_len > 0 && 0 != ack->words_addr &&
            UCS_OK == ucp_ep_rkey_unpack(p2p->remote->eps[0],
                                         ack->rkeys + ack->buf_rkey_len + ack->flags_rkey_len,
                                         &sreq->words_rkey)) {
            sreq->remote_words = ack->words_addr;
        }
        mca_part_ucx_send_setup_done(req);
        return;
    }
    for (i = 0; i < m->num_workers; ++i) {
        status = ucp_ep_rkey_unpack(p2p->remote->eps[i], ack->rkeys, &p2p->buf_rkeys[i]);
        if (UCS_OK == status &&
            OMPI_SUCCESS != mca_part_ucx_peer_rkey(p2p->remote, i, ack->rkeys + ack->buf_rkey_len,
                                                   ack->flags_rkey_len, &p2p->flags_rkeys[i])) {
            status = UCS_ERR_INVALID_PARAM;
        }
        if (UCS_OK != status) {
            MCA_PART_UCX_ERROR("unpacking the receiver's keys failed: %s",
                               ucs_status_string(status));
            mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
            return;
        }
    }
    mca_part_ucx_send_setup_done(req);
}

static bool mca_part_ucx_send_progress(mca_part_ucx_request_t *req)
{
    static opal_atomic_int32_t told = 0;
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);

    if (MCA_PART_UCX_SETUP_FAILED == req->setup) {
        return true;
    }
    /* An epoch started after its receive was freed (erroneous: more starts
     * than the receive's) would wait for a ready-to-receive that never
     * comes. Its receive flushed every one it sent before saying so, so
     * one not in now never will be. Device sends keep waiting: their
     * kernels may already wait for it. */
    if (sreq->receiver_gone && NULL == req->dev && !mca_part_ucx_receiver_ready(sreq)) {
        mca_part_ucx_show_help(&told, "receive freed", req->peer, req->tag,
                               (unsigned long long) req->epoch);
        mca_part_ucx_request_fail(req, MPI_ERR_REQUEST);
        return true;
    }
    if (NULL != req->dev) {
        req->dev_ops->progress(req); /* partitions kernels marked ready */
    }
    if (NULL != sreq->hcopy_dst) {
        mca_part_ucx_hcopy_progress(req);
    }
    if (sreq->queued > 0 && mca_part_ucx_receiver_ready(sreq)) {
        mca_part_ucx_issue(req, 0, req->parts - 1);
    }
    if (NULL != req->dev && mca_part_ucx_dev_failed(req)) {
        return mca_part_ucx_dev_send_drained(req); /* partitions may never come */
    }
    /* An epoch with partitions waits for the receiver's ready-to-receive
     * before its puts; an empty one (zero partitions) moves nothing, but
     * completes only once that ready-to-receive is in all the same, so
     * that no put of a correct receiver is under way once the request is
     * freed (its word is held until the receive is freed even so:
     * mca_part_ucx_send_rtr_hold). */
    return sreq->ops_done == MCA_PART_UCX_SEND_OPS(req) &&
           (0 != req->parts || mca_part_ucx_receiver_ready(sreq));
}

/* Info keys of device sends: how kernels' partitions move. */
static int mca_part_ucx_send_dev_info(mca_part_ucx_sendreq_t *sreq, ompi_info_t *info)
{
    int rc;

    sreq->device_copy = mca_part_ucx_module.params.device_copy;
    sreq->device_group_bytes = mca_part_ucx_module.params.device_group_bytes;
    rc = mca_part_ucx_info_enum(info, "mpix_device_copy", MCA_PART_UCX_ENUM_DEVICE_COPY,
                                &sreq->device_copy);
    if (MPI_SUCCESS == rc) {
        rc = mca_part_ucx_info_int(info, "mpix_device_group_bytes", 0, &sreq->device_group_bytes);
    }
    if (MPI_SUCCESS == rc) {
        rc = mca_part_ucx_info_bool(info, "mpix_stream_kernels", &sreq->super.super.stream_only);
    }
    return rc;
}

/* MPIX_Pbuf_prepare: once the receiver is ready for this epoch, kernels
 * may store into its buffer. */
static int mca_part_ucx_send_prepare(mca_part_ucx_request_t *req)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);

    while (!mca_part_ucx_receiver_ready(sreq) && MCA_PART_UCX_SETUP_FAILED != req->setup) {
        opal_progress();
    }
    if (MCA_PART_UCX_SETUP_FAILED == req->setup) {
        return req->error;
    }
    if (NULL != req->dev) {
        req->dev_ops->rtr(req);
    }
    return MPI_SUCCESS;
}

static void mca_part_ucx_send_release(mca_part_ucx_request_t *req);

/* Partitions queued and issued this epoch, the receiver's ready word. */
static void mca_part_ucx_send_dump(const mca_part_ucx_request_t *req)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    size_t p, queued = 0, issued = 0;

    for (p = 0; NULL != sreq->part_state && p < req->parts; ++p) {
        queued += (sreq->part_state[p] == MCA_PART_UCX_QUEUED(req->epoch));
        issued += (sreq->part_state[p] == MCA_PART_UCX_ISSUED(req->epoch));
    }
    mca_part_ucx_dump_line("  send: %zu queued %zu issued, queued count %" PRId64
                           " puts done %" PRId64 ", rtr word %" PRIu64 " peer rtr %" PRIu64,
                           queued, issued, (int64_t) sreq->queued, (int64_t) sreq->ops_done,
            (NULL == sreq->rtr_block.addr) ? 0 : *(volatile uint64_t *) sreq->rtr_block.addr,
            (NULL == sreq->peer_rtr) ? 0 : *sreq->peer_rtr);
}

static const mca_part_ucx_request_ops_t mca_part_ucx_send_ops = {
    .start = mca_part_ucx_send_start,
    .progress = mca_part_ucx_send_progress,
    .release = mca_part_ucx_send_release,
    .pready = mca_part_ucx_send_pready,
    .prepare = mca_part_ucx_send_prepare,
    .setup_pending = mca_part_ucx_p2p_setup_pending,
    .dump = mca_part_ucx_send_dump,
};

/* Whether UCX reaches the receiver's GPU memory over cuda_ipc (NVLink, or
 * the same GPU): only then may this side's kernels store into it, and the
 * receiver prepares the words whose epochs they complete (the receiver
 * cannot tell which transports reach it from here). */
static bool mca_part_ucx_send_ipc(const mca_part_ucx_sendreq_t *sreq)
{
    ucp_transport_entry_t entries[32];
    ucp_ep_attr_t attr;
    unsigned i;

    memset(&attr, 0, sizeof(attr));
    attr.field_mask = UCP_EP_ATTR_FIELD_TRANSPORTS;
    attr.transports.entries = entries;
    attr.transports.num_entries = sizeof(entries) / sizeof(entries[0]);
    attr.transports.entry_size = sizeof(entries[0]);
    if (NULL == sreq->super.remote ||
        UCS_OK != ucp_ep_query(sreq->super.remote->eps[0], &attr)) {
        return false;
    }
    for (i = 0; i < attr.transports.num_entries; ++i) {
        if (NULL != entries[i].transport_name &&
            0 == strcmp(entries[i].transport_name, "cuda_ipc")) {
            return true;
        }
    }
    MCA_PART_UCX_VERBOSE(2, "send to rank %d tag %d: no cuda_ipc lane to the receiver (%u "
                         "transports): its kernels will not store into the receiver",
                         sreq->super.super.peer, sreq->super.super.tag,
                         attr.transports.num_entries);
    return false;
}

int mca_part_ucx_psend_init(const void *buf, size_t parts, size_t count,
                            ompi_datatype_t *datatype, int dst, int tag,
                            ompi_communicator_t *comm, ompi_info_t *info,
                            ompi_request_t **request)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_setup_msg_t *msg;
    mca_part_ucx_sendreq_t *sreq;
    mca_part_ucx_request_t *req;
    const void *rkey;
    size_t rkey_len;
    ompi_proc_t *proc;
    int rc;

    rc = mca_part_ucx_check_args(buf, parts, count, datatype, dst, tag, comm);
    if (MPI_SUCCESS != rc) {
        return rc;
    }

    sreq = OBJ_NEW(mca_part_ucx_sendreq_t);
    if (NULL == sreq) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    req = &sreq->super.super;
    rc = mca_part_ucx_request_setup(req, MCA_PART_UCX_SEND, &mca_part_ucx_send_ops, buf, parts,
                                    count, datatype, dst, tag, comm);
    if (OMPI_SUCCESS == rc) {
        rc = mca_part_ucx_request_dev_info(req, info);
    }
    if (OMPI_SUCCESS == rc) {
        rc = mca_part_ucx_send_dev_info(sreq, info);
    }
    /* one entry at least: zero partitions are legal */
    sreq->part_state = calloc(parts ? parts : 1, sizeof(uint64_t));
    sreq->flag_values = calloc(parts ? parts : 1, sizeof(uint64_t));
    sreq->am_hdrs = calloc(parts ? parts : 1, sizeof(*sreq->am_hdrs));
    if (OMPI_SUCCESS != rc || NULL == sreq->part_state || NULL == sreq->flag_values ||
        NULL == sreq->am_hdrs) {
        goto err;
    }
    if (MPI_PROC_NULL == dst) {
        req->proc_null = true;
        req->setup = MCA_PART_UCX_SETUP_DONE;
        *request = &req->super;
        return OMPI_SUCCESS;
    }

    if (req->device && mca_part_ucx_module.params.gpu_host_copy) {
        mca_part_ucx_send_hcopy_warm();
    }
    proc = ompi_comm_peer_lookup(comm, dst);
    sreq->super.remote = mca_part_ucx_peer_get(proc);
    if (NULL == sreq->super.remote) {
        rc = MPI_ERR_OTHER;
        goto err;
    }

    OPAL_THREAD_LOCK(&m->lock);
    mca_part_ucx_send_rtr_drain(); /* released words first */
    rc = mca_part_ucx_block_alloc(sizeof(uint64_t), &sreq->rtr_block);
    OPAL_THREAD_UNLOCK(&m->lock);
    if (OMPI_SUCCESS != rc) {
        goto err;
    }

    rkey = mca_part_ucx_block_rkey(&sreq->rtr_block, &rkey_len);
    if (rkey_len > MCA_PART_UCX_MAX_RKEY) {
        /* the receiver could not take it: fail here, never on the way */
        MCA_PART_UCX_ERROR("ready-to-receive key of %zu bytes, more than %d", rkey_len,
                           MCA_PART_UCX_MAX_RKEY);
        rc = MPI_ERR_OTHER;
        goto err;
    }
    msg = calloc(1, sizeof(*msg) + rkey_len);
    if (NULL == msg) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
        goto err;
    }
    msg->cid = ompi_comm_get_extended_cid(comm);
    msg->sender = ompi_proc_local()->super.proc_name;
    msg->src = ompi_comm_rank(comm);
    msg->tag = tag;
    msg->sreq_id = req->id;
    msg->sreq_cookie = req->cookie;
    msg->parts = parts;
    msg->total_bytes = req->total_bytes;
    msg->src_device = !req->device ? 0u
                      : (MCA_PART_UCX_DEVICE_COPY_PROGRESS == sreq->device_copy ||
                         !mca_part_ucx_send_ipc(sreq))
                          ? MCA_PART_UCX_SRC_DEVICE
                          : MCA_PART_UCX_SRC_DEVICE | MCA_PART_UCX_SRC_KERNEL_COPY;
    if (req->stream_only) {
        msg->src_device |= MCA_PART_UCX_SRC_STREAM_ONLY;
        if (req->device && MCA_PART_UCX_DEVICE_COPY_PROGRESS == sreq->device_copy &&
            mca_part_ucx_module.params.stream_copy_engine && mca_part_ucx_send_ipc(sreq)) {
            msg->src_device |= MCA_PART_UCX_SRC_STREAM_COPY;
        }
    }
    msg->src_gpu = req->device ? mca_part_ucx_gpu_id() : 0;
    msg->rtr_addr = (uint64_t) (uintptr_t) sreq->rtr_block.addr;
    msg->rtr_rkey_len = (uint32_t) rkey_len;
    memcpy(msg->rtr_rkey, rkey, rkey_len);
    sreq->super.ctrl_msg = msg;

    /* The setup record goes out now; the receiver answers through progress,
     * so this call stays local. */
    rc = mca_part_ucx_ctrl_send_setup(sreq->super.remote, comm, msg, sizeof(*msg) + rkey_len,
                                      &sreq->super.ctrl_op);
    if (OMPI_SUCCESS != rc) {
        goto err;
    }
    *request = &req->super;
    return OMPI_SUCCESS;

err:
    req->super.req_state = OMPI_REQUEST_INACTIVE;
    {
        ompi_request_t *r = &req->super;
        (void) req->super.req_free(&r);
    }
    return (MPI_ERR_OTHER == rc || rc < 0) ? MPI_ERR_OTHER : rc;
}

static void mca_part_ucx_send_release(mca_part_ucx_request_t *req)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    ucp_request_param_t param = {0};
    int w;

    /* A failed epoch completes without waiting for the puts and messages
     * it had issued, whose callbacks name this request: a flush of every
     * endpoint completes only after all of them (their callbacks run
     * first), so none can outlive the request. */
    for (w = 0; MCA_PART_UCX_SETUP_FAILED == req->setup && NULL != sreq->super.remote &&
                w < m->num_workers; ++w) {
        (void) mca_part_ucx_wait(m->workers[w],
                                 ucp_ep_flush_nbx(sreq->super.remote->eps[w], &param));
    }
    OPAL_THREAD_LOCK(&m->lock);
    /* The receiver was given the word's address in the setup record and
     * puts each epoch's ready-to-receive into it, until its receive is
     * freed and says so: the word waits for that (a receive never matched
     * or never freed keeps it). A receiver whose ready-to-receive are
     * messages puts nothing, but says so all the same, and its word waits
     * too: every freed receive's message then finds its send's cookie
     * once, held or on the released list. */
    if (NULL != sreq->rtr_block.addr) {
        mca_part_ucx_send_rtr_hold(req->cookie, &sreq->rtr_block);
    }
    mca_part_ucx_send_rtr_drain();
    if (NULL != sreq->words_rkey) {
        ucp_rkey_destroy(sreq->words_rkey);
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    if (NULL != sreq->hcopy_dst) {
        /* a failed epoch may leave copies behind: they must not outlive the buffer */
        for (; sreq->hcopy_head != sreq->hcopy_tail; ++sreq->hcopy_head) {
            const struct mca_part_ucx_hcopy_run_t *r =
                &sreq->hcopy_runs[sreq->hcopy_head % req->parts];
            while (0 == mca_part_ucx_hcopy_done(sreq, r)) {
            }
            if (NULL != r->event) {
                mca_part_ucx_device_event_put(r->event);
            }
        }
        mca_part_ucx_device_stream_put(sreq->hcopy_stream);
        free(sreq->hcopy_runs);
        OPAL_THREAD_LOCK(&m->lock);
        mca_part_ucx_block_free(&sreq->hcopy_word);
        OPAL_THREAD_UNLOCK(&m->lock);
    }
    free((void *) sreq->part_state);
    free(sreq->flag_values);
    free(sreq->am_hdrs);
    mca_part_ucx_p2p_release(&sreq->super);
}
