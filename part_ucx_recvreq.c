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
#include "opal/mca/accelerator/accelerator.h"
#include "opal/mca/hwloc/hwloc-internal.h"
#include "opal/runtime/opal_progress.h"
#include "ompi/proc/proc.h"

#include "part_ucx.h"
#include "part_ucx_request.h"
#include "part_ucx_device_plugin.h"
#include "part_ucx_pvar.h"

#include <inttypes.h>

static opal_atomic_int32_t mca_part_ucx_parrived_busy;
static opal_thread_local unsigned mca_part_ucx_parrived_misses;

static inline bool mca_part_ucx_flags_arrived(const mca_part_ucx_request_t *req, size_t first,
                                              size_t last)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    const volatile uint64_t *flags = rreq->flags_block.addr;
    size_t i;

    for (i = first; i <= last; ++i) {
        if (flags[i] < req->epoch) {
            return false;
        }
    }
    return true;
}

/* unpacked[p]: partition p unpacked in epoch e, or being unpacked */
#define MCA_PART_UCX_UNPACKED(_e)  ((uint64_t) (_e) * 2)
#define MCA_PART_UCX_UNPACKING(_e) ((uint64_t) (_e) * 2 - 1)

/* Non-contiguous receives land packed in pack_buf; a partition is unpacked
 * once per epoch, by MPI_Parrived or at completion, whichever sees it
 * first. The claim and the end are two states: a thread that finds the
 * partition claimed by another must not report it before that thread's
 * unpack has finished. True once the partition is in the user's buffer. */
static bool mca_part_ucx_unpack(mca_part_ucx_request_t *req, size_t p)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    uint64_t done = MCA_PART_UCX_UNPACKED(req->epoch), old = rreq->unpacked[p];
    opal_convertor_t conv;
    struct iovec iov;
    uint32_t iov_count = 1;
    size_t max = req->part_bytes;

    if (old >= MCA_PART_UCX_UNPACKING(req->epoch)) {
        if (old != done) {
            return false;
        }
        opal_atomic_rmb(); /* the unpacked data after the state */
        return true;
    }
    if (!opal_atomic_compare_exchange_strong_64((opal_atomic_int64_t *) &rreq->unpacked[p],
                                                (int64_t *) &old,
                                                MCA_PART_UCX_UNPACKING(req->epoch))) {
        return false; /* another thread is at it */
    }
    OBJ_CONSTRUCT(&conv, opal_convertor_t);
    opal_convertor_copy_and_prepare_for_recv(ompi_proc_local()->super.proc_convertor,
                                             &req->datatype->super, req->count,
                                             (char *) req->buf + p * req->count * req->extent,
                                             0, &conv);
    iov.iov_base = rreq->super.pack_buf + p * req->part_bytes;
    iov.iov_len = req->part_bytes;
    opal_convertor_unpack(&conv, &iov, &iov_count, &max);
    OBJ_DESTRUCT(&conv);
    opal_atomic_wmb();
    rreq->unpacked[p] = done;
    return true;
}

/* Progress from a polling MPI_Parrived: one polling thread at a time drives
 * the workers; the others go on reading flags instead of queueing on the
 * workers' locks. */
void mca_part_ucx_poll_progress(void)
{
    int32_t idle = 0;

    if (0 == mca_part_ucx_parrived_busy &&
        opal_atomic_compare_exchange_strong_32(&mca_part_ucx_parrived_busy, &idle, 1)) {
        (void) mca_part_ucx_request_progress();
        opal_atomic_swap_32(&mca_part_ucx_parrived_busy, 0);
    }
}

/* MPI_Parrived of an active receive without any progress: the flags
 * only (and the unpacking they allow). The collectives' engine calls it
 * from inside the progress function. */
int mca_part_ucx_arrived(mca_part_ucx_request_t *req, size_t min_part, size_t max_part, int *flag)
{
    mca_part_ucx_p2p_t *p2p = mca_part_ucx_p2p(req);
    size_t first, last, p;

    *flag = 0;
    if (MCA_PART_UCX_SETUP_DONE == req->setup) {
        mca_part_ucx_overlap(p2p, min_part, max_part, &first, &last);
        if (mca_part_ucx_flags_arrived(req, first, last)) {
            opal_atomic_rmb(); /* data is read after the flag */
            *flag = 1;
            for (p = min_part; NULL != p2p->pack_buf && p <= max_part; ++p) {
                if (!mca_part_ucx_unpack(req, p)) {
                    *flag = 0; /* another thread is unpacking it */
                }
            }
        }
    } else if (MCA_PART_UCX_SETUP_FAILED == req->setup) {
        return req->error;
    }
    return OMPI_SUCCESS;
}

static int mca_part_ucx_recv_parrived(mca_part_ucx_request_t *req, size_t min_part,
                                      size_t max_part, int *flag)
{
    mca_part_ucx_p2p_t *p2p = mca_part_ucx_p2p(req);
    int interval, rc;

    rc = mca_part_ucx_arrived(req, min_part, max_part, flag);
    if (OMPI_SUCCESS != rc || *flag) {
        return rc;
    }
    /* A miss reads flags only; every interval-th miss of a thread also
     * progresses, so that a program that only polls cannot starve
     * transports that need this process's progress (am transfer, emulated
     * RMA). The count is per thread: a shared one would bounce a cache line
     * between all polling threads. */
    interval = mca_part_ucx_module.params.parrived_progress_interval;
    if (interval <= 0 || 0 != (mca_part_ucx_parrived_misses++ % (unsigned) interval)) {
        return OMPI_SUCCESS;
    }
    if (p2p->am) {
        mca_part_ucx_poll_progress();
    } else {
        opal_progress();
    }
    return OMPI_SUCCESS;
}

/* A partition message that came one epoch early (part_ucx_epoch_ahead_bytes):
 * eager data copied here, a rendezvous kept as UCX's descriptor. */
typedef struct mca_part_ucx_held_t {
    struct mca_part_ucx_held_t *next;
    mca_part_ucx_data_hdr_t hdr;
    ucp_worker_h worker;
    void *desc;                     /* rendezvous: UCX's descriptor; NULL: data below */
    size_t length;
    char data[];
} mca_part_ucx_held_t;

/* A held message that will not go in place: UCX's descriptor back. */
static void mca_part_ucx_held_drop(mca_part_ucx_held_t *h)
{
    if (NULL != h->desc) {
        ucp_am_data_release(h->worker, h->desc);
    }
    free(h);
}

/* push: progress the worker at once (not from within the module's
 * progress, which holds its lock). */
static void mca_part_ucx_send_rtr(mca_part_ucx_request_t *req, bool push)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    ucp_request_param_t param = {0};
    ucs_status_ptr_t op;

    /* MPI_Start and progress (a setup that matched late, an owed RTR) may
     * both send: one at a time, each waiting out the one before, whose
     * source it reuses. */
    opal_atomic_lock(&rreq->rtr_op_lock);
    if (rreq->rtr_value >= req->epoch) {
        /* sent already (MPI_Start and a late match both may try): a second
         * put could land after the sender freed its request, in a word the
         * pool has given another one */
        opal_atomic_unlock(&rreq->rtr_op_lock);
        return;
    }
    mca_part_ucx_op_release(&rreq->rtr_op);
    rreq->rtr_value = req->epoch;
    if (rreq->rtr_am) {
        rreq->rtr_msg.epoch = req->epoch;
        op = ucp_am_send_nbx(rreq->super.remote->eps[0], MCA_PART_UCX_AM_RTR, &rreq->rtr_msg,
                             sizeof(rreq->rtr_msg), NULL, 0, &param);
    } else {
        op = ucp_put_nbx(rreq->super.remote->eps[0], &rreq->rtr_value, sizeof(rreq->rtr_value),
                         rreq->remote_rtr, rreq->super.rtr_rkey, &param);
    }
    if (UCS_PTR_IS_ERR(op)) {
        opal_atomic_unlock(&rreq->rtr_op_lock);
        MCA_PART_UCX_ERROR("ready-to-receive to rank %d failed: %s", req->peer,
                           ucs_status_string(UCS_PTR_STATUS(op)));
        mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
        return;
    }
    rreq->rtr_op = UCS_PTR_IS_PTR(op) ? op : NULL;
    opal_atomic_unlock(&rreq->rtr_op_lock);
    mca_part_ucx_count(MCA_PART_UCX_PVAR_RTR_ALONE, 1);
    if (push) { /* the sender may be spinning on MPI_Pready */
        ucp_worker_progress(mca_part_ucx_module.workers[0]);
    }
}

void mca_part_ucx_recv_rtr_wait(mca_part_ucx_request_t *req)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    opal_atomic_lock(&rreq->rtr_op_lock);
    mca_part_ucx_op_release(&rreq->rtr_op);
    opal_atomic_unlock(&rreq->rtr_op_lock);
}

/* One epoch ahead, MPI_Start owes the sender this epoch's ready-to-receive:
 * it rides on the next partition message to that process (a ping-pong or
 * exchange then sends one message an epoch each way, not two: over tcp
 * a message of its own is a good part of a half round trip), or goes alone from
 * progress (mca_part_ucx_recv_rtr_flush). One receive per peer waits to
 * ride; an earlier one still owed goes alone. */
static void mca_part_ucx_recv_rtr_owe(mca_part_ucx_request_t *req)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    mca_part_ucx_peer_t *peer = rreq->super.remote;

    opal_atomic_lock(&peer->rtr_lock);
    rreq->rtr_owed_epoch = req->epoch;
    peer->rtr_owed_req = rreq;
    opal_atomic_unlock(&peer->rtr_lock);
}

void mca_part_ucx_recv_rtr_ride(mca_part_ucx_peer_t *peer, mca_part_ucx_rtr_msg_t *rtr)
{
    mca_part_ucx_recvreq_t *rreq;

    rtr->epoch = 0;
    if (NULL == peer->rtr_owed_req) { /* checked again under the lock */
        return;
    }
    opal_atomic_lock(&peer->rtr_lock);
    rreq = peer->rtr_owed_req;
    if (NULL != rreq && 0 != rreq->rtr_owed_epoch) {
        *rtr = rreq->rtr_msg;
        rtr->epoch = rreq->rtr_owed_epoch;
        rreq->rtr_owed_epoch = 0;
        mca_part_ucx_count(MCA_PART_UCX_PVAR_RTR_RIDING, 1);
        MCA_PART_UCX_VERBOSE(20, "receive from rank %d tag %d: ready-to-receive of epoch %llu "
                             "rides on a partition message", rreq->super.super.peer,
                             rreq->super.super.tag,
                             (unsigned long long) rtr->epoch);
    }
    peer->rtr_owed_req = NULL;
    opal_atomic_unlock(&peer->rtr_lock);
}

void mca_part_ucx_recv_rtr_flush(mca_part_ucx_request_t *req)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    mca_part_ucx_peer_t *peer = rreq->super.remote;
    uint64_t owed;

    if (0 == rreq->rtr_owed_epoch || MCA_PART_UCX_SETUP_DONE != req->setup) {
        return;
    }
    opal_atomic_lock(&peer->rtr_lock);
    owed = rreq->rtr_owed_epoch;
    rreq->rtr_owed_epoch = 0;
    if (peer->rtr_owed_req == rreq) {
        peer->rtr_owed_req = NULL;
    }
    opal_atomic_unlock(&peer->rtr_lock);
    if (0 != owed) {
        mca_part_ucx_send_rtr(req, false);
    }
}

typedef struct {
    mca_part_ucx_request_t *req;
    uint64_t part, count;
    uint64_t epoch;
} mca_part_ucx_rndv_t;

_Static_assert(sizeof(mca_part_ucx_rndv_t) <= MCA_PART_UCX_OP_CTX_WORDS * sizeof(uint64_t),
               "a rendezvous context fits mca_part_ucx_op_ctx_get");

/* Partitions part .. part + count - 1 are in place. */
static void mca_part_ucx_recv_arrived(mca_part_ucx_request_t *req, uint64_t part, uint64_t count,
                                      uint64_t epoch)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    volatile uint64_t *flags = rreq->flags_block.addr;

    opal_atomic_wmb();
    for (; count > 0; --count, ++part) {
        flags[part] = epoch;
    }
}

static void mca_part_ucx_rndv_done(void *op, ucs_status_t status, size_t length,
                                   void *user_data)
{
    mca_part_ucx_rndv_t *r = user_data;

    if (UCS_OK == status) {
        mca_part_ucx_recv_arrived(r->req, r->part, r->count, r->epoch);
    } else {
        mca_part_ucx_request_fail(r->req, MPI_ERR_INTERN);
    }
    mca_part_ucx_request_put(r->req);
    mca_part_ucx_op_ctx_put(r);
    ucp_request_free(op);
}

/* Whether a partition message is for a live receive of this epoch, at
 * partitions and a length the setup agreed on: arrivals of partitions a
 * kernel stored (header only, exposed buffers), or the data of `count`
 * adjacent ones (strided receivers: one at a time). */
static bool mca_part_ucx_recv_hdr_ok(const mca_part_ucx_request_t *req,
                                     const mca_part_ucx_data_hdr_t *hdr, size_t length,
                                     uint64_t epoch)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    size_t left;

    if (NULL == req || MCA_PART_UCX_RECV != req->kind || !rreq->super.am ||
        MCA_PART_UCX_SETUP_DONE != req->setup || hdr->epoch != epoch ||
        hdr->part >= rreq->super.remote_parts) {
        return false;
    }
    left = rreq->super.remote_parts - hdr->part; /* partitions from hdr->part on */
    if (hdr->copied) {
        return rreq->exposed && 0 == length && (hdr->copied & 1) &&
               (size_t) (63 - __builtin_clzll(hdr->copied)) < left;
    }
    return 0 < hdr->count && hdr->count <= left &&
           (1 == hdr->count || rreq->super.stride == req->part_bytes) &&
           length == hdr->count * (req->total_bytes / rreq->super.remote_parts);
}

/* A checked partition message of the receive's current epoch: in place. */
static void mca_part_ucx_recv_deliver(ucp_worker_h worker, mca_part_ucx_request_t *req,
                                      const mca_part_ucx_data_hdr_t *hdr, void *data,
                                      size_t length, bool rndv)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    volatile uint64_t *flags;
    ucp_request_param_t param;
    mca_part_ucx_rndv_t *r;
    ucs_status_ptr_t op;
    size_t spart;
    char *dst;

    flags = rreq->flags_block.addr;
    spart = req->total_bytes / rreq->super.remote_parts;
    if (hdr->copied) {
        /* The sender's kernels stored these partitions over NVLink and
         * fenced them before the host sent this. */
        uint64_t bits = hdr->copied;

        opal_atomic_wmb();
        while (bits) {
            flags[hdr->part + (size_t) __builtin_ctzll(bits)] = hdr->epoch;
            bits &= bits - 1;
        }
        return;
    }
    /* strided: partitions one to one (mca_part_ucx_recv_packed otherwise) */
    dst = rreq->super.data +
          hdr->part * (rreq->super.stride != req->part_bytes ? rreq->super.stride : spart);
    if (!rndv) {
        if (OPAL_SUCCESS != mca_part_ucx_copy_in(dst, data, length,
                                                 mca_part_ucx_data_on_device(&rreq->super))) {
            mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
            return;
        }
        mca_part_ucx_recv_arrived(req, hdr->part, hdr->count, hdr->epoch);
        return;
    }

    r = mca_part_ucx_op_ctx_get();
    if (NULL == r) {
        ucp_am_data_release(worker, data);
        mca_part_ucx_request_fail(req, MPI_ERR_NO_MEM);
        return;
    }
    r->req = req;
    r->part = hdr->part;
    r->count = hdr->count;
    r->epoch = hdr->epoch;
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                         UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.cb.recv_am = mca_part_ucx_rndv_done;
    param.user_data = r;
    param.memory_type = mca_part_ucx_memtype(mca_part_ucx_data_on_device(&rreq->super));
    /* the request is held until the data is in (a failed one may be
     * completed and freed before) */
    opal_atomic_add_fetch_32(&req->handlers, 1);
    op = ucp_am_recv_data_nbx(worker, data, dst, length, &param);
    if (UCS_PTR_IS_PTR(op)) {
        return;
    }
    mca_part_ucx_request_put(req);
    if (UCS_OK == UCS_PTR_STATUS(op)) {
        mca_part_ucx_recv_arrived(req, hdr->part, hdr->count, hdr->epoch);
    } else {
        mca_part_ucx_request_fail(req, MPI_ERR_INTERN);
    }
    mca_part_ucx_op_ctx_put(r);
}

/* Keep a partition message of the epoch after the receiver's current one
 * until its MPI_Start (mca_part_ucx_recv_start), in no particular order;
 * UCS_INPROGRESS keeps a rendezvous descriptor. */
static ucs_status_t mca_part_ucx_recv_hold(ucp_worker_h worker, mca_part_ucx_request_t *req,
                                           const mca_part_ucx_data_hdr_t *hdr, void *data,
                                           size_t length, bool rndv)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    mca_part_ucx_held_t *h = malloc(sizeof(*h) + (rndv ? 0 : length));

    if (NULL == h) {
        if (rndv) {
            ucp_am_data_release(worker, data);
        }
        mca_part_ucx_request_fail(req, MPI_ERR_NO_MEM);
        return UCS_OK;
    }
    h->hdr = *hdr;
    h->worker = worker;
    h->desc = rndv ? data : NULL;
    h->length = length;
    if (!rndv) {
        memcpy(h->data, data, length);
    }
    h->next = rreq->early_msgs;
    rreq->early_msgs = h;
    return rndv ? UCS_INPROGRESS : UCS_OK;
}

/* An am-transfer partition: accepted only for a live receive of this
 * epoch (or, one epoch ahead, kept for the next), at a partition index and
 * length the setup agreed on; nothing is written otherwise. Small ones are
 * copied here, large ones fetched zero-copy by UCX's rendezvous (CMA
 * between processes of a node). */
ucs_status_t mca_part_ucx_recv_data(ucp_worker_h worker, const mca_part_ucx_data_hdr_t *hdr,
                                    void *data, size_t length, bool rndv)
{
    /* held until done with: another thread may be freeing the request */
    mca_part_ucx_request_t *req = mca_part_ucx_request_get(hdr->rreq_id, hdr->rreq_cookie);
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    ucs_status_t status = UCS_OK;
    bool now, early = false;

    if (NULL != req && MCA_PART_UCX_RECV == req->kind && rreq->super.ahead) {
        /* under the lock, against MPI_Start moving the epoch and taking
         * what is held */
        opal_atomic_lock(&rreq->early_msgs_lock);
        now = mca_part_ucx_recv_hdr_ok(req, hdr, length, req->epoch);
        early = !now && mca_part_ucx_recv_hdr_ok(req, hdr, length, req->epoch + 1);
        if (early) {
            MCA_PART_UCX_VERBOSE(20, "receive from rank %d tag %d: partition %llu of epoch %llu "
                                 "held until MPI_Start", req->peer, req->tag,
                                 (unsigned long long) hdr->part, (unsigned long long) hdr->epoch);
            status = mca_part_ucx_recv_hold(worker, req, hdr, data, length, rndv);
            mca_part_ucx_count(MCA_PART_UCX_PVAR_PARTS_HELD, (int64_t) hdr->count);
        }
        opal_atomic_unlock(&rreq->early_msgs_lock);
    } else {
        now = mca_part_ucx_recv_hdr_ok(req, hdr, length, NULL != req ? req->epoch : 0);
    }
    if (now) {
        mca_part_ucx_recv_deliver(worker, req, hdr, data, length, rndv);
    } else if (!early) {
        MCA_PART_UCX_ERROR("partition message for no live receive dropped");
        if (rndv) {
            ucp_am_data_release(worker, data);
        }
    }
    if (NULL != req) {
        mca_part_ucx_request_put(req);
    }
    return status;
}

/* One epoch ahead: what came early for the epoch just started goes in
 * place now; anything else held is stale and dropped. */
static void mca_part_ucx_recv_take_held(mca_part_ucx_request_t *req)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    mca_part_ucx_held_t *h, *next;

    opal_atomic_lock(&rreq->early_msgs_lock);
    h = rreq->early_msgs;
    rreq->early_msgs = NULL;
    opal_atomic_unlock(&rreq->early_msgs_lock);
    for (; NULL != h; h = next) {
        next = h->next;
        if (mca_part_ucx_recv_hdr_ok(req, &h->hdr, h->length, req->epoch)) {
            mca_part_ucx_recv_deliver(h->worker, req, &h->hdr, NULL != h->desc ? h->desc : h->data,
                                      h->length, NULL != h->desc);
            free(h); /* a descriptor is UCX's again once received */
        } else {
            mca_part_ucx_held_drop(h);
        }
    }
}

/* The sender's kernels read the ready-to-receive word of shared flags
 * directly: this epoch's buffer is theirs once it says so. */
static void mca_part_ucx_recv_rtr_word(mca_part_ucx_recvreq_t *rreq)
{
    volatile uint64_t *flags = rreq->flags_block.addr;

    if (rreq->shared_flags) {
        opal_atomic_wmb(); /* the previous epoch's reads of the buffer are done */
        flags[MCA_PART_UCX_RECV_RTR_WORD(rreq)] = rreq->super.super.epoch;
    }
}

int mca_part_ucx_recv_stream_words(mca_part_ucx_request_t *req, mca_part_ucx_recv_words_t *w)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    volatile uint64_t *flags = rreq->flags_block.addr;

    if (MCA_PART_UCX_SETUP_DONE != req->setup || !rreq->shared_flags || !rreq->exposed ||
        NULL == rreq->words) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    w->rtr = (rreq->sender_stream_only && !rreq->sender_stream_copy)
                 ? NULL : flags + MCA_PART_UCX_RECV_RTR_WORD(rreq);
    w->done = flags + MCA_PART_UCX_RECV_DONE_WORD(rreq);
    w->rtr_dev = rreq->words;
    w->done_dev = rreq->words + 1;
    w->same_gpu = rreq->sender_same_gpu;
    w->gpu_scope = rreq->same_gpu_data && mca_part_ucx_module.params.device_gpu_scope_fences;
    return OMPI_SUCCESS;
}

static int mca_part_ucx_recv_start(mca_part_ucx_request_t *req)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    rreq->arrived_prefix = 0;
    /* against mca_part_ucx_recv_matched on another thread: it stores the
     * setup then reads the state, this the other way round, so that at
     * least one of the two sends the ready-to-receive */
    opal_atomic_mb();
    if (MCA_PART_UCX_SETUP_DONE != req->setup) {
        return OMPI_SUCCESS; /* the match sends the RTR */
    }
    mca_part_ucx_recv_rtr_word(rreq);
    if (rreq->super.ahead) {
        mca_part_ucx_recv_take_held(req);
    }
    if (rreq->super.ahead && !rreq->exposed) {
        /* The sender needs this epoch's RTR only for the next one: it rides
         * on what this process sends the sender next, or goes from progress. */
        mca_part_ucx_recv_rtr_owe(req);
    } else {
        mca_part_ucx_send_rtr(req, true);
    }
    return OMPI_SUCCESS;
}

static bool mca_part_ucx_recv_progress(mca_part_ucx_request_t *req)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    const volatile uint64_t *flags = rreq->flags_block.addr;
    size_t p;

    if (MCA_PART_UCX_SETUP_FAILED == req->setup) {
        return true;
    }
    if (MCA_PART_UCX_SETUP_DONE != req->setup) {
        return false;
    }
    mca_part_ucx_recv_rtr_flush(req);
    while (rreq->arrived_prefix < rreq->super.remote_parts &&
           flags[rreq->arrived_prefix] >= req->epoch) {
        ++rreq->arrived_prefix;
    }
    if (rreq->arrived_prefix < rreq->super.remote_parts) {
        return false;
    }
    if (NULL != req->dev) {
        (void) mca_part_ucx_dev_failed(req); /* kernels' misuse: completes with MPI_ERR_ARG */
    }
    opal_atomic_rmb();
    for (p = 0; NULL != rreq->super.pack_buf && p < req->parts; ++p) {
        if (!mca_part_ucx_unpack(req, p)) {
            return false; /* another thread is unpacking it: not complete yet */
        }
    }
    return true;
}

static int mca_part_ucx_recv_answer(mca_part_ucx_request_t *req,
                                    const mca_part_ucx_setup_msg_t *msg, int error)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    const void *flags_rkey = NULL;
    void *buf_rkey = NULL, *words_rkey = NULL;
    size_t buf_rkey_len = 0, flags_rkey_len = 0, words_rkey_len = 0;
    mca_part_ucx_ack_msg_t *ack;
    int rc;

    if (MPI_SUCCESS == error && NULL != rreq->buf_memh &&
        UCS_OK != ucp_rkey_pack(m->context, rreq->buf_memh, &buf_rkey, &buf_rkey_len)) {
        error = MPI_ERR_INTERN;
    }
    if (MPI_SUCCESS == error && NULL != rreq->words_memh &&
        UCS_OK != ucp_rkey_pack(m->context, rreq->words_memh, &words_rkey, &words_rkey_len)) {
        words_rkey_len = 0; /* no stream words: stream-ordered epochs are refused */
    }
    if (MPI_SUCCESS == error) {
        flags_rkey = mca_part_ucx_block_rkey(&rreq->flags_block, &flags_rkey_len);
    }
    ack = calloc(1, sizeof(*ack) + buf_rkey_len + flags_rkey_len + words_rkey_len);
    if (NULL == ack) {
        if (NULL != buf_rkey) {
            ucp_rkey_buffer_release(buf_rkey);
        }
        if (NULL != words_rkey) {
            ucp_rkey_buffer_release(words_rkey);
        }
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ack->sreq_id = msg->sreq_id;
    ack->sreq_cookie = msg->sreq_cookie;
    ack->rreq_id = req->id;
    ack->rreq_cookie = req->cookie;
    ack->am = (rreq->super.am ? 1u : 0u) | (rreq->super.ahead ? MCA_PART_UCX_ACK_AHEAD : 0u);
    ack->error = error;
    ack->flags = (rreq->same_gpu_data ? MCA_PART_UCX_ACK_SAME_GPU : 0u) |
                 (rreq->rtr_am ? MCA_PART_UCX_ACK_RTR_AM : 0u);
    ack->parts = req->parts;
    ack->total_bytes = req->total_bytes;
    ack->buf_addr = (uint64_t) (uintptr_t) rreq->super.data;
    ack->buf_stride = (rreq->super.stride != req->part_bytes) ? rreq->super.stride : 0;
    ack->flags_addr = (uint64_t) (uintptr_t) rreq->flags_block.addr;
    mca_part_ucx_block_chunk(&rreq->flags_block, &ack->flags_chunk_addr, &ack->flags_chunk_size);
    ack->buf_rkey_len = (uint32_t) buf_rkey_len;
    ack->flags_rkey_len = (uint32_t) flags_rkey_len;
    if (NULL != buf_rkey) {
        memcpy(ack->rkeys, buf_rkey, buf_rkey_len);
        ucp_rkey_buffer_release(buf_rkey);
    }
    if (NULL != flags_rkey) {
        memcpy(ack->rkeys + buf_rkey_len, flags_rkey, flags_rkey_len);
    }
    if (0 != words_rkey_len) {
        ack->words_addr = (uint64_t) (uintptr_t) rreq->words;
        ack->words_rkey_len = (uint32_t) words_rkey_len;
        memcpy(ack->rkeys + buf_rkey_len + flags_rkey_len, words_rkey, words_rkey_len);
    }
    if (NULL != words_rkey) {
        ucp_rkey_buffer_release(words_rkey);
    }
    rreq->super.ctrl_msg = ack;
    rc = mca_part_ucx_ctrl_send(rreq->super.remote, MCA_PART_UCX_AM_ACK, ack,
                                sizeof(*ack) + buf_rkey_len + flags_rkey_len + words_rkey_len,
                                &rreq->super.ctrl_op);
    return rc;
}

/* Whether the sender of a setup record runs on this node. */
static bool mca_part_ucx_sender_local(const mca_part_ucx_setup_msg_t *msg)
{
    opal_proc_t *proc = ompi_proc_for_name(msg->sender);

    return NULL != proc && OPAL_PROC_ON_LOCAL_NODE(proc->proc_flags);
}

/* A strided receive (each partition contiguous, partitions apart) lands in
 * place only when the sender's partitions are ours; otherwise its byte
 * stream lands packed and each partition is unpacked, as for any
 * non-contiguous type. Called before setup completes. */
static int mca_part_ucx_recv_packed(mca_part_ucx_request_t *req)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    rreq->super.pack_buf = calloc(1, req->total_bytes); /* as in mca_part_ucx_request_setup */
    rreq->unpacked = calloc(req->parts, sizeof(uint64_t));
    if (NULL == rreq->super.pack_buf || NULL == rreq->unpacked) {
        return OMPI_ERR_OUT_OF_RESOURCE; /* freed with the request */
    }
    rreq->super.data = rreq->super.pack_buf;
    rreq->super.stride = req->part_bytes;
    MCA_PART_UCX_VERBOSE(10, "receive from rank %d tag %d: %zu strided partitions against another "
                         "sender partition count: packed", req->peer, req->tag, req->parts);
    return OMPI_SUCCESS;
}

/* How partitions move, decided by the receiver when the setup record
 * matches. UCX 1.13 puts (its v1 RMA protocols) reach user memory only
 * through network RMA lanes: between processes of one node, and for GPU
 * memory on any path it cannot prove zero-copy (cuda_ipc serves rendezvous,
 * not RMA lanes), they are emulated with active messages that copy with
 * the CPU. Such partitions go as one active message each instead: cheaper
 * for host memory on a node, and the only correct choice for GPU memory,
 * which UCX's rendezvous then moves over cuda_ipc or cuda_copy. */
static bool mca_part_ucx_use_am(mca_part_ucx_request_t *req, const mca_part_ucx_setup_msg_t *msg)
{
    if (req->device || msg->src_device) {
        if (MCA_PART_UCX_TRANSFER_PUT == mca_part_ucx_module.params.transfer) {
            MCA_PART_UCX_VERBOSE(5, "receive from rank %d tag %d: GPU memory, am instead of put",
                                 req->peer, req->tag);
        }
        return true;
    }
    switch (mca_part_ucx_module.params.transfer) {
    case MCA_PART_UCX_TRANSFER_AM:
        return true;
    case MCA_PART_UCX_TRANSFER_PUT:
        return false;
    default:
        /* puts to another node only where RDMA does them: over tcp UCX
         * emulates each put, data and flag, with a round trip */
        return mca_part_ucx_sender_local(msg) || !mca_part_ucx_module.rma_remote;
    }
}

/* The ready-to-receive as an active message where a put would be emulated
 * (no shared memory to a peer of this node, no RDMA to one of another),
 * unless kernels read the word themselves (GPU buffers: kernel copy waits
 * on it without the host). */
static bool mca_part_ucx_rtr_by_am(const mca_part_ucx_request_t *req,
                                   const mca_part_ucx_setup_msg_t *msg)
{
    /* GPU requests too: their kernels read a copy of the sender's word that
     * the sender's progress makes (mca_part_ucx_dev_rtr), whichever way the
     * word was written. */
    switch (mca_part_ucx_module.params.rtr) {
    case MCA_PART_UCX_TRANSFER_AM:
        return true;
    case MCA_PART_UCX_TRANSFER_PUT:
        return false;
    default:
        return mca_part_ucx_sender_local(msg) ? !mca_part_ucx_module.rma_local
                                              : !mca_part_ucx_module.rma_remote;
    }
}

static bool mca_part_ucx_recv_exposable(const mca_part_ucx_request_t *req,
                                        const mca_part_ucx_setup_msg_t *msg)
{
    mca_part_ucx_p2p_t *p2p = mca_part_ucx_p2p(req);
    return p2p->am && req->device && msg->src_device && p2p->contiguous &&
           req->total_bytes > 0 && mca_part_ucx_sender_local(msg);
}

/* Arrival flags in shared memory registered for the GPU, which the
 * sender's kernels may set (kernel copy). Where the registration is
 * refused the buffer stays exposed and the host sends the arrivals into
 * flags of the mapped pool instead. */
static int mca_part_ucx_recv_shared_flags(mca_part_ucx_request_t *req, size_t parts)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    int rc = mca_part_ucx_block_alloc((parts + 2) * sizeof(uint64_t), &rreq->flags_block);

    if (OMPI_SUCCESS == rc &&
        OMPI_SUCCESS != (rc = mca_part_ucx_block_device_map(&rreq->flags_block))) {
        MCA_PART_UCX_VERBOSE(5, "receive from rank %d tag %d: shared flags cannot be mapped "
                             "for the GPU", req->peer, req->tag);
        mca_part_ucx_block_free(&rreq->flags_block);
    }
    rreq->shared_flags = (OMPI_SUCCESS == rc);
    return rc;
}

/* The stream words of an exposed receive, in GPU memory the sender's
 * kernels map (cuda_ipc): zeroed, registered. Without them, stream-ordered
 * epochs are refused, nothing else changes. */
static void mca_part_ucx_recv_words(mca_part_ucx_request_t *req)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    uint64_t zero[MCA_PART_UCX_RECV_WORDS] = {0};
    void *words = NULL;

    if (OMPI_SUCCESS != mca_part_ucx_devmem_alloc(sizeof(zero), &words, &rreq->words_dev)) {
        return;
    }
    /* Not opal's copy: its stream waits for the legacy default stream,
     * which may hold work waiting for this very process (a kernel polling
     * MPIX_Parrived, a stream's wait). */
    if (OPAL_SUCCESS != mca_part_ucx_device_copy_in(words, zero, sizeof(zero)) ||
        OMPI_SUCCESS != mca_part_ucx_mem_map_gpu(words, sizeof(zero), &rreq->words_memh)) {
        rreq->words_memh = NULL;
        mca_part_ucx_devmem_free(words, sizeof(zero), rreq->words_dev);
        return;
    }
    rreq->words = words;
}

/* Register what the sender may write, answer it, and tell it we are ready
 * if MPI_Start came first. A size mismatch fails both sides. */
void mca_part_ucx_recv_matched(mca_part_ucx_post_t *post, const mca_part_ucx_setup_msg_t *msg)
{
    mca_part_ucx_recvreq_t *rreq = container_of(post, mca_part_ucx_recvreq_t, post);
    mca_part_ucx_request_t *req = &rreq->super.super;
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    ucp_mem_map_params_t params = {0};
    int error = MPI_SUCCESS;
    bool exposable = false;
    ucs_status_t status;
    int rc;

    if (MPI_SUCCESS != msg->error) { /* an unusable record, its sender told */
        mca_part_ucx_request_fail(req, msg->error);
        return;
    }
    MCA_PART_UCX_VERBOSE(10, "receive from rank %d tag %d matched: %" PRIu64 " sender partitions",
                         req->peer, req->tag, msg->parts);
    rreq->super.remote = mca_part_ucx_peer_get_by_name(&msg->sender);
    if (NULL == rreq->super.remote) {
        mca_part_ucx_request_fail(req, MPI_ERR_OTHER);
        return;
    }
    /* zero sender partitions: only an empty message */
    if (msg->total_bytes != req->total_bytes || (0 == msg->parts && 0 != msg->total_bytes) ||
        msg->parts > INT_MAX) {
        error = MPI_ERR_TRUNCATE;
    }
    if (MPI_SUCCESS == error && rreq->super.stride != req->part_bytes && msg->parts != req->parts &&
        OMPI_SUCCESS != mca_part_ucx_recv_packed(req)) {
        error = MPI_ERR_NO_MEM;
    }
    if (MPI_SUCCESS == error) {
        rreq->super.remote_parts = msg->parts;
        rreq->remote_rtr = msg->rtr_addr;
        rreq->super.am = mca_part_ucx_use_am(req, msg);
        rreq->rtr_am = mca_part_ucx_rtr_by_am(req, msg);
        /* small epochs only (part_ucx_epoch_ahead_bytes); a sender's
         * kernels that copy into an exposed GPU buffer wait for the
         * ready-to-receive of the epoch itself (mca_part_ucx_recv_start) */
        rreq->super.ahead = rreq->super.am && rreq->rtr_am &&
                     req->total_bytes <= (size_t) mca_part_ucx_module.params.epoch_ahead_bytes &&
                     mca_part_ucx_module.params.epoch_ahead_bytes > 0;
        rreq->rtr_msg.sreq_id = msg->sreq_id;
        rreq->rtr_msg.sreq_cookie = msg->sreq_cookie;
        MCA_PART_UCX_VERBOSE(10,
                             "receive from rank %d tag %d: data by %s, ready-to-receive by %s%s",
                             req->peer, req->tag, rreq->super.am ? "active message" : "put",
                             rreq->rtr_am ? "active message" : "put",
                             rreq->super.ahead ? ", senders one epoch ahead" : "");
        /* GPU buffers: the am transfer sets flags locally; keep them where
         * kernels (MPIX_Parrived) can read them too: pinned and mapped, and
         * where the sender's kernels may store partitions here (exposed),
         * in shared memory, so that they set the flags themselves. */
        exposable = mca_part_ucx_recv_exposable(req, msg);
        rc = exposable ? mca_part_ucx_recv_shared_flags(req, msg->parts) : OMPI_ERROR;
        if (OMPI_SUCCESS != rc) {
            size_t flags_bytes = (msg->parts > 0 ? msg->parts : 1) * sizeof(uint64_t);
            rc = (rreq->super.am && req->device)
                     ? mca_part_ucx_block_alloc_mapped(flags_bytes, &rreq->flags_block)
                     : mca_part_ucx_block_alloc(flags_bytes, &rreq->flags_block);
        }
        if (OMPI_SUCCESS != rc) {
            error = MPI_ERR_NO_MEM;
        }
    }
    if (MPI_SUCCESS == error && req->total_bytes > 0 && !rreq->super.am) {
        params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
        params.address = rreq->super.data;
        /* strided: the span */
        params.length = (req->parts - 1) * rreq->super.stride + req->part_bytes;
        status = ucp_mem_map(m->context, &params, &rreq->buf_memh);
        if (UCS_OK != status) {
            MCA_PART_UCX_ERROR("registering the receive buffer failed: %s",
                               ucs_status_string(status));
            error = MPI_ERR_INTERN;
        }
    } else if (MPI_SUCCESS == error && exposable) {
        /* GPU to GPU on one node: offer the buffer's cuda_ipc key, so that
         * the sender's kernels may store partitions straight into it. */
        rreq->exposed = (OMPI_SUCCESS == mca_part_ucx_mem_map_gpu(rreq->super.data,
                                                                  req->total_bytes,
                                                                  &rreq->buf_memh));
        rreq->sender_stream_only = 0 != (msg->src_device & MCA_PART_UCX_SRC_STREAM_ONLY);
        rreq->sender_stream_copy = 0 != (msg->src_device & MCA_PART_UCX_SRC_STREAM_COPY);
        rreq->sender_same_gpu = 0 != msg->src_gpu && mca_part_ucx_gpu_id() == msg->src_gpu;
        rreq->same_gpu_data = rreq->sender_same_gpu &&
                              mca_part_ucx_on_this_gpu(rreq->super.data);
        if (rreq->exposed && rreq->shared_flags &&
            (msg->src_device & (MCA_PART_UCX_SRC_KERNEL_COPY | MCA_PART_UCX_SRC_STREAM_COPY))) {
            mca_part_ucx_recv_words(req);
        }
    }
    if (MPI_SUCCESS == error &&
        OMPI_SUCCESS != mca_part_ucx_peer_rkey(rreq->super.remote, 0, msg->rtr_rkey,
                                               msg->rtr_rkey_len, &rreq->super.rtr_rkey)) {
        error = MPI_ERR_INTERN;
    }

    if (MPI_SUCCESS == error) {
        /* Done before the answer: one epoch ahead, data may follow it at
         * once, and a handler on another thread must take it. */
        opal_atomic_wmb();
        req->setup = MCA_PART_UCX_SETUP_DONE;
        opal_atomic_mb(); /* before the state is read: see mca_part_ucx_recv_start */
    }
    rc = mca_part_ucx_recv_answer(req, msg, error);
    if (MPI_SUCCESS != error || OMPI_SUCCESS != rc) {
        mca_part_ucx_request_fail(req, (MPI_SUCCESS != error) ? error : MPI_ERR_INTERN);
        return;
    }
    if (OMPI_REQUEST_ACTIVE == req->super.req_state) {
        mca_part_ucx_recv_rtr_word(rreq);
        mca_part_ucx_send_rtr(req, true);
    }
}

/* MPIX_Pbuf_prepare: the sender learns readiness from the ready-to-receive,
 * so this makes sure it is out. */
static int mca_part_ucx_recv_prepare(mca_part_ucx_request_t *req)
{
    while (MCA_PART_UCX_SETUP_PENDING == req->setup) {
        opal_progress();
    }
    if (MCA_PART_UCX_SETUP_FAILED == req->setup) {
        return req->error;
    }
    mca_part_ucx_recv_rtr_flush(req);
    mca_part_ucx_recv_rtr_wait(req);
    return MPI_SUCCESS;
}

static void mca_part_ucx_recv_release(mca_part_ucx_request_t *req);

/* A receive never matched leaves a tombstone in its place. */
static void mca_part_ucx_recv_withdraw(mca_part_ucx_request_t *req)
{
    mca_part_ucx_match_withdraw(&mca_part_ucx_recvreq(req)->post);
}

/* Partitions arrived this epoch. */
static void mca_part_ucx_recv_dump(const mca_part_ucx_request_t *req)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    const volatile uint64_t *flags = rreq->flags_block.addr;
    size_t p, arrived = 0;

    for (p = 0; NULL != flags && p < rreq->super.remote_parts; ++p) {
        arrived += (flags[p] >= req->epoch);
    }
    mca_part_ucx_dump_line("  receive: %zu of %zu sender partitions arrived, exposed %d, "
                           "prefix %zu",
                           arrived, rreq->super.remote_parts, (int) rreq->exposed,
                           rreq->arrived_prefix);
}

static const mca_part_ucx_request_ops_t mca_part_ucx_recv_ops = {
    .start = mca_part_ucx_recv_start,
    .progress = mca_part_ucx_recv_progress,
    .withdraw = mca_part_ucx_recv_withdraw,
    .release = mca_part_ucx_recv_release,
    .parrived = mca_part_ucx_recv_parrived,
    .prepare = mca_part_ucx_recv_prepare,
    .setup_pending = mca_part_ucx_p2p_setup_pending,
    .dump = mca_part_ucx_recv_dump,
};

int mca_part_ucx_precv_init(void *buf, size_t parts, size_t count, ompi_datatype_t *datatype,
                            int src, int tag, ompi_communicator_t *comm, ompi_info_t *info,
                            ompi_request_t **request)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_recvreq_t *rreq;
    mca_part_ucx_request_t *req;
    int rc;

    rc = mca_part_ucx_check_args(buf, parts, count, datatype, src, tag, comm);
    if (MPI_SUCCESS != rc) {
        return rc;
    }

    rreq = OBJ_NEW(mca_part_ucx_recvreq_t);
    if (NULL == rreq) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    req = &rreq->super.super;
    rc = mca_part_ucx_request_setup(req, MCA_PART_UCX_RECV, &mca_part_ucx_recv_ops, buf, parts,
                                    count, datatype, src, tag, comm);
    req->source = src;
    if (OMPI_SUCCESS == rc && NULL != rreq->super.pack_buf) {
        rreq->unpacked = calloc(parts, sizeof(uint64_t));
        rc = (NULL == rreq->unpacked) ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    if (OMPI_SUCCESS != rc) {
        ompi_request_t *r = &req->super;
        (void) req->super.req_free(&r);
        return MPI_ERR_NO_MEM;
    }
    /* Its epochs are only enqueued (as a send's with the key): device
     * MPIX_Parrived then takes the epoch from the GPU word its stream
     * writes at each start, not from host memory. */
    rc = mca_part_ucx_info_bool(info, "mpix_stream_kernels", &req->stream_only);
    if (MPI_SUCCESS != rc) {
        ompi_request_t *r = &req->super;
        (void) req->super.req_free(&r);
        return rc;
    }
    if (MPI_PROC_NULL == src) {
        req->proc_null = true;
        req->setup = MCA_PART_UCX_SETUP_DONE;
    } else {
        OPAL_THREAD_LOCK(&m->lock);
        if (req->device && mca_part_ucx_module.params.device_arrivals) {
            /* where a sender's kernels will set our flags (kernel copy) */
            mca_part_ucx_mem_device_warm();
        }
        if (req->device) {
            mca_part_ucx_device_copy_in_warm(); /* eager GPU data is copied in a callback */
        }
        if (NULL == mca_part_ucx_comm_state(comm)) {
            /* only what a freed communicator leaves behind stays longer */
            MCA_PART_UCX_VERBOSE(5, "communicator %s not tracked for its free", comm->c_name);
        }
        rc = mca_part_ucx_match_posted(&rreq->post, comm, src, tag);
        OPAL_THREAD_UNLOCK(&m->lock);
        if (OMPI_SUCCESS != rc) {
            ompi_request_t *r = &req->super;
            (void) req->super.req_free(&r);
            return MPI_ERR_NO_MEM;
        }
    }
    *request = &req->super;
    return OMPI_SUCCESS;
}

static void mca_part_ucx_recv_release(mca_part_ucx_request_t *req)
{
    mca_part_ucx_recvreq_t *rreq = mca_part_ucx_recvreq(req);
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_held_t *h;

    mca_part_ucx_recv_rtr_wait(req);
    if (0 != rreq->remote_rtr && NULL != rreq->super.remote) {
        /* matched: its sender gives its word to another send only now */
        mca_part_ucx_ctrl_rtr_released(rreq->super.remote, &rreq->rtr_msg,
                                       0 != rreq->rtr_value);
    }
    rreq->super.rtr_rkey = NULL; /* the peer's (mca_part_ucx_peer_rkey) */
    if (NULL != rreq->super.remote) {
        opal_atomic_lock(&rreq->super.remote->rtr_lock);
        if (rreq->super.remote->rtr_owed_req == rreq) {
            rreq->super.remote->rtr_owed_req = NULL;
        }
        opal_atomic_unlock(&rreq->super.remote->rtr_lock);
    }
    while (NULL != (h = rreq->early_msgs)) { /* a next epoch this receive never started */
        rreq->early_msgs = h->next;
        mca_part_ucx_held_drop(h);
    }
    if (NULL != rreq->buf_memh) {
        ucp_mem_unmap(m->context, rreq->buf_memh);
    }
    if (NULL != rreq->words_memh) {
        ucp_mem_unmap(m->context, rreq->words_memh);
        mca_part_ucx_devmem_free(rreq->words, MCA_PART_UCX_RECV_WORDS * sizeof(uint64_t),
                                 rreq->words_dev);
    }
    OPAL_THREAD_LOCK(&m->lock);
    mca_part_ucx_block_free(&rreq->flags_block);
    OPAL_THREAD_UNLOCK(&m->lock);
    free((void *) rreq->unpacked);
    mca_part_ucx_p2p_release(&rreq->super);
}
