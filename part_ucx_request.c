/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#include "ompi_config.h"

#include "ompi/communicator/communicator.h"
#include "ompi/mca/pml/pml.h"

#include "part_ucx.h"
#include "part_ucx_request.h"
#include "part_ucx_device_plugin.h"
#include "opal/util/info.h"
#include "ompi/info/info.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int mca_part_ucx_request_free(ompi_request_t **request);
static int mca_part_ucx_request_cancel(ompi_request_t *request, int complete);

static void mca_part_ucx_request_construct(mca_part_ucx_request_t *req)
{
    memset((char *) req + sizeof(req->super), 0, sizeof(*req) - sizeof(req->super));
    req->super.req_type = OMPI_REQUEST_PART;
    req->super.req_start = mca_part_ucx_start;
    req->super.req_free = mca_part_ucx_request_free;
    req->super.req_cancel = mca_part_ucx_request_cancel;
    req->id = -1;
}

OBJ_CLASS_INSTANCE(mca_part_ucx_request_t, ompi_request_t, mca_part_ucx_request_construct, NULL);

/* Each kind's fields start zeroed, after its parent's constructor ran. */
#define MCA_PART_UCX_ZERO_BELOW(_obj, _parent) \
    memset((char *) (_obj) + sizeof(_parent), 0, sizeof(*(_obj)) - sizeof(_parent))

static void mca_part_ucx_sendreq_construct(mca_part_ucx_sendreq_t *sreq)
{
    MCA_PART_UCX_ZERO_BELOW(sreq, mca_part_ucx_request_t);
    opal_atomic_lock_init(&sreq->hcopy_lock, OPAL_ATOMIC_LOCK_UNLOCKED);
}

static void mca_part_ucx_recvreq_construct(mca_part_ucx_recvreq_t *rreq)
{
    MCA_PART_UCX_ZERO_BELOW(rreq, mca_part_ucx_request_t);
    opal_atomic_lock_init(&rreq->early_msgs_lock, OPAL_ATOMIC_LOCK_UNLOCKED);
    opal_atomic_lock_init(&rreq->rtr_op_lock, OPAL_ATOMIC_LOCK_UNLOCKED);
}

static void mca_part_ucx_collreq_construct(mca_part_ucx_collreq_t *creq)
{
    MCA_PART_UCX_ZERO_BELOW(creq, mca_part_ucx_request_t);
}

OBJ_CLASS_INSTANCE(mca_part_ucx_sendreq_t, mca_part_ucx_request_t,
                   mca_part_ucx_sendreq_construct, NULL);
OBJ_CLASS_INSTANCE(mca_part_ucx_recvreq_t, mca_part_ucx_request_t,
                   mca_part_ucx_recvreq_construct, NULL);
OBJ_CLASS_INSTANCE(mca_part_ucx_collreq_t, mca_part_ucx_request_t,
                   mca_part_ucx_collreq_construct, NULL);

/* 64 bits: a request id reused within a process's life never comes back
 * with a cookie an old message could carry. */
static opal_atomic_int64_t mca_part_ucx_cookie;

/* The MPI layer checks only the request pointer for the partitioned init
 * calls; everything else is checked here. Receives name their peer and tag:
 * no wildcards (MPI 4.1, section 4.2.2). */
int mca_part_ucx_check_args(const void *buf, size_t parts, size_t count,
                            ompi_datatype_t *datatype, int peer, int tag,
                            ompi_communicator_t *comm)
{
    ptrdiff_t true_lb, true_extent;
    size_t type_size;

    if (ompi_comm_invalid(comm)) {
        return MPI_ERR_COMM;
    }
    if (MPI_ANY_SOURCE == peer) {
        return MPI_ERR_RANK;
    }
    if (MPI_PROC_NULL != peer && ompi_comm_peer_invalid(comm, peer)) {
        return MPI_ERR_RANK;
    }
    if (MPI_ANY_TAG == tag || tag < 0 || tag > mca_pml.pml_max_tag) {
        return MPI_ERR_TAG;
    }
    /* "partitions" is a non-negative integer (MPI 4.1, section 4.2.2):
     * zero partitions make an empty message, completed by start and wait */
    if (parts > INT_MAX) {
        return MPI_ERR_ARG;
    }
    if (NULL == datatype || MPI_DATATYPE_NULL == datatype ||
        !opal_datatype_is_committed(&datatype->super)) {
        return MPI_ERR_TYPE;
    }
    ompi_datatype_type_size(datatype, &type_size);
    if (parts > 0 && count > (size_t) PTRDIFF_MAX / parts / (type_size ? type_size : 1)) {
        return MPI_ERR_COUNT;
    }
    /* As the point-to-point bindings check user buffers: a NULL buffer
     * with data to move is an error unless the datatype addresses memory
     * absolutely (MPI_BOTTOM). A null peer moves nothing. */
    ompi_datatype_get_true_extent(datatype, &true_lb, &true_extent);
    if (NULL == buf && MPI_PROC_NULL != peer && parts > 0 && count > 0 && type_size > 0 &&
        0 == true_lb) {
        return MPI_ERR_BUFFER;
    }
    return MPI_SUCCESS;
}

mca_part_ucx_request_t *mca_part_ucx_request_lookup(int32_t id, uint64_t cookie)
{
    mca_part_ucx_request_t *req;

    if (id < 0) {
        return NULL;
    }
    req = opal_pointer_array_get_item(&mca_part_ucx_module.requests, id);
    return (NULL != req && req->cookie == cookie) ? req : NULL;
}

mca_part_ucx_request_t *mca_part_ucx_request_get(int32_t id, uint64_t cookie)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_request_t *req;

    opal_atomic_lock(&m->requests_lock);
    req = mca_part_ucx_request_lookup(id, cookie);
    if (NULL != req) {
        opal_atomic_add_fetch_32(&req->handlers, 1);
    }
    opal_atomic_unlock(&m->requests_lock);
    return req;
}

void mca_part_ucx_request_put(mca_part_ucx_request_t *req)
{
    opal_atomic_wmb(); /* what the callback wrote, before the release sees it gone */
    opal_atomic_add_fetch_32(&req->handlers, -1);
}

void mca_part_ucx_request_init_base(mca_part_ucx_request_t *req, mca_part_ucx_kind_t kind,
                                    const mca_part_ucx_request_ops_t *ops, size_t parts,
                                    size_t count, ompi_datatype_t *datatype, int peer,
                                    ompi_communicator_t *comm)
{
    size_t type_size;
    ptrdiff_t lb;

    OMPI_REQUEST_INIT(&req->super, true);
    req->super.req_mpi_object.comm = comm;
    req->kind = kind;
    req->ops = ops;
    req->takes_pready = (NULL != ops->pready);
    req->source = comm->c_my_rank;
    req->comm = comm;
    req->peer = peer;
    req->parts = parts;
    req->count = count;
    req->datatype = datatype;
    req->error = MPI_SUCCESS;
    OBJ_RETAIN(comm);
    OMPI_DATATYPE_RETAIN(datatype);
    ompi_datatype_type_size(datatype, &type_size);
    ompi_datatype_get_extent(datatype, &lb, &req->extent);
    req->part_bytes = type_size * count;
    req->total_bytes = req->part_bytes * parts;
}

int mca_part_ucx_request_register(mca_part_ucx_request_t *req)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;

    req->cookie = (uint64_t) opal_atomic_add_fetch_64(&mca_part_ucx_cookie, 1);
    OPAL_THREAD_LOCK(&m->lock);
    opal_atomic_lock(&m->requests_lock);
    req->id = opal_pointer_array_add(&m->requests, req);
    opal_atomic_unlock(&m->requests_lock);
    OPAL_THREAD_UNLOCK(&m->lock);
    return (req->id < 0) ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

/* Whether n elements of the datatype are contiguous in memory: for n >= 2
 * exactly when 2 are, so n is never narrowed to the int32 the datatype
 * engine takes. */
static bool mca_part_ucx_contiguous(ompi_datatype_t *datatype, size_t n)
{
    return ompi_datatype_is_contiguous_memory_layout(datatype, (int32_t) (n < 2 ? n : 2));
}

int mca_part_ucx_request_setup(mca_part_ucx_request_t *req, mca_part_ucx_kind_t kind,
                               const mca_part_ucx_request_ops_t *ops, const void *buf,
                               size_t parts, size_t count, ompi_datatype_t *datatype, int peer,
                               int tag, ompi_communicator_t *comm)
{
    mca_part_ucx_p2p_t *p2p = mca_part_ucx_p2p(req);
    ptrdiff_t true_lb, true_extent;
    int nw = mca_part_ucx_module.num_workers;

    mca_part_ucx_request_init_base(req, kind, ops, parts, count, datatype, peer, comm);
    req->tag = tag;
    req->buf = (void *) buf;
    ompi_datatype_get_true_extent(datatype, &true_lb, &true_extent);
    p2p->contiguous = mca_part_ucx_contiguous(datatype, count * parts);
    p2p->data = (char *) buf + true_lb;
    req->device = mca_part_ucx_is_device(p2p->data, req->total_bytes);
    req->setup = MCA_PART_UCX_SETUP_PENDING;

    p2p->stride = req->part_bytes;
    if (!p2p->contiguous && parts > 1 && req->extent > 0 &&
        mca_part_ucx_contiguous(datatype, count)) {
        /* Each partition contiguous, partitions apart (a resized type):
         * moved in place, partition by partition. */
        p2p->stride = count * (size_t) req->extent;
        MCA_PART_UCX_VERBOSE(10, "partitions of %zu bytes, %zu apart: moved in place",
                             req->part_bytes, p2p->stride);
    } else if (!p2p->contiguous && req->total_bytes > 0) {
        /* zeroed: peers write it by RMA, which memory checkers cannot see */
        p2p->pack_buf = calloc(1, req->total_bytes);
        if (NULL == p2p->pack_buf) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        p2p->data = p2p->pack_buf;
    }

    p2p->buf_rkeys = calloc(nw, sizeof(ucp_rkey_h));
    p2p->flags_rkeys = calloc(nw, sizeof(ucp_rkey_h));
    if (NULL == p2p->buf_rkeys || NULL == p2p->flags_rkeys) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }

    return mca_part_ucx_request_register(req);
}

static void mca_part_ucx_request_release(mca_part_ucx_request_t *req)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    int i;

    if (NULL != req->stream_event) {
        mca_part_ucx_device_event_put(req->stream_event); /* complete: see _request_free */
        req->stream_event = NULL;
    }
    if (NULL != req->dev) {
        req->dev_ops->release(req); /* a device request not freed by the user */
    }
    OPAL_THREAD_LOCK(&m->lock);
    mca_part_ucx_request_drive_off(req);
    mca_part_ucx_block_free(&req->stream_words);
    if (NULL != req->ops && NULL != req->ops->withdraw) {
        req->ops->withdraw(req); /* e.g. a receive never matched */
    }
    if (req->id >= 0) {
        opal_atomic_lock(&m->requests_lock);
        opal_pointer_array_set_item(&m->requests, req->id, NULL);
        opal_atomic_unlock(&m->requests_lock);
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    /* No callback finds it any more; one that did (a late ready-to-receive,
     * a partition message on another thread, a rendezvous still fetching
     * data of a failed epoch) may still be writing into it: wait for it. */
    while (0 != req->handlers) {
        for (i = 0; i < m->num_workers; ++i) {
            ucp_worker_progress(m->workers[i]);
        }
    }
    opal_atomic_rmb();

    if (NULL != req->ops) { /* NULL: its init failed before it had a kind */
        req->ops->release(req);
    }
    OMPI_DATATYPE_RELEASE(req->datatype);
    OBJ_RELEASE(req->comm);
}

void mca_part_ucx_p2p_release(mca_part_ucx_p2p_t *p2p)
{
    int i;

    mca_part_ucx_op_release(&p2p->ctrl_op);
    free(p2p->ctrl_msg);
    for (i = 0; NULL != p2p->buf_rkeys && i < mca_part_ucx_module.num_workers; ++i) {
        if (NULL != p2p->buf_rkeys[i]) {
            ucp_rkey_destroy(p2p->buf_rkeys[i]);
        }
        /* flags_rkeys[i] belong to the peer (mca_part_ucx_peer_rkey) */
    }
    free(p2p->buf_rkeys);
    free(p2p->flags_rkeys);
    free(p2p->pack_buf);
}

/* MPI 4.1: freeing or cancelling an active partitioned request is
 * erroneous; report it instead of tearing down memory a peer writes. */
static int mca_part_ucx_request_free(ompi_request_t **request)
{
    mca_part_ucx_request_t *req = (mca_part_ucx_request_t *) *request;

    /* A request complete but not waited for (its MPI_Start failed, say) has
     * nothing under way any more; a collective only once it failed (its
     * channels may still be busy after it completed). Enqueued epochs end
     * on the host only in MPI_Wait/MPI_Test: the host never sees where the
     * stream is, so nothing else tells it that none is under way. */
    if (OMPI_REQUEST_ACTIVE == req->super.req_state &&
        (REQUEST_COMPLETED != req->super.req_complete || mca_part_ucx_link_linked(&req->link) ||
         req->enqueued || (NULL != req->ops->idle && !req->ops->idle(req)))) {
        return MPI_ERR_REQUEST;
    }
    mca_part_ucx_request_release(req);
    OBJ_RELEASE(req);
    *request = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int mca_part_ucx_request_cancel(ompi_request_t *request, int complete)
{
    return (OMPI_REQUEST_ACTIVE == request->req_state) ? MPI_ERR_REQUEST : OMPI_SUCCESS;
}

void mca_part_ucx_request_activate(mca_part_ucx_request_t *req)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;

    OPAL_THREAD_LOCK(&m->lock);
    if (!mca_part_ucx_link_linked(&req->link)) {
        mca_part_ucx_link_append(&m->active, &req->link);
        opal_atomic_add_fetch_32(&m->num_active, 1);
    }
    OPAL_THREAD_UNLOCK(&m->lock);
}

void mca_part_ucx_request_drive_on(mca_part_ucx_request_t *req)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;

    if (!mca_part_ucx_link_linked(&req->drive_link)) {
        mca_part_ucx_link_append(&m->driven, &req->drive_link);
        opal_atomic_add_fetch_32(&m->num_driven, 1);
    }
}

void mca_part_ucx_request_drive_off(mca_part_ucx_request_t *req)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;

    if (mca_part_ucx_link_linked(&req->drive_link)) {
        mca_part_ucx_link_remove(&req->drive_link);
        opal_atomic_add_fetch_32(&m->num_driven, -1);
    }
    req->driven = false;
    req->drive_state = MCA_PART_UCX_DRIVE_IDLE;
}

void mca_part_ucx_request_complete(mca_part_ucx_request_t *req)
{
    ompi_status_public_t *status = &req->super.req_status;

    if (req->proc_null) {
        status->MPI_SOURCE = MPI_PROC_NULL;
        status->MPI_TAG = MPI_ANY_TAG;
        status->_ucount = 0;
    } else {
        status->MPI_SOURCE = req->source;
        status->MPI_TAG = req->tag;
        status->_ucount = req->total_bytes;
    }
    status->MPI_ERROR = req->error;
    status->_cancelled = 0;
    ompi_request_complete(&req->super, true);
}

void mca_part_ucx_request_fail(mca_part_ucx_request_t *req, int error)
{
    MCA_PART_UCX_VERBOSE(1, "request to/from rank %d tag %d failed: error class %d", req->peer,
                         req->tag, error);
    req->error = error;
    req->setup = MCA_PART_UCX_SETUP_FAILED;
}

/* The request's next epoch begins on this side (MPI_Start, or a stream's
 * start the host runs); a kind's failure fails the request (MPI class). */
static int mca_part_ucx_request_begin(mca_part_ucx_request_t *req)
{
    int rc;

    /* Callbacks on other threads read the epoch (a late ready-to-receive,
     * an early partition, a setup answer): the new one is seen whole, and
     * before anything this start sends. */
    opal_atomic_add_fetch_64((opal_atomic_int64_t *) &req->epoch, 1);
    if (NULL != req->dev) {
        req->dev_ops->start(req);
    }
    if (req->proc_null) {
        return OMPI_SUCCESS;
    }
    rc = req->ops->start(req);
    if (OMPI_SUCCESS != rc) {
        rc = (rc < 0) ? ((OMPI_ERR_OUT_OF_RESOURCE == rc) ? MPI_ERR_NO_MEM : MPI_ERR_INTERN) : rc;
        mca_part_ucx_request_fail(req, rc);
    }
    return rc;
}

int mca_part_ucx_start(size_t count, ompi_request_t **requests)
{
    mca_part_ucx_request_t *req;
    size_t i;
    int rc, first_error = OMPI_SUCCESS;

    /* Starting an active request is erroneous: then none starts (MPI_Startall
     * must not leave some of its requests started and others not). */
    for (i = 0; i < count; ++i) {
        req = (mca_part_ucx_request_t *) requests[i];
        if (NULL != req && OMPI_REQUEST_PART == req->super.req_type &&
            OMPI_REQUEST_ACTIVE == req->super.req_state) {
            return MPI_ERR_REQUEST;
        }
    }
    for (i = 0; i < count; ++i) {
        req = (mca_part_ucx_request_t *) requests[i];
        if (NULL == req || OMPI_REQUEST_PART != req->super.req_type) {
            continue;
        }
        req->super.req_state = OMPI_REQUEST_ACTIVE;
        req->super.req_status.MPI_ERROR = OMPI_SUCCESS;
        req->super.req_status._cancelled = 0;
        req->super.req_complete = REQUEST_PENDING;
        if (req->stream_only) {
            /* A send declared stream-only (info "mpix_stream_kernels")
             * never starts on the host: it completes at once with
             * MPI_ERR_REQUEST, which MPI_Wait reports (MPI_Startall drops
             * its callee's return code), and is otherwise unchanged. */
            int error = req->error;

            req->error = MPI_ERR_REQUEST;
            mca_part_ucx_request_complete(req);
            req->error = error;
            first_error = (OMPI_SUCCESS == first_error) ? MPI_ERR_REQUEST : first_error;
            continue;
        }
        if (NULL != req->stream_epoch) {
            /* after stream-ordered epochs (complete: the request is not
             * active): a graph's replays counted epochs the host never
             * saw, also where the host started the epochs before them */
            req->epoch = (*req->stream_epoch > req->epoch) ? *req->stream_epoch : req->epoch;
        }
        /* A request whose epochs the host ran in stream order stays on
         * the driven list (its state is idle: the last such epoch is
         * complete): a graph captured before may replay starts after this
         * epoch, which the progress thread must see (their start words
         * pass this epoch only then). */
        req->enqueued = false;
        req->stream_done = NULL;
        rc = mca_part_ucx_request_begin(req);
        if (NULL != req->stream_words.addr) {
            /* a graph captured before counts on from this epoch: its
             * starts take the next one (stream_start_counted's pair) */
            volatile uint64_t *words = req->stream_words.addr;

            words[MCA_PART_UCX_STREAM_COUNT] = req->epoch;
            words[MCA_PART_UCX_STREAM_NEXT] = req->epoch + 1;
        }
        if (req->proc_null) {
            /* MPI_PROC_NULL: complete at once with the empty status. */
            mca_part_ucx_request_complete(req);
            continue;
        }
        if (OMPI_SUCCESS != rc) {
            /* Started and failed: complete with the error, which MPI_Wait
             * reports (MPI_Startall drops its callee's return code); the
             * request is left failed, as one whose setup failed. The others
             * start all the same. */
            mca_part_ucx_request_complete(req);
            if (OMPI_SUCCESS == first_error) {
                first_error = rc;
            }
            continue;
        }
        mca_part_ucx_request_activate(req);
    }
    return first_error;
}

int mca_part_ucx_request_dev_info(mca_part_ucx_request_t *req, ompi_info_t *info)
{
    int threads = 1, rc;

    req->pready_aggregate = mca_part_ucx_module.params.pready_aggregate;
    rc = mca_part_ucx_info_enum(info, "mpix_pready_aggregate", MCA_PART_UCX_ENUM_PREADY_AGGREGATE,
                                &req->pready_aggregate);
    if (MPI_SUCCESS == rc) {
        rc = mca_part_ucx_info_int(info, "mpix_pready_threads", 1, &threads);
    }
    req->pready_threads = (uint32_t) threads;
    return rc;
}

bool mca_part_ucx_p2p_setup_pending(const mca_part_ucx_request_t *req)
{
    return !req->proc_null && MCA_PART_UCX_SETUP_PENDING == req->setup;
}

int mca_part_ucx_pbuf_prepare(ompi_request_t *request)
{
    mca_part_ucx_request_t *req = (mca_part_ucx_request_t *) request;

    if (NULL == request || OMPI_REQUEST_PART != request->req_type ||
        mca_part_ucx_start != request->req_start ||
        OMPI_REQUEST_ACTIVE != request->req_state) {
        return MPI_ERR_REQUEST;
    }
    if (req->enqueued) {
        return MPI_SUCCESS; /* kernels of a stream-ordered epoch wait for the receiver */
    }
    return req->proc_null ? MPI_SUCCESS : req->ops->prepare(req);
}

/* Stream-ordered epochs that need a host (part_ucx_stream.c), one at a
 * time, in order: an epoch under way is progressed here, under the module
 * lock, and once complete (or failed: the error is the request's), its
 * done word lets the stream go on. */
static void mca_part_ucx_request_drive(mca_part_ucx_request_t *req)
{
    volatile uint64_t *words = req->stream_words.addr;

    if (req->driven && MCA_PART_UCX_DRIVE_RUNNING == req->drive_state &&
        (req->proc_null || req->ops->progress(req))) {
        req->drive_state = MCA_PART_UCX_DRIVE_IDLE;
        opal_atomic_wmb(); /* the epoch's data and state before the word */
        words[MCA_PART_UCX_STREAM_DONE] = req->epoch;
    }
}

/* ... and once the stream has reached the next one's start, it begins
 * here, outside the lock, as MPI_Start would begin it (a kind's start may
 * progress UCX, whose callbacks take the lock). */
void mca_part_ucx_request_drive_begin(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_request_t *due[16], *req;
    mca_part_ucx_link_t *item;
    volatile uint64_t *words;
    size_t n = 0, i;

    if (0 == m->num_driven) {
        return;
    }
    OPAL_THREAD_LOCK(&m->lock);
    for (item = m->driven.next; item != &m->driven && n < 16; item = item->next) {
        req = container_of(item, mca_part_ucx_request_t, drive_link);
        words = req->stream_words.addr;
        if (req->driven && MCA_PART_UCX_DRIVE_IDLE == req->drive_state &&
            words[MCA_PART_UCX_STREAM_START] > req->epoch) {
            req->drive_state = MCA_PART_UCX_DRIVE_BEGINNING;
            due[n++] = req;
        }
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    opal_atomic_rmb(); /* what came before the stream's start */
    for (i = 0; i < n; ++i) {
        bool ok = (OMPI_SUCCESS == mca_part_ucx_request_begin(due[i]));

        OPAL_THREAD_LOCK(&m->lock);
        if (ok) {
            due[i]->drive_state = MCA_PART_UCX_DRIVE_RUNNING;
        } else {
            due[i]->drive_state = MCA_PART_UCX_DRIVE_IDLE;
            ((volatile uint64_t *) due[i]->stream_words.addr)[MCA_PART_UCX_STREAM_DONE] =
                due[i]->epoch;
        }
        OPAL_THREAD_UNLOCK(&m->lock);
    }
}

/* A stream-ordered epoch, which no host progresses: complete on this side
 * once its done word says so, and, so that its memory may be freed, once
 * the stream is past the last work it was given for the request. */
static bool mca_part_ucx_request_stream_done(mca_part_ucx_request_t *req)
{
    const mca_part_ucx_device_ops_t *gpu = mca_part_ucx_device();
    int done;

    if (*req->stream_done < *req->stream_epoch && !req->stream_event_waited) {
        return false;
    }
    done = (NULL == req->stream_event || NULL == gpu) ? 1 : gpu->event_query(req->stream_event);
    if (0 == done) {
        return false;
    }
    if (done < 0 && MPI_SUCCESS == req->error) {
        req->error = MPI_ERR_INTERN;
    }
    opal_atomic_rmb(); /* the data before what follows the completion */
    if (NULL != req->dev) {
        (void) mca_part_ucx_dev_failed(req); /* kernels' misuse: MPI_ERR_ARG */
    }
    return true;
}

void mca_part_ucx_dump_line(const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    (void) vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "part/ucx dump %d: %s\n", (int) getpid(), line);
}

static void mca_part_ucx_dump_one(const char *list, const mca_part_ucx_request_t *req)
{
    const volatile uint64_t *w = req->stream_words.addr;

    mca_part_ucx_dump_line(
            "%s request %p kind %d peer %d tag %d parts %zu: epoch %" PRIu64
            " state %d complete %d setup %d error %d; enqueued %d starts %" PRIu64
            " waits %" PRIu64 " driven %d drive_state %d enq_epoch %" PRIu64
            " words count/start/done %" PRIu64 "/%" PRIu64 "/%" PRIu64
            " stream_epoch %" PRIu64 " stream_done %" PRIu64,
            list, (void *) req, (int) req->kind, req->peer, req->tag, req->parts,
            req->epoch, (int) req->super.req_state, (int) REQUEST_COMPLETE(&req->super),
            req->setup, req->error, (int) req->enqueued, req->starts, req->waits,
            (int) req->driven, req->drive_state, req->enq_epoch,
            (NULL == w) ? 0 : w[MCA_PART_UCX_STREAM_COUNT],
            (NULL == w) ? 0 : w[MCA_PART_UCX_STREAM_START],
            (NULL == w) ? 0 : w[MCA_PART_UCX_STREAM_DONE],
            (NULL == req->stream_epoch) ? 0 : *req->stream_epoch,
            (NULL == req->stream_done) ? 0 : *req->stream_done);
    if (NULL != req->ops && NULL != req->ops->dump) {
        req->ops->dump(req);
    }
}

void mca_part_ucx_request_dump(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_link_t *item;

    if (!m->initialized) {
        return;
    }
    mca_part_ucx_dump_line("%d active, %d driven", (int) m->num_active, (int) m->num_driven);
    for (item = m->active.next; NULL != item && item != &m->active; item = item->next) {
        mca_part_ucx_dump_one("active", container_of(item, mca_part_ucx_request_t, link));
    }
    for (item = m->driven.next; NULL != item && item != &m->driven; item = item->next) {
        mca_part_ucx_dump_one("driven", container_of(item, mca_part_ucx_request_t, drive_link));
    }
}

opal_thread_local bool mca_part_ucx_on_progress_thread = false;

int mca_part_ucx_request_progress(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_link_t *item, *next;
    mca_part_ucx_request_t *req;
    int i, count = 0;

    for (i = 0; i < m->num_workers; ++i) {
        count += ucp_worker_progress(m->workers[i]);
    }
    count += mca_part_ucx_ctrl_progress();

    if (0 == m->num_active && 0 == m->num_driven) {
        return count;
    }
    if (m->progress_thread && !mca_part_ucx_on_progress_thread) {
        /* The progress thread may complete requests at any moment, also
         * between a caller's look at a request and this call: count that
         * as an event, so that MPI_Test looks again (an epoch the stream
         * has completed then completes at this MPI_Test, not a later one). */
        ++count;
    }
    if (0 != opal_mutex_trylock(&m->lock)) {
        /* Other application threads are progressing the same requests:
         * leave it to them. The progress thread holds the lock for one pass
         * at a time: wait for that pass to end. */
        if (!m->progress_thread || mca_part_ucx_on_progress_thread) {
            return count;
        }
        opal_mutex_lock(&m->lock);
    }
    for (item = m->driven.next; item != &m->driven; item = item->next) {
        mca_part_ucx_request_drive(container_of(item, mca_part_ucx_request_t, drive_link));
    }
    for (item = m->active.next; item != &m->active; item = next) {
        next = item->next;
        req = container_of(item, mca_part_ucx_request_t, link);
        if (NULL != req->stream_done ? mca_part_ucx_request_stream_done(req)
                                     : req->ops->progress(req)) {
            mca_part_ucx_link_remove(item);
            opal_atomic_add_fetch_32(&m->num_active, -1);
            mca_part_ucx_request_complete(req);
            ++count;
        }
    }
    opal_mutex_unlock(&m->lock);
    return count;
}
