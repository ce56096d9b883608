/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Device requests (MPIX_Prequest_create/free): what CUDA kernels need to
 * mark partitions ready (MPIX_Pready) or see them arrive (MPIX_Parrived),
 * in GPU memory. This file uses opal's accelerator framework only, so
 * libmpi never links the CUDA runtime; the device code is inline in the
 * installed mpix_part_device.h.
 *
 * Progression engine: a kernel's MPIX_Pready writes the epoch into the
 * partition's word of a host array mapped for the GPU; the progress
 * function finds it there and readies the partition as MPI_Pready would.
 * Receive flags are the request's arrival flags themselves, mapped for
 * the GPU, so MPIX_Parrived, MPI_Parrived and MPI_Wait read the same words.
 */

#include "ompi_config.h"

#include "opal/mca/accelerator/accelerator.h"
#include "opal/mca/timer/base/base.h"
#include "opal/runtime/opal_progress.h"
#include "opal/class/opal_hash_table.h"
#include "opal/util/info.h"
#include "opal/util/show_help.h"
#include "ompi/info/info.h"
#include "ompi/runtime/params.h"

#include <string.h>

#include "ompi/mpiext/part/c/mpiext_part_c.h"
#include "mpix_part_device.h"
#include "part_ucx.h"
#include "part_ucx_request.h"
#include "part_ucx_devreq.h"
#include "part_ucx_device_plugin.h"
#include "part_ucx_mpix.h"

_Static_assert(MCA_PART_UCX_DEV_STREAM_KERNELS == MPIX_PREQUEST_STREAM_KERNELS,
              "the host and the kernels agree on the word of kernel-counted epochs");
_Static_assert(MCA_PART_UCX_GCOLL_ERR_UNREADY == MPIX_PREQUEST_ERR_UNREADY,
              "the plugin's gate and the device header agree on the error bit");

struct mca_part_ucx_dev_t {
    struct mpix_prequest_s host;    /* what the device copy holds */
    struct mpix_prequest_s *dptr;   /* the device copy */
    MPIX_Prequest handle;           /* the user's: dptr and the tag bits */
    size_t dbytes;                  /* its allocation, counters included */
    int dev_id;                     /* of dptr, from mca_part_ucx_devmem_alloc */
    mca_part_ucx_block_t ready_block; /* send: epoch per group, kernels write */
    mca_part_ucx_block_t epoch_block; /* the MCA_PART_UCX_DEV_* words */
    size_t pending;                 /* send: partitions not yet picked up this epoch */
    size_t first_unseen;            /* send: partitions below are picked up (kernels mark
                                     * mostly in block order: the walk starts here) */
    uint64_t *copied;               /* kernel copy: epoch a kernel stored partition p in */
    bool failed;                    /* a kernel reported misuse (the error word) */
    /* Progress engine within a node: what its stream needs to move an
     * epoch a stream started (mca_part_ucx_dev_stream_copy; sc.dst NULL:
     * the host runs such epochs). */
    mca_part_ucx_stream_copy_t sc;
    /* A stream-only kernel-copy send of at least
     * part_ucx_stream_copy_after_bytes: its kernels only mark (the handle's
     * MPIX_PREQUEST_TAG_ORDERED, the marks in place of the counters), and
     * each MPIX_Wait_enqueue copies the epoch after them (ca.marks NULL:
     * the kernels copy). */
    mca_part_ucx_copy_after_t ca;
};

/* The words of epoch_block: kernels read the current epoch and the
 * receiver's ready-to-receive (where its own word is not mapped); they
 * write the MPIX_PREQUEST_ERR_* bits and, with a kernel copy that completes
 * epochs itself, the last epoch whose data left the send buffer (DONE);
 * a progress-engine send whose stream moves its epochs: the last epoch
 * its kernels marked whole (MARKED, which only they read) and the last
 * its stream copied (SENT). */
#define MCA_PART_UCX_DEV_EPOCH  0
#define MCA_PART_UCX_DEV_RTR    1
#define MCA_PART_UCX_DEV_ERROR  2
#define MCA_PART_UCX_DEV_DONE   3
#define MCA_PART_UCX_DEV_MARKED 4
#define MCA_PART_UCX_DEV_SENT   5
#define MCA_PART_UCX_DEV_WORDS  6

/* Device request handles -> their requests, for MPIX_Prequest_free
 * (under the module lock). */
static opal_hash_table_t mca_part_ucx_dev_handles;
static bool mca_part_ucx_dev_handles_ready = false;

/* Default transport group bytes by mechanism (part_ucx_device_group_bytes
 * -1; the sweeps: bench/results/h100x1-mps/kgroups.txt and groups.txt,
 * bench/results/h200x1-stream/groups-s17/). Kernel copy: the completing
 * block copies its group alone, so many groups keep many blocks copying
 * at once, and the epoch ends with the last groups' copies, one block
 * each, while the rest of the GPU idles: at least 32 groups where the
 * partitions allow, and up to 256 while a group keeps at least 32 KiB
 * (each group adds a fence and a counter, which from a few thousand
 * groups cost more than the shorter tail saves), none over 128 KiB.
 * Progress engine: each group the host sees costs a copy or a message,
 * so fewer, larger ones. */
#define MCA_PART_UCX_GROUP_BYTES_KERNEL_COPY (128 << 10)
#define MCA_PART_UCX_GROUP_BYTES_KERNEL_MIN  (32 << 10)
#define MCA_PART_UCX_GROUPS_KERNEL_COPY      32
#define MCA_PART_UCX_GROUPS_KERNEL_COPY_MAX  256
#define MCA_PART_UCX_GROUP_BYTES_PROGRESS    (1 << 20)

/* Kernel copy's default group bytes for a buffer of `total` bytes (not
 * opal/util/minmax.h, whose const return types -Wextra warns about). */
static size_t mca_part_ucx_dev_kernel_copy_group_bytes(size_t total)
{
    size_t least = total / MCA_PART_UCX_GROUPS_KERNEL_COPY, bytes;

    least = (least < MCA_PART_UCX_GROUP_BYTES_KERNEL_MIN) ? least
                                                          : MCA_PART_UCX_GROUP_BYTES_KERNEL_MIN;
    bytes = total / MCA_PART_UCX_GROUPS_KERNEL_COPY_MAX;
    bytes = (bytes > least) ? bytes : least;
    return (bytes < MCA_PART_UCX_GROUP_BYTES_KERNEL_COPY) ? bytes
                                                          : MCA_PART_UCX_GROUP_BYTES_KERNEL_COPY;
}

/* Transport groups of a device send request: the largest power of two of
 * partitions that fits in the group bytes (collectives group on their
 * own, in their schedule). */
static uint32_t mca_part_ucx_dev_group_shift(const mca_part_ucx_request_t *req, bool kernel_copy)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    uint64_t queued = MCA_PART_UCX_QUEUED(req->epoch);
    size_t bytes = (size_t) sreq->device_group_bytes;
    uint32_t s = 0;
    size_t p;

    if (sreq->device_group_bytes < 0 && kernel_copy) {
        bytes = mca_part_ucx_dev_kernel_copy_group_bytes(req->total_bytes);
    } else if (sreq->device_group_bytes < 0) {
        bytes = MCA_PART_UCX_GROUP_BYTES_PROGRESS;
    }

    if (MCA_PART_UCX_SEND != req->kind || 0 == req->part_bytes) {
        return 0;
    }
    /* Partitions the host readied in this epoch before the device request
     * existed: their groups could not complete in kernels. */
    for (p = 0; OMPI_REQUEST_ACTIVE == req->super.req_state && p < req->parts; ++p) {
        if (sreq->part_state[p] >= queued) {
            MCA_PART_UCX_VERBOSE(5, "send to rank %d tag %d: partitions readied on the host "
                                 "before MPIX_Prequest_create, so no transport groups",
                                 req->peer, req->tag);
            return 0;
        }
    }
    /* a group's calls an epoch fit in the 32 bits its counter keeps them in */
    while (s < 30 && ((size_t) 2 << s) <= req->parts &&
           ((size_t) 2 << s) * req->part_bytes <= bytes &&
           ((uint64_t) req->pready_threads << (s + 1)) < ((uint64_t) 1 << 31)) {
        ++s;
    }
    return s;
}

/* The epoch a group's mark names (without MPIX_PREQUEST_MARK_HOST). */
static inline uint64_t mca_part_ucx_dev_mark_epoch(uint64_t mark)
{
    return mark & ~MPIX_PREQUEST_MARK_HOST;
}

/* Kernels take the epoch from a GPU copy that they refresh from the host
 * word only where their group completed the copy's epoch already
 * (mpix_part_device.h). A group the host readied instead (MPI_Pready,
 * without transport groups) did not complete it on the GPU, so its next
 * call would take a stale copy for the current epoch: after such an epoch
 * the host writes the copy itself (one small copy, on a non-blocking
 * stream; after epochs readied by kernels alone, MPI_Start only reads each
 * group's mark). */
static void mca_part_ucx_dev_push_epoch(mca_part_ucx_request_t *req, struct mca_part_ucx_dev_t *d)
{
    const volatile uint64_t *ready = d->ready_block.addr;
    size_t step = (size_t) 1 << d->host.group_shift, p;
    uint64_t epoch = req->epoch;

    if (0 == d->host.pready_parts || req->epoch < 2 || NULL == ready) {
        /* no MPIX_Pready here (a receive, or a bcast's non-root), or its
         * marks are in GPU memory (the GPU engine): a stale copy only costs
         * the first call of an epoch a read of the host's */
        return;
    }
    for (p = 0; p < req->parts && mca_part_ucx_dev_mark_epoch(ready[p]) >= epoch - 1; p += step) {
    }
    if (p < req->parts &&
        OPAL_SUCCESS != mca_part_ucx_device_copy_in(&d->dptr->epoch_seen, &epoch, sizeof(epoch))) {
        mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
    }
}

void mca_part_ucx_dev_stream_words(mca_part_ucx_request_t *req, mca_part_ucx_dev_words_t *w)
{
    struct mca_part_ucx_dev_t *d = req->dev;
    volatile uint64_t *words;

    memset(w, 0, sizeof(*w));
    if (NULL == d) {
        return;
    }
    words = d->epoch_block.addr;
    w->epoch = words + MCA_PART_UCX_DEV_EPOCH;
    w->epoch_dev = (volatile uint64_t *) &d->dptr->epoch_seen;
    if (MPIX_PREQUEST_KERNEL_COPY == d->host.mechanism && NULL != d->host.remote_done) {
        w->started_dev = (volatile uint64_t *) &d->dptr->stream_started;
        w->done = words + MCA_PART_UCX_DEV_DONE;
        w->done_dev = (volatile uint64_t *) &d->dptr->done_dev;
    }
    w->gpu_scope = 0 != d->host.mark_gpu_scope;
}

bool mca_part_ucx_dev_stream_copy_words(mca_part_ucx_request_t *req,
                                        mca_part_ucx_dev_copy_words_t *w)
{
    struct mca_part_ucx_dev_t *d = req->dev;

    if (MCA_PART_UCX_SEND != req->kind || NULL == d || NULL == d->sc.dst) {
        return false;
    }
    w->epoch_dev = (volatile uint64_t *) &d->dptr->epoch_seen;
    w->groups_dev = (volatile uint64_t *) &d->dptr->groups_done;
    w->sent = d->sc.done;
    return true;
}

int mca_part_ucx_dev_stream_copy(mca_part_ucx_request_t *req, void *stream, uint64_t epoch,
                                 volatile uint64_t *count)
{
    struct mca_part_ucx_dev_t *d = req->dev;
    mca_part_ucx_stream_copy_t c = d->sc;

    /* made after the setup: the request's device copy and groups */
    c.marked = (const volatile uint64_t *) &d->dptr->done_dev;
    c.epoch = (const volatile uint64_t *) &d->dptr->epoch_seen;
    c.ready = d->host.ready;
    c.groups = d->host.groups;
    c.group_shift = d->host.group_shift;
    return mca_part_ucx_device()->stream_copy(stream, &c, epoch, count);
}

static void mca_part_ucx_devreq_start(mca_part_ucx_request_t *req)
{
    struct mca_part_ucx_dev_t *d = req->dev;

    d->pending = req->parts;
    d->first_unseen = 0;
    *(volatile uint64_t *) d->epoch_block.addr = req->epoch;
    mca_part_ucx_dev_push_epoch(req, d);
}

static void mca_part_ucx_dev_rtr_words(mca_part_ucx_request_t *req, struct mca_part_ucx_dev_t *d)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    volatile uint64_t *words = d->epoch_block.addr;
    uint64_t rtr = *(volatile uint64_t *) sreq->rtr_block.addr;

    if (words[MCA_PART_UCX_DEV_RTR] != rtr) {
        words[MCA_PART_UCX_DEV_RTR] = rtr; /* kernels of this epoch may store now */
    }
}

static void mca_part_ucx_devreq_rtr(mca_part_ucx_request_t *req)
{
    mca_part_ucx_dev_rtr_words(req, req->dev);
}

static bool mca_part_ucx_devreq_marked(const mca_part_ucx_request_t *req, size_t p)
{
    size_t first = (p >> req->dev->host.group_shift) << req->dev->host.group_shift;

    return mca_part_ucx_dev_mark_epoch(
               ((const volatile uint64_t *) req->dev->ready_block.addr)[first]) >= req->epoch;
}

static bool mca_part_ucx_devreq_copied(const mca_part_ucx_request_t *req, size_t p)
{
    return NULL != req->dev->copied && req->dev->copied[p] == req->epoch;
}

static unsigned mca_part_ucx_devreq_group(const mca_part_ucx_request_t *req)
{
    return 1u << req->dev->host.group_shift;
}

static bool mca_part_ucx_devreq_sets_arrivals(const mca_part_ucx_request_t *req)
{
    return NULL != req->dev->host.remote_arrived;
}

/* Called from the send progress with the module lock held. Kernels mark
 * a transport group with one word, at its first partition: a group not
 * marked yet is skipped whole, a marked one is claimed whole. Partitions a
 * kernel copied need only their arrivals, sent for up to 64 at a time;
 * those a kernel copy left to the host (MPIX_PREQUEST_MARK_HOST: the
 * receiver's ready-to-receive was not visible to it) go as MPI_Pready's. */
static void mca_part_ucx_devreq_progress(mca_part_ucx_request_t *req)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    struct mca_part_ucx_dev_t *d = req->dev;
    const volatile uint64_t *ready = d->ready_block.addr;
    uint64_t queued = MCA_PART_UCX_QUEUED(req->epoch), bits = 0, mark;
    unsigned shift = d->host.group_shift;
    bool copied = NULL != d->copied && sreq->super.am, host;
    int64_t claimed = 0;
    size_t p, base = 0;

    if (MCA_PART_UCX_SEND != req->kind) {
        return;
    }
    if (NULL != d->copied) {
        mca_part_ucx_devreq_rtr(req);
    }
    if (0 == d->pending) {
        return;
    }
    for (p = d->first_unseen; p < req->parts; ++p) {
        if (sreq->part_state[p] >= queued) {
            d->first_unseen += (p == d->first_unseen);
            continue;
        }
        mark = ready[(p >> shift) << shift];
        if (mca_part_ucx_dev_mark_epoch(mark) < req->epoch) {
            p = (((p >> shift) + 1) << shift) - 1;
            continue;
        }
        opal_atomic_rmb(); /* the kernel's data before its mark */
        d->first_unseen += (p == d->first_unseen);
        host = 0 != (mark & MPIX_PREQUEST_MARK_HOST);
        if (NULL != d->copied && !host) {
            d->copied[p] = req->epoch; /* only the arrival is left to send */
        }
        if (copied && !host) { /* the kernel stored it after the receiver's ready */
            if (p - base >= 64) {
                mca_part_ucx_send_copied(req, base, bits);
                base = p;
                bits = 0;
            }
            if (mca_part_ucx_claim_copied(req, p)) {
                bits |= UINT64_C(1) << (p - base);
                --d->pending;
            }
        } else if (mca_part_ucx_claim_ready(req, p)) {
            --d->pending;
            ++claimed;
        }
    }
    mca_part_ucx_send_copied(req, base, bits);
    if (0 != claimed) {
        opal_atomic_add_fetch_64(&sreq->queued, claimed);
    }
}

/* A kernel reported misuse of the device request (mpix_part_device.h):
 * the first time, a help message, and the request's error becomes
 * MPI_ERR_ARG (reported at its completion, and at every later one: the
 * counters of a misused send are not to be trusted). Called from progress. */
static bool mca_part_ucx_devreq_failed(mca_part_ucx_request_t *req)
{
    struct mca_part_ucx_dev_t *d = req->dev;
    uint64_t bits;

    if (d->failed) {
        return true;
    }
    bits = ((const volatile uint64_t *) d->epoch_block.addr)[MCA_PART_UCX_DEV_ERROR];
    if (0 == bits) {
        return false;
    }
    d->failed = true;
    mca_part_ucx_show_help(NULL, "device misuse",
                   (MCA_PART_UCX_RECV == req->kind) ? "receive from"
                   : (MCA_PART_UCX_COLL == req->kind) ? "collective, this is"
                                                      : "send to", req->peer,
                   req->tag,
                   (bits & MPIX_PREQUEST_ERR_PARTITION)
                       ? "  - a partition out of range, or a handle of the wrong kind\n" : "",
                   (bits & MPIX_PREQUEST_ERR_THRESHOLD)
                       ? "  - more MPIX_Pready calls for a partition in an epoch than the "
                         "threshold\n" : "",
                   (bits & MPIX_PREQUEST_ERR_UNREADY)
                       ? "  - a partition that no MPIX_Pready made ready before the epoch's "
                         "MPIX_Wait_enqueue (info \"mpix_stream_kernels\")\n" : "",
                   (unsigned) d->host.threshold);
    if (MPI_SUCCESS == req->error) {
        req->error = MPI_ERR_ARG;
    }
    return true;
}

/* A send whose kernels misused it: it completes once everything it issued
 * has (partitions still queued wait for the receiver, which takes them),
 * and fails from then on. */
static bool mca_part_ucx_devreq_send_drained(mca_part_ucx_request_t *req)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    uint64_t issued = MCA_PART_UCX_ISSUED(req->epoch);
    int64_t ops = 0;
    size_t p;

    if (sreq->queued > 0) {
        return false;
    }
    for (p = 0; p < req->parts; ++p) {
        ops += (sreq->part_state[p] == issued) ? 2 : 0;
    }
    if (sreq->ops_done != ops) {
        return false;
    }
    mca_part_ucx_request_fail(req, MPI_ERR_ARG);
    return true;
}

/* The device request out of the handle table and off its request: from
 * here on no one else finds it (MPIX_Prequest_free of two threads, or with
 * MPI_Request_free). */
static struct mca_part_ucx_dev_t *mca_part_ucx_dev_detach(mca_part_ucx_request_t *req)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    struct mca_part_ucx_dev_t *d;

    OPAL_THREAD_LOCK(&m->lock);
    d = req->dev;
    req->dev = NULL;
    if (NULL != d && NULL != d->handle && mca_part_ucx_dev_handles_ready) {
        (void) opal_hash_table_remove_value_uint64(&mca_part_ucx_dev_handles,
                                                   (uint64_t) (uintptr_t) d->handle);
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    return d;
}

static void mca_part_ucx_dev_destroy(mca_part_ucx_request_t *req, struct mca_part_ucx_dev_t *d)
{
    mca_part_ucx_collreq_t *creq = mca_part_ucx_collreq(req);
    mca_part_ucx_module_t *m = &mca_part_ucx_module;

    if (NULL == d) {
        return;
    }
    if (MCA_PART_UCX_COLL == req->kind) {
        req->ops->dev_attach(req, NULL, NULL); /* before the error word goes */
    }
    if (NULL != d->dptr) {
        mca_part_ucx_devmem_free(d->dptr, d->dbytes, d->dev_id); /* counters included */
    }
    OPAL_THREAD_LOCK(&m->lock);
    mca_part_ucx_block_free(&d->ready_block);
    mca_part_ucx_block_free(&d->epoch_block);
    OPAL_THREAD_UNLOCK(&m->lock);
    free(d->copied);
    free(d);
    if (MCA_PART_UCX_COLL == req->kind) {
        OPAL_THREAD_LOCK(&m->lock);
        mca_part_ucx_block_free(&creq->coll_done_block);
        OPAL_THREAD_UNLOCK(&m->lock);
    }
}

static void mca_part_ucx_devreq_release(mca_part_ucx_request_t *req)
{
    mca_part_ucx_dev_destroy(req, mca_part_ucx_dev_detach(req));
}

void mca_part_ucx_dev_fini(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;

    OPAL_THREAD_LOCK(&m->lock);
    if (mca_part_ucx_dev_handles_ready) {
        OBJ_DESTRUCT(&mca_part_ucx_dev_handles);
        mca_part_ucx_dev_handles_ready = false;
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    mca_part_ucx_device_fini();
}

/* One device allocation, filled by one copy: the request, then (send)
 * its counters, one a group (sized for one group per partition): the last
 * epoch completed, no calls yet (mpix_part_device.h); with `marks`, the
 * stream-ordered marks in their place, zero (the kernels only mark). */
static int mca_part_ucx_dev_upload(struct mca_part_ucx_dev_t *d, size_t parts, uint64_t completed,
                                   bool marks)
{
    size_t head = (sizeof(d->host) + 63) & ~(size_t) 63, p;
    size_t cbytes = (MPIX_PREQUEST_RECV != d->host.kind) ? parts * sizeof(unsigned long long) : 0;
    unsigned long long *counters;
    char *image, *dmem = NULL;
    int rc;

    image = calloc(1, head + cbytes);
    if (NULL == image) {
        return OPAL_ERR_OUT_OF_RESOURCE;
    }
    d->dbytes = head + cbytes;
    rc = mca_part_ucx_devmem_alloc(d->dbytes, (void **) &dmem, &d->dev_id);
    if (OPAL_SUCCESS == rc) {
        d->dptr = (struct mpix_prequest_s *) dmem; /* released with d */
    }
    if (OPAL_SUCCESS == rc && 0 != ((uintptr_t) dmem & MPIX_PREQUEST_TAG_MASK)) {
        rc = OPAL_ERROR; /* never: device allocations are 256-byte aligned */
    }
    if (OPAL_SUCCESS == rc) {
        if (MPIX_PREQUEST_COLL == d->host.kind) {
            /* a collective's MPIX_Parrived: a stream-started epoch is in
             * the kernels' copy, which the stream writes, not in the host
             * word (mca_part_ucx_stream_plan) */
            d->host.epoch_gpu = (const volatile uint64_t *) &d->dptr->epoch_seen;
        }
        if (cbytes > 0 && marks) {
            d->host.ready = (volatile uint64_t *) (dmem + head);
        } else if (cbytes > 0) {
            d->host.counters = (unsigned long long *) (dmem + head);
            counters = (unsigned long long *) (image + head);
            for (p = 0; p < parts; ++p) {
                counters[p] = (unsigned long long) (uint32_t) completed << 32;
            }
        }
        memcpy(image, &d->host, sizeof(d->host));
        rc = opal_accelerator.mem_copy(d->dev_id, MCA_ACCELERATOR_NO_DEVICE_ID, dmem, image,
                                       head + cbytes, MCA_ACCELERATOR_TRANSFER_HTOD);
    }
    free(image);
    return rc;
}

/* The receiver's arrival flags, its ready-to-receive word past them and
 * its done word past that, mapped here (its shared memory, registered for
 * the GPU), or NULL. */
static volatile uint64_t *mca_part_ucx_dev_peer_flags(mca_part_ucx_sendreq_t *sreq)
{
    void *flags = NULL;

    if (NULL == sreq->super.flags_rkeys[0] ||
        OMPI_SUCCESS != mca_part_ucx_peer_gpu_ptr(sreq->super.remote, sreq->super.flags_rkeys[0],
                                                  sreq->remote_flags_chunk,
                                                  sreq->remote_flags_chunk_size, sreq->remote_flags,
                                                  (sreq->super.remote_parts + 2) * sizeof(uint64_t),
                                                  &flags)) {
        return NULL;
    }
    return (volatile uint64_t *) flags;
}

/* The receiver's stream words (its GPU memory: the ready-to-receive its
 * stream writes, then the done word it waits on), mapped here where it
 * offered them, or NULL. */
static volatile uint64_t *mca_part_ucx_dev_peer_words(mca_part_ucx_sendreq_t *sreq)
{
    void *words = NULL;

    if (NULL == sreq->words_rkey ||
        UCS_OK != ucp_rkey_ptr(sreq->words_rkey, sreq->remote_words, &words)) {
        return NULL;
    }
    return (volatile uint64_t *) words;
}

/* The progress engine's epochs that a stream starts, moved by that stream
 * where the receiver's buffer and flags are mapped here (one node): its
 * copy engine copies the buffer after the kernels, and the stream sets
 * the receiver's flags, so that no host takes part (the receiver's host
 * sees the flags as it would the progress engine's). The kernels count
 * the groups they complete, as a kernel copy's do, into words of this
 * side: the last one sets done_dev, which the stream waits for. */
static void mca_part_ucx_dev_stream_copy_setup(mca_part_ucx_request_t *req,
                                               struct mca_part_ucx_dev_t *d, void *dst)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    volatile uint64_t *words = d->epoch_block.addr, *flags, *peer_words;

    if (!mca_part_ucx_module.params.stream_copy_engine || 0 == req->total_bytes ||
        NULL == (flags = mca_part_ucx_dev_peer_flags(sreq))) {
        return;
    }
    d->host.remote_done = words + MCA_PART_UCX_DEV_MARKED;
    d->host.done = words + MCA_PART_UCX_DEV_MARKED;
    d->sc.rtr = flags + sreq->super.remote_parts;
    d->sc.src = sreq->super.data;
    d->sc.dst = dst;
    d->sc.bytes = req->total_bytes;
    d->sc.flags = flags;
    d->sc.nflags = sreq->super.remote_parts;
    d->sc.done = words + MCA_PART_UCX_DEV_SENT;
    /* kernels rather than stream memory operations, as the starts' and
     * waits' of other epochs without a host (part_ucx_stream_kernel_ops) */
    d->sc.wait_flags =
        mca_part_ucx_module.params.stream_kernel_ops ? MCA_PART_UCX_WAIT_KERNEL : 0;
    /* A stream-only send (MCA_PART_UCX_SRC_STREAM_COPY) got the receiver's
     * stream words: its stream waits for this one's done words. */
    if (NULL != (peer_words = mca_part_ucx_dev_peer_words(sreq))) {
        d->sc.rtr_dev = peer_words;
        d->sc.remote_done_dev = peer_words + 1;
        d->sc.remote_done = flags + sreq->super.remote_parts + 1;
    }
    MCA_PART_UCX_VERBOSE(10, "send to rank %d tag %d: stream-ordered epochs of the progress "
                         "engine copied by the stream", req->peer, req->tag);
}

/* What the receiver's GPU buffer, where it offered it and cuda_ipc maps it
 * here (rkey_ptr), is used for: kernel copy, or with the progress engine
 * (info "mpix_device_copy" "progress") the stream copy of stream-ordered
 * epochs; without it, the progression engine's host path. */
static int mca_part_ucx_dev_map_peer(mca_part_ucx_request_t *req, struct mca_part_ucx_dev_t *d)
{
    mca_part_ucx_sendreq_t *sreq = mca_part_ucx_sendreq(req);
    volatile uint64_t *flags, *peer_words;
    void *dst = NULL;
    ucs_status_t status = UCS_ERR_UNSUPPORTED;

    if (req->proc_null) {
        return OMPI_SUCCESS;
    }
    if (NULL != sreq->super.buf_rkeys[0] && sreq->super.contiguous && req->device) {
        status = ucp_rkey_ptr(sreq->super.buf_rkeys[0], sreq->remote_buf, &dst);
    }
    if (MCA_PART_UCX_DEVICE_COPY_PROGRESS == sreq->device_copy) {
        if (UCS_OK == status) {
            mca_part_ucx_dev_stream_copy_setup(req, d, dst);
        }
        return OMPI_SUCCESS;
    }
    if (UCS_OK != status) {
        MCA_PART_UCX_VERBOSE(5,
                             "send to rank %d tag %d: no mapping of the receiver's buffer (%s), "
                             "device requests use the progress engine", req->peer, req->tag,
                             ucs_status_string(status));
        return OMPI_SUCCESS;
    }
    d->copied = calloc(req->parts, sizeof(uint64_t));
    if (NULL == d->copied) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    d->host.mechanism = MPIX_PREQUEST_KERNEL_COPY;
    d->host.src = sreq->super.data;
    d->host.dst = dst;
    d->host.part_bytes = req->part_bytes;
    /* Where the stores stay in this GPU's memory and every thread that
     * reads them runs on this GPU, a GPU-scope fence releases them: the
     * receiver's threads acquire at that scope, and its host only learns of
     * an epoch through words that send it to GPU work, which reads this
     * GPU's memory through its L2 like the stores. */
    d->host.mark_gpu_scope = sreq->receiver_same_gpu &&
                             mca_part_ucx_module.params.device_gpu_scope_fences;
    /* The receiver's flags in its shared memory: the kernels set them too,
     * and the host sends no arrivals (mca_part_ucx_devreq_sets_arrivals). */
    d->host.rtr_cache = mca_part_ucx_module.params.device_rtr_cache;
    /* Past the flags, the receiver keeps its ready-to-receive word, which it
     * writes at each start, and the word its stream waits on
     * (MCA_PART_UCX_RECV_RTR_WORD): kernels read the one and write the
     * other, so that an epoch needs no host on either side. */
    if (mca_part_ucx_module.params.device_arrivals &&
        NULL != (flags = mca_part_ucx_dev_peer_flags(sreq))) {
        volatile uint64_t *words = d->epoch_block.addr;
        d->host.remote_arrived = flags;
        d->host.rtr = d->host.remote_arrived + sreq->super.remote_parts;
        d->host.remote_done = d->host.remote_arrived + sreq->super.remote_parts + 1;
        d->host.done = words + MCA_PART_UCX_DEV_DONE;
        sreq->peer_rtr = d->host.rtr;
        /* its stream words, in its GPU memory */
        if (NULL != (peer_words = mca_part_ucx_dev_peer_words(sreq))) {
            d->host.rtr_dev = peer_words;
            d->host.remote_done_dev = peer_words + 1;
        }
    }
    mca_part_ucx_dev_rtr_words(req, d);
    return OMPI_SUCCESS;
}

static const mca_part_ucx_dev_ops_t mca_part_ucx_devreq_ops = {
    .start = mca_part_ucx_devreq_start,
    .release = mca_part_ucx_devreq_release,
    .progress = mca_part_ucx_devreq_progress,
    .failed = mca_part_ucx_devreq_failed,
    .send_drained = mca_part_ucx_devreq_send_drained,
    .marked = mca_part_ucx_devreq_marked,
    .copied = mca_part_ucx_devreq_copied,
    .group = mca_part_ucx_devreq_group,
    .sets_arrivals = mca_part_ucx_devreq_sets_arrivals,
    .rtr = mca_part_ucx_devreq_rtr,
};

/* Whether a send's epochs are copied after its kernels (ca): stream-only
 * (no host ever starts an epoch, so no host reads its marks), a kernel
 * copy whose kernels would complete its epochs themselves (the receiver's
 * flags and done words mapped), and at least
 * part_ucx_stream_copy_after_bytes. */
static bool mca_part_ucx_dev_after_wanted(const mca_part_ucx_request_t *req,
                                          const struct mca_part_ucx_dev_t *d)
{
    size_t least = (size_t) mca_part_ucx_module.params.stream_copy_after_bytes;

    return MCA_PART_UCX_SEND == req->kind && req->stream_only && 0 != least &&
           req->total_bytes >= least && MPIX_PREQUEST_KERNEL_COPY == d->host.mechanism &&
           NULL != d->host.remote_done && NULL != d->host.remote_arrived &&
           NULL != mca_part_ucx_device();
}

/* The copy's words, once the device copy exists (done_dev and the block
 * count are its fields); its kernel loaded now, before any stream waits
 * for it (CUDA loads a kernel at its first launch, behind the context's
 * work). */
static int mca_part_ucx_dev_after_setup(mca_part_ucx_request_t *req, struct mca_part_ucx_dev_t *d)
{
    mca_part_ucx_copy_after_t *c = &d->ca;

    c->marks = (uint64_t *) d->host.ready;
    c->parts = d->host.parts;
    c->gpu_scope = d->host.mark_gpu_scope;
    c->rtr_dev = d->host.rtr_dev;
    c->rtr = d->host.rtr;
    c->src = d->host.src;
    c->dst = d->host.dst;
    c->bytes = req->total_bytes;
    c->flags = d->host.remote_arrived;
    c->remote_done_dev = d->host.remote_done_dev;
    c->remote_done = d->host.remote_done;
    c->done_dev = (volatile uint64_t *) &d->dptr->done_dev;
    c->done = d->host.done;
    c->blocks_done = &d->dptr->groups_done;
    c->error = d->host.error;
    MCA_PART_UCX_VERBOSE(10, "send to rank %d tag %d: stream-ordered epochs copied after the "
                         "kernels, which only mark", req->peer, req->tag);
    return (0 == mca_part_ucx_device()->stream_copy_after(NULL, c)) ? OMPI_SUCCESS : OMPI_ERROR;
}

bool mca_part_ucx_dev_copies_after(const mca_part_ucx_request_t *req)
{
    return MCA_PART_UCX_SEND == req->kind && NULL != req->dev && NULL != req->dev->ca.marks;
}

int mca_part_ucx_dev_stream_copy_after(mca_part_ucx_request_t *req, void *stream)
{
    return mca_part_ucx_device()->stream_copy_after(stream, &req->dev->ca);
}

static int mca_part_ucx_dev_create(mca_part_ucx_request_t *req, MPIX_Prequest *preq)
{
    mca_part_ucx_collreq_t *creq = mca_part_ucx_collreq(req);
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    struct mca_part_ucx_dev_t *d;
    bool coll = (MCA_PART_UCX_COLL == req->kind);
    bool send = (MCA_PART_UCX_SEND == req->kind) || coll;
    bool gpu_engine = coll && NULL != creq->gpu_ready;
    bool after = false;
    /* Between epochs (made before a start), the current epoch is complete. */
    uint64_t completed = req->epoch - (OMPI_REQUEST_ACTIVE == req->super.req_state);
    int rc = OMPI_SUCCESS;
    /* Where the time of a create goes, for opal_common_ucx_verbose >= 10. */
    opal_timer_t t[5];

    t[0] = opal_timer_base_get_usec();
    /* The receive flags exist once setup is done; wait for it as the
     * first MPIX_Pbuf_prepare would. */
    while (!coll && MCA_PART_UCX_SETUP_PENDING == req->setup) {
        opal_progress();
    }
    if (MCA_PART_UCX_SETUP_FAILED == req->setup) {
        return req->error;
    }
    t[1] = opal_timer_base_get_usec();
    d = calloc(1, sizeof(*d));
    if (NULL == d) {
        return MPI_ERR_NO_MEM;
    }
    d->host.magic = MPIX_PREQUEST_MAGIC;
    d->host.layout = MPIX_PART_DEVICE_LAYOUT;
    /* A collective's kernels both mark partitions and see results done. */
    d->host.kind = coll ? MPIX_PREQUEST_COLL : send ? MPIX_PREQUEST_SEND : MPIX_PREQUEST_RECV;
    d->host.mechanism = MPIX_PREQUEST_PROGRESS;
    d->host.parts = (uint32_t) req->parts;
    d->host.remote_parts = (uint32_t) (coll ? req->parts : mca_part_ucx_p2p(req)->remote_parts);
    d->host.threshold = req->pready_threads;
    d->host.aggregate = (MCA_PART_UCX_PREADY_AGGREGATE_BLOCK == req->pready_aggregate)
                            ? MPIX_PREQUEST_AGGREGATE_BLOCK : MPIX_PREQUEST_AGGREGATE_WARP;
    d->host.total_bytes = coll ? req->parts : req->total_bytes; /* one word per partition */
    /* what each call takes: one compare checks the partition and the kind */
    d->host.pready_parts = (send && req->takes_pready) ? (uint32_t) req->parts : 0;
    d->host.parrived_parts = (!send || coll) ? (uint32_t) req->parts : 0;
    d->host.epoch_seen = req->epoch;

    OPAL_THREAD_LOCK(&m->lock);
    rc = mca_part_ucx_block_alloc_mapped(MCA_PART_UCX_DEV_WORDS * sizeof(uint64_t),
                                         &d->epoch_block);
    if (OMPI_SUCCESS == rc && send && !gpu_engine) {
        rc = mca_part_ucx_block_alloc_mapped(req->parts * sizeof(uint64_t), &d->ready_block);
    }
    if (OMPI_SUCCESS == rc && coll && !gpu_engine) {
        rc = mca_part_ucx_block_alloc_mapped(req->parts * sizeof(uint64_t),
                                             &creq->coll_done_block);
    } else if (OMPI_SUCCESS == rc && !send && !req->proc_null) {
        rc = mca_part_ucx_block_device_map(&rreq->flags_block); /* no-op for GPU buffers */
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    d->host.ready = d->ready_block.addr;
    d->host.arrived = coll ? creq->coll_done_block.addr : rreq->flags_block.addr;
    if (gpu_engine) {
        /* its kernel polls the ready words in GPU memory and writes the
         * done words */
        d->host.ready = creq->gpu_ready;
        d->host.arrived = creq->gpu_done;
        d->host.mark_gpu_scope = creq->gpu_scope ? 1 : 0;
        if (creq->gpu_ordered) {
            MCA_PART_UCX_VERBOSE(10, "device request of a collective: stream-ordered marks");
        }
    }
    d->host.epoch = d->epoch_block.addr;
    d->host.rtr = (const uint64_t *) d->epoch_block.addr + MCA_PART_UCX_DEV_RTR;
    d->host.error = (volatile uint32_t *) ((uint64_t *) d->epoch_block.addr +
                                           MCA_PART_UCX_DEV_ERROR);
    if (!send && !req->proc_null) {
        mca_part_ucx_recv_words_t r;
        if (OMPI_SUCCESS == mca_part_ucx_recv_stream_words(req, &r)) {
            d->host.done_gpu = r.done_dev; /* MPIX_Parrived reads it before the flags */
            d->host.epoch_gpu = r.rtr_dev;
            if (req->stream_only) {
                d->host.epoch = r.rtr_dev; /* every epoch starts there */
                d->host.epoch_gpu = NULL;
            }
        }
    }
    if (!send && req->proc_null) {
        /* nothing arrives: every partition reads the epoch word itself */
        d->host.arrived = d->epoch_block.addr;
        d->host.remote_parts = 1;
        d->host.total_bytes = 0;
    }
    if (OMPI_SUCCESS == rc) {
        *(volatile uint64_t *) d->epoch_block.addr = req->epoch;
    }
    t[2] = opal_timer_base_get_usec();
    if (OMPI_SUCCESS == rc && send && !coll) {
        rc = mca_part_ucx_dev_map_peer(req, d);
    }
    d->host.group_shift =
        mca_part_ucx_dev_group_shift(req, MPIX_PREQUEST_KERNEL_COPY == d->host.mechanism);
    d->host.groups = (uint32_t) ((req->parts + ((size_t) 1 << d->host.group_shift) - 1) >>
                                 d->host.group_shift);
    if (send && !coll) {
        MCA_PART_UCX_VERBOSE(10, "device send to rank %d tag %d: %u transport groups of %zu "
                             "partitions of %zu bytes", req->peer, req->tag, d->host.groups,
                             (size_t) 1 << d->host.group_shift, req->part_bytes);
    }
    if (OMPI_SUCCESS == rc) {
        /* the epochs before this one are complete */
        ((volatile uint64_t *) d->epoch_block.addr)[MCA_PART_UCX_DEV_DONE] = completed;
        ((volatile uint64_t *) d->epoch_block.addr)[MCA_PART_UCX_DEV_MARKED] = completed;
        ((volatile uint64_t *) d->epoch_block.addr)[MCA_PART_UCX_DEV_SENT] = completed;
        d->host.done_dev = completed;
    }
    t[3] = opal_timer_base_get_usec();
    after = OMPI_SUCCESS == rc && mca_part_ucx_dev_after_wanted(req, d);
    if (OMPI_SUCCESS == rc) {
        rc = mca_part_ucx_dev_upload(d, req->parts, completed, after);
    }
    if (OMPI_SUCCESS == rc && after) {
        rc = mca_part_ucx_dev_after_setup(req, d);
    }
    t[4] = opal_timer_base_get_usec();
    req->dev = d;
    req->dev_ops = &mca_part_ucx_devreq_ops;
    req->kernels_count = false; /* a new device copy: the next start tells it */
    if (OMPI_SUCCESS != rc) {
        mca_part_ucx_devreq_release(req);
        return MPI_ERR_NO_MEM;
    }
    d->pending = req->parts;
    d->first_unseen = 0;
    if (NULL != req->ops->dev_attach) {
        req->ops->dev_attach(req, creq->coll_done_block.addr, d->host.error);
    }
    /* What kernels branch on travels in the handle (mpix_part_device.h). */
    d->handle = (MPIX_Prequest) ((uintptr_t) d->dptr |
                                 ((MPIX_PREQUEST_AGGREGATE_BLOCK == d->host.aggregate)
                                      ? MPIX_PREQUEST_TAG_BLOCK : 0) |
                                 ((MPIX_PREQUEST_KERNEL_COPY == d->host.mechanism)
                                      ? MPIX_PREQUEST_TAG_KERNEL_COPY : 0) |
                                 (((gpu_engine && creq->gpu_ordered) || after)
                                      ? MPIX_PREQUEST_TAG_ORDERED : 0));
    OPAL_THREAD_LOCK(&m->lock);
    if (!mca_part_ucx_dev_handles_ready) {
        OBJ_CONSTRUCT(&mca_part_ucx_dev_handles, opal_hash_table_t);
        rc = opal_hash_table_init(&mca_part_ucx_dev_handles, 64);
        mca_part_ucx_dev_handles_ready = (OPAL_SUCCESS == rc);
    }
    if (OPAL_SUCCESS == rc) {
        rc = opal_hash_table_set_value_uint64(&mca_part_ucx_dev_handles,
                                              (uint64_t) (uintptr_t) d->handle, req);
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    if (OPAL_SUCCESS != rc) {
        mca_part_ucx_devreq_release(req);
        return MPI_ERR_NO_MEM;
    }
    *preq = d->handle;
    MCA_PART_UCX_VERBOSE(10, "device request %p for %s rank %d tag %d, %u calls per partition "
                         "(one update per %s), %u partitions a group, %s", (void *) d->dptr,
                         send ? "send to" : "receive from", req->peer, req->tag, d->host.threshold,
                         (MPIX_PREQUEST_AGGREGATE_BLOCK == d->host.aggregate) ? "block" : "warp",
                         1u << d->host.group_shift,
                         after ? "kernel copy after the kernels (they only mark)"
                         : (MPIX_PREQUEST_KERNEL_COPY == d->host.mechanism) ? "kernel copy"
                                                                          : "progress engine");
    MCA_PART_UCX_VERBOSE(10, "device request %p: %llu us (setup wait %llu, host words %llu, "
                         "peer mapping %llu, device copy %llu)", (void *) d->dptr,
                         (unsigned long long) (t[4] - t[0]), (unsigned long long) (t[1] - t[0]),
                         (unsigned long long) (t[2] - t[1]), (unsigned long long) (t[3] - t[2]),
                         (unsigned long long) (t[4] - t[3]));
    return MPI_SUCCESS;
}

/* MPIX_Prequest_create (the module's part_prequest_create; the binding is
 * in ompi/mpiext/part): `layout`, that of the program's headers, must be
 * ours, or its kernels would read fields where they are not. */
int mca_part_ucx_prequest_create(ompi_request_t *request, int layout, MPIX_Prequest *preq)
{
    mca_part_ucx_request_t *req = (mca_part_ucx_request_t *) request;
    int rc = MPI_SUCCESS;

    if (MPIX_PART_DEVICE_LAYOUT != layout) {
        opal_show_help("help-part-ucx.txt", "prequest layout", true, layout,
                       MPIX_PART_DEVICE_LAYOUT);
        rc = MPI_ERR_UNSUPPORTED_OPERATION;
    } else if (NULL == preq) {
        rc = MPI_ERR_ARG;
    } else if (MPI_REQUEST_NULL == request || OMPI_REQUEST_PART != request->req_type ||
               mca_part_ucx_start != request->req_start) {
        rc = MPI_ERR_REQUEST;
    } else {
        /* Once per request, in an epoch or between two (stream-ordered
         * epochs need it before their first start). */
        if (NULL != req->dev) {
            rc = MPI_ERR_REQUEST;
        } else {
            rc = mca_part_ucx_dev_create(req, preq);
        }
    }
    return rc;
}

/* MPIX_Prequest_free (the module's part_prequest_free): *request is the
 * request a known handle belongs to, whose communicator reports an error. */
int mca_part_ucx_prequest_free(MPIX_Prequest *preq, ompi_request_t **request)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_request_t *req = NULL;
    struct mca_part_ucx_dev_t *d = NULL;
    void *value = NULL;
    int rc = MPI_ERR_ARG;

    if (NULL != preq && NULL != *preq) {
        OPAL_THREAD_LOCK(&m->lock);
        if (mca_part_ucx_dev_handles_ready &&
            OPAL_SUCCESS == opal_hash_table_get_value_uint64(&mca_part_ucx_dev_handles,
                                                             (uint64_t) (uintptr_t) *preq,
                                                             &value)) {
            req = value;
            *request = &req->super;
            /* In an active epoch kernels may still mark partitions (never
             * to be sent) and write its memory. */
            if (OMPI_REQUEST_ACTIVE == req->super.req_state) {
                rc = MPI_ERR_REQUEST;
            } else {
                d = mca_part_ucx_dev_detach(req); /* the lock is recursive */
                rc = MPI_SUCCESS;
            }
        }
        OPAL_THREAD_UNLOCK(&m->lock);
    }
    if (MPI_SUCCESS != rc) {
        return rc;
    }
    mca_part_ucx_dev_destroy(req, d);
    *preq = NULL;
    return MPI_SUCCESS;
}
