/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Stream-ordered partitioned epochs (MPIX_Start_enqueue, MPIX_Wait_enqueue;
 * the bindings are in ompi/mpiext/part): an epoch starts when the
 * application's CUDA stream reaches the start, and work after the wait on
 * that stream runs once the epoch is complete on this side. No host thread
 * takes part in the epoch.
 *
 * Within a node, where the sender's kernels store into the receiver's GPU
 * buffer (kernel copy, part_ucx_devreq.c) and set its arrival flags, an
 * epoch is made of words in host memory that both GPUs map:
 *   - receiver's start: its stream writes its ready-to-receive word, which
 *     the sender's kernels read (and wait for, in an epoch a stream started:
 *     mpix_part_device.h);
 *   - the sender's start: its stream writes the device request's epoch and
 *     "a stream started it" words;
 *   - the group of kernel threads that completes the epoch's last transport
 *     group writes the epoch into the receiver's and the sender's done
 *     words; each side's wait is a stream wait on its own.
 * The host only counts: it writes the values each start and wait carry
 * (stream memory operations with constants), and sees the epoch complete
 * in MPI_Wait/MPI_Test from the done word. A graph replays the constants it
 * captured, so in a stream being captured the start is a one-thread kernel
 * that counts epochs in a word of the request, and the wait a kernel that
 * waits for the done word to reach that count.
 *
 * Elsewhere (the progress engine, host buffers, another node, partitioned
 * collectives) an epoch needs a host path, which is not ordered on streams
 * yet: the calls fail with MPI_ERR_UNSUPPORTED_OPERATION.
 */

#include "ompi_config.h"

#include "opal/runtime/opal_progress.h"

#include "part_ucx.h"
#include "part_ucx_request.h"
#include "part_ucx_devreq.h"
#include "part_ucx_device_plugin.h"
#include "part_ucx_mpix.h"

/* What a request's starts write and its waits wait for. */
typedef struct mca_part_ucx_stream_plan_t {
    unsigned n;
    volatile uint64_t *start[4];     /* words a start sets to the epoch */
    const volatile uint64_t *done;   /* complete on this side once >= the epoch */
} mca_part_ucx_stream_plan_t;

static const char *mca_part_ucx_stream_kind(const mca_part_ucx_request_t *req)
{
    return (MCA_PART_UCX_SEND == req->kind) ? "send to" : (MCA_PART_UCX_RECV == req->kind)
                                                              ? "receive from" : "collective,";
}

static int mca_part_ucx_stream_refuse(const mca_part_ucx_request_t *req, const char *why)
{
    static opal_atomic_int32_t told = 0;

    mca_part_ucx_show_help(&told, "stream unsupported", mca_part_ucx_stream_kind(req),
                           req->peer, req->tag, why);
    return MPI_ERR_UNSUPPORTED_OPERATION;
}

/* The words of a request's stream-ordered epochs (its setup done). */
static int mca_part_ucx_stream_plan(mca_part_ucx_request_t *req, mca_part_ucx_stream_plan_t *plan)
{
    mca_part_ucx_dev_words_t w;
    volatile uint64_t *rtr, *done;

    memset(plan, 0, sizeof(*plan));
    if (req->proc_null) {
        plan->done = (const volatile uint64_t *) &req->epoch; /* nothing moves */
        return MPI_SUCCESS;
    }
    if (MCA_PART_UCX_COLL == req->kind) {
        return mca_part_ucx_stream_refuse(req, "partitioned collectives are started from the "
                                               "host only (MPI_Start)");
    }
    if (MCA_PART_UCX_SETUP_DONE != req->setup) {
        return (MCA_PART_UCX_SETUP_FAILED == req->setup) ? req->error : MPI_ERR_INTERN;
    }
    mca_part_ucx_dev_stream_words(req, &w);
    if (MCA_PART_UCX_SEND == req->kind) {
        if (NULL == req->dev) {
            /* only kernels make partitions ready in an epoch a stream started */
            return MPI_ERR_REQUEST;
        }
        if (NULL == w.done) {
            return mca_part_ucx_stream_refuse(req, "its kernels do not store into the "
                                                   "receiver's GPU buffer (kernel copy)");
        }
        plan->start[plan->n++] = w.epoch;
        plan->start[plan->n++] = w.stream_epoch;
        plan->done = w.done;
        return MPI_SUCCESS;
    }
    if (OMPI_SUCCESS != mca_part_ucx_recv_stream_words(req, &rtr, &done)) {
        return mca_part_ucx_stream_refuse(req, "the sender's kernels cannot store into its "
                                               "buffer (GPU buffers on one node, mapped by "
                                               "UCX's cuda_ipc)");
    }
    plan->start[plan->n++] = rtr;
    if (NULL != w.epoch) {
        plan->start[plan->n++] = w.epoch; /* MPIX_Parrived's epoch */
    }
    plan->done = done;
    return MPI_SUCCESS;
}

/* The request's own epoch count for graphs, made on first use. */
static volatile uint64_t *mca_part_ucx_stream_counter(mca_part_ucx_request_t *req)
{
    if (NULL == req->stream_count.addr &&
        OMPI_SUCCESS != mca_part_ucx_block_alloc_mapped(sizeof(uint64_t), &req->stream_count)) {
        return NULL;
    }
    return req->stream_count.addr;
}

/* Whether an epoch may be enqueued: no host epoch active, the last enqueued
 * one waited for. */
static int mca_part_ucx_stream_check_start(const mca_part_ucx_request_t *req)
{
    if (OMPI_REQUEST_ACTIVE == req->super.req_state && !req->enqueued) {
        return MPI_ERR_REQUEST; /* a host-started epoch: MPI_Wait first */
    }
    if (req->enqueued && req->waits != req->starts) {
        return MPI_ERR_REQUEST; /* the previous start has no wait yet */
    }
    return MPI_SUCCESS;
}

static int mca_part_ucx_stream_event(mca_part_ucx_request_t *req,
                                     const mca_part_ucx_device_ops_t *gpu, void *stream)
{
    if (NULL == req->stream_event &&
        OMPI_SUCCESS != mca_part_ucx_device_event_get(&req->stream_event)) {
        return MPI_ERR_NO_MEM;
    }
    return (0 == gpu->event_record(req->stream_event, stream)) ? MPI_SUCCESS : MPI_ERR_INTERN;
}

static int mca_part_ucx_stream_start_one(mca_part_ucx_request_t *req,
                                         const mca_part_ucx_device_ops_t *gpu, void *stream,
                                         bool counted, const mca_part_ucx_stream_plan_t *plan)
{
    volatile uint64_t *count = NULL;
    uint64_t values[4], e;
    unsigned i;
    int rc = 0;

    /* made at the first start, so that a graph captured later allocates
     * nothing (an allocation can invalidate a capture) */
    if (NULL == (count = mca_part_ucx_stream_counter(req))) {
        return MPI_ERR_NO_MEM;
    }
    /* A graph's replays counted epochs the host never saw (the stream was
     * synchronised before this, as for any host use of the request). */
    if (*count > req->epoch) {
        req->epoch = *count;
    }
    e = req->epoch + 1;
    if (counted) {
        *count = req->epoch; /* the graph counts on from here */
        rc = (0 == plan->n) ? 0 : gpu->stream_start_counted(stream, count, plan->n, plan->start);
    } else if (0 != plan->n) {
        for (i = 0; i < plan->n; ++i) {
            values[i] = e;
        }
        rc = gpu->stream_write(stream, plan->n, plan->start, values);
    }
    if (0 != rc) {
        MCA_PART_UCX_ERROR("enqueueing the start of a partitioned epoch failed: %s",
                           gpu->last_error());
        return MPI_ERR_INTERN;
    }
    req->super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.req_status.MPI_ERROR = OMPI_SUCCESS;
    req->super.req_status._cancelled = 0;
    req->super.req_complete = REQUEST_PENDING;
    req->enqueued = true;
    req->stream_done = plan->done;
    if (counted) {
        req->stream_epoch = count;
    } else {
        req->stream_epoch = (const volatile uint64_t *) &req->epoch;
        opal_atomic_add_fetch_64((opal_atomic_int64_t *) &req->epoch, 1);
        *count = req->epoch;
    }
    ++req->starts;
    rc = counted ? MPI_SUCCESS : mca_part_ucx_stream_event(req, gpu, stream);
    mca_part_ucx_request_activate(req);
    return rc;
}

static const mca_part_ucx_device_ops_t *mca_part_ucx_stream_gpu(void *stream, int *capturing)
{
    const mca_part_ucx_device_ops_t *gpu = mca_part_ucx_device();

    *capturing = (NULL == gpu) ? -1 : gpu->stream_capturing(stream);
    return (*capturing < 0) ? NULL : gpu;
}

int mca_part_ucx_start_enqueue(size_t count, ompi_request_t **requests, void *stream)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_stream_plan_t *plans;
    const mca_part_ucx_device_ops_t *gpu;
    mca_part_ucx_request_t *req;
    int capturing, rc = MPI_SUCCESS;
    size_t i;

    if (0 == count) {
        return MPI_SUCCESS;
    }
    gpu = mca_part_ucx_stream_gpu(stream, &capturing);
    if (NULL == gpu) {
        return MPI_ERR_UNSUPPORTED_OPERATION; /* no GPU here, or not a stream */
    }
    plans = calloc(count, sizeof(*plans));
    if (NULL == plans) {
        return MPI_ERR_NO_MEM;
    }
    /* The first start of a receive may come before the sender's setup
     * record: its words exist once matched (outside the module lock, which
     * progress takes). */
    for (i = 0; i < count; ++i) {
        req = (mca_part_ucx_request_t *) requests[i];
        while (mca_part_ucx_start == req->super.req_start && !req->proc_null &&
               MCA_PART_UCX_COLL != req->kind && MCA_PART_UCX_SETUP_PENDING == req->setup) {
            opal_progress();
        }
    }
    /* All or none, as MPI_Startall: every request checked first. */
    OPAL_THREAD_LOCK(&m->lock);
    for (i = 0; i < count && MPI_SUCCESS == rc; ++i) {
        req = (mca_part_ucx_request_t *) requests[i];
        rc = (mca_part_ucx_start != req->super.req_start) ? MPI_ERR_REQUEST
                                                          : mca_part_ucx_stream_check_start(req);
        if (MPI_SUCCESS == rc) {
            rc = mca_part_ucx_stream_plan(req, &plans[i]);
        }
    }
    for (i = 0; i < count && MPI_SUCCESS == rc; ++i) {
        rc = mca_part_ucx_stream_start_one((mca_part_ucx_request_t *) requests[i], gpu, stream,
                                           1 == capturing, &plans[i]);
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    free(plans);
    return rc;
}

int mca_part_ucx_wait_enqueue(size_t count, ompi_request_t **requests, void *stream)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    const mca_part_ucx_device_ops_t *gpu;
    mca_part_ucx_request_t *req;
    int capturing, rc = MPI_SUCCESS, err;
    size_t i;

    if (0 == count) {
        return MPI_SUCCESS;
    }
    gpu = mca_part_ucx_stream_gpu(stream, &capturing);
    if (NULL == gpu) {
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    OPAL_THREAD_LOCK(&m->lock);
    for (i = 0; i < count && MPI_SUCCESS == rc; ++i) {
        req = (mca_part_ucx_request_t *) requests[i];
        if (mca_part_ucx_start != req->super.req_start || !req->enqueued ||
            req->waits == req->starts) {
            rc = MPI_ERR_REQUEST; /* no enqueued start waits for it */
        }
    }
    for (i = 0; i < count && MPI_SUCCESS == rc; ++i) {
        req = (mca_part_ucx_request_t *) requests[i];
        if (req->stream_done == (const volatile uint64_t *) &req->epoch) {
            err = 0; /* MPI_PROC_NULL: nothing to wait for */
        } else if (req->stream_epoch == (const volatile uint64_t *) &req->epoch) {
            err = gpu->stream_wait(stream, req->stream_done, req->epoch);
        } else {
            err = gpu->stream_wait_counted(stream, req->stream_done, req->stream_epoch);
        }
        if (0 != err) {
            MCA_PART_UCX_ERROR("enqueueing the wait of a partitioned epoch failed: %s",
                               gpu->last_error());
            rc = MPI_ERR_INTERN;
            break;
        }
        req->waits = req->starts;
        if (1 != capturing) {
            rc = mca_part_ucx_stream_event(req, gpu, stream);
        }
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    return rc;
}
