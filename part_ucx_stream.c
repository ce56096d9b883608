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
 * epoch is made of words both GPUs map (GPU memory, reached over NVLink,
 * for the streams and kernels; host memory for the hosts):
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
 * The progress engine within a node (its sender's kernels only mark, and
 * the receiver's buffer and flags are mapped): the sender's stream moves
 * the epoch at its wait, with no host either: it waits for its kernels'
 * count of complete groups and the receiver's ready-to-receive, copies the
 * buffer with a copy engine and sets the receiver's arrival flags, which
 * its host reads as it would the progress engine's (the receiver's epochs
 * are the host's, as below); a stream-only send's stream also writes the
 * receiver's done words, so that the receiver's epochs need no host either
 * (MCA_PART_UCX_SRC_STREAM_COPY).
 *
 * Elsewhere (the progress engine, host buffers, another node, partitioned
 * collectives) the host runs each epoch, in stream order, on a progress
 * thread of this component: the stream writes the epoch it reached into a
 * word of the request, the host begins the epoch as MPI_Start would once it
 * sees it there (mca_part_ucx_request_drive), and writes the epoch into a
 * done word the stream waits on once it is complete. That thread needs
 * MPI_THREAD_MULTIPLE; without, such epochs are refused.
 */

#include "ompi_config.h"

#include "opal/mca/accelerator/accelerator.h"
#include "opal/runtime/opal_progress.h"

#include "part_ucx.h"
#include "part_ucx_request.h"
#include "part_ucx_devreq.h"
#include "part_ucx_device_plugin.h"
#include "part_ucx_mpix.h"
#include "part_ucx_stream.h"

#include <stdlib.h>
#include <pthread.h>
#include <unistd.h>

/* The progress thread of epochs the host runs: part/ucx's progress while
 * any of its requests is active (the application's thread may sit in a
 * CUDA synchronisation, which progresses nothing). Only this component's
 * progress: the thread runs until this component's finalize, while other
 * components may already be finalizing. Started on first need. */
static pthread_t mca_part_ucx_stream_tid;
static bool mca_part_ucx_stream_thread_on = false;
static volatile bool mca_part_ucx_stream_thread_stop = false;
static int mca_part_ucx_stream_thread_device = -1;

static void *mca_part_ucx_stream_thread(void *arg)
{
    const mca_part_ucx_device_ops_t *gpu = mca_part_ucx_device();

    (void) arg;
    mca_part_ucx_on_progress_thread = true;
    /* the GPU of the thread that started it: UCX's CUDA transports (cuda_ipc
     * keys, cuda_copy staging) work on the current context */
    if (NULL != gpu && mca_part_ucx_stream_thread_device >= 0 &&
        0 != gpu->set_device(mca_part_ucx_stream_thread_device)) {
        MCA_PART_UCX_ERROR("progress thread: no GPU %d: %s", mca_part_ucx_stream_thread_device,
                           gpu->last_error());
    }
    while (!mca_part_ucx_stream_thread_stop) {
        if (0 != mca_part_ucx_module.num_active || 0 != mca_part_ucx_module.num_driven) {
            (void) mca_part_ucx_request_progress();
            mca_part_ucx_request_drive_begin();
        } else {
            usleep(50);
        }
    }
    return NULL;
}

/* Under the module lock. */
static void mca_part_ucx_stream_thread_need(void)
{
    if (!mca_part_ucx_stream_thread_on) {
        mca_part_ucx_stream_thread_stop = false;
        if (OPAL_SUCCESS != opal_accelerator.get_device(&mca_part_ucx_stream_thread_device)) {
            mca_part_ucx_stream_thread_device = -1;
        }
        mca_part_ucx_stream_thread_on =
            (0 == pthread_create(&mca_part_ucx_stream_tid, NULL, mca_part_ucx_stream_thread, NULL));
        mca_part_ucx_module.progress_thread = mca_part_ucx_stream_thread_on;
        if (!mca_part_ucx_stream_thread_on) {
            MCA_PART_UCX_ERROR("no progress thread for stream-ordered epochs: they progress "
                               "only inside MPI calls");
        }
    }
}

void mca_part_ucx_stream_fini(void)
{
    if (mca_part_ucx_stream_thread_on) {
        mca_part_ucx_stream_thread_stop = true;
        pthread_join(mca_part_ucx_stream_tid, NULL);
        mca_part_ucx_stream_thread_on = false;
        mca_part_ucx_module.progress_thread = false;
    }
}

/* Epochs the host runs that may be enqueued ahead of it. */
#define MCA_PART_UCX_STREAM_AHEAD 4

/* What a request's starts write and its waits wait for. */
typedef struct mca_part_ucx_stream_plan_t {
    bool driven;                     /* the host runs the epochs (progress thread) */
    /* A send whose kernels count its epochs (info "mpix_stream_kernels"):
     * 1 from this start on (which tells its kernels so), 2 already. */
    int kernels;
    unsigned n;
    volatile uint64_t *start[4];     /* words a start sets to the epoch */
    uint64_t value[4];               /* kernels == 1: what it sets them to instead */
    const volatile uint64_t *wait;   /* the stream's: complete once >= the epoch (NULL: none) */
    bool wait_gpu_scope;             /* its writer released the epoch's data at GPU scope,
                                      * on this GPU: MCA_PART_UCX_WAIT_GPU_SCOPE */
    const volatile uint64_t *done;   /* the same, in host memory for MPI_Wait */
    /* The start's words are written before the epoch can complete (the
     * peer or this side's kernels wait for the last of them): no event
     * need follow them, one CUDA call less an epoch. */
    bool start_implied;
    /* The kind runs the epoch on the GPU itself (ops->gpu_enqueue). */
    bool gpu;
    /* Kernels on this GPU wait for the start (a receive from a rank that
     * shares the GPU): in a graph, a start that needs no SM. */
    bool start_waited_here;
    /* A GPU word that holds the next counted start's epoch once the work
     * before it completed (stream_start_counted's `next`), NULL: none. */
    const volatile uint64_t *next;
    /* The stream moves the epoch at its wait (mca_part_ucx_dev_stream_copy). */
    bool copy;
    unsigned zero;                   /* bit i: start[i] is set to 0, not the epoch */
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

/* The request's stream words, made at its first start, so that a graph
 * captured later allocates nothing (an allocation can invalidate a
 * capture). */
static volatile uint64_t *mca_part_ucx_stream_words(mca_part_ucx_request_t *req)
{
    if (NULL == req->stream_words.addr &&
        OMPI_SUCCESS != mca_part_ucx_block_alloc_mapped(MCA_PART_UCX_STREAM_WORDS *
                                                            sizeof(uint64_t),
                                                        &req->stream_words)) {
        return NULL;
    }
    return req->stream_words.addr;
}

/* Where the sender's kernels complete the epochs themselves. A send whose
 * kernels also count them (info "mpix_stream_kernels") is told so once,
 * outside a capture (a graph would replay it); from then on its starts
 * and waits put nothing on the stream, whose kernels follow one another
 * with nothing between them. */
static bool mca_part_ucx_stream_direct(mca_part_ucx_request_t *req,
                                       const mca_part_ucx_dev_words_t *w, int capturing,
                                       mca_part_ucx_stream_plan_t *plan)
{
    mca_part_ucx_recv_words_t r;

    if (MCA_PART_UCX_SEND == req->kind && NULL != w->done_dev && req->stream_only &&
        (req->kernels_count || 1 != capturing)) {
        plan->kernels = req->kernels_count ? 2 : 1;
        if (1 == plan->kernels) {
            plan->start[plan->n++] = w->epoch_dev; /* values: mca_part_ucx_stream_start_one */
            plan->start[plan->n++] = w->done_dev;
            plan->start[plan->n++] = w->started_dev;
        }
        plan->done = w->done;
        return true;
    }
    if (MCA_PART_UCX_SEND == req->kind && NULL != w->done_dev) {
        /* not the host word *epoch: the kernels take a stream-started
         * epoch from epoch_dev, and each word written costs the stream a
         * system-wide flush */
        plan->start[plan->n++] = w->epoch_dev;
        plan->start[plan->n++] = w->started_dev;
        plan->start_implied = true; /* its kernels, after both, complete the epoch */
        plan->wait = w->done_dev;
        plan->wait_gpu_scope = w->gpu_scope;
        plan->done = w->done;
        return true;
    }
    if (MCA_PART_UCX_RECV == req->kind && OMPI_SUCCESS == mca_part_ucx_recv_stream_words(req, &r)) {
        /* MPIX_Parrived's epoch is rtr_dev too (epoch_gpu). Each word costs
         * the stream a system-wide flush: the host word only for a sender
         * whose host may start epochs. */
        plan->start[plan->n++] = r.rtr_dev;
        if (NULL != r.rtr) {
            plan->start[plan->n++] = r.rtr;
        }
        plan->start_implied = (1 == plan->n); /* the sender waits for it */
        plan->start_waited_here = r.same_gpu;
        plan->wait = r.done_dev;
        plan->wait_gpu_scope = r.gpu_scope;
        plan->done = r.done;
        return true;
    }
    return false;
}

/* A progress-engine send within a node whose stream moves the epochs
 * (mca_part_ucx_dev_stream_copy_words): no host either. A start outside a
 * capture also zeroes the kernels' group count, which the wait's stream
 * wait reads; a captured start writes only the epoch (the counted start's
 * words all take it), and its wait falls back to every group's mark where
 * that count is behind (part_copy_wait). */
static bool mca_part_ucx_stream_copied(mca_part_ucx_request_t *req, int capturing,
                                       mca_part_ucx_stream_plan_t *plan)
{
    mca_part_ucx_dev_copy_words_t c;

    if (!mca_part_ucx_dev_stream_copy_words(req, &c)) {
        return false;
    }
    plan->start[plan->n++] = c.epoch_dev;
    if (1 != capturing) {
        plan->start[plan->n++] = c.groups_dev;
        plan->zero = 1u << 1;
    }
    plan->start_implied = true; /* the wait's copy follows them on the stream */
    plan->copy = true;
    plan->done = c.sent;
    return true;
}

/* Epochs the host runs need CUDA to keep the streams of the progress
 * thread's GPU work off the waiting stream's hardware queue: say so once
 * where too few queues may share them out. CUDA reads the variable when
 * the process starts using CUDA, so the first such epoch checks it, not
 * every start. */
static void mca_part_ucx_stream_connections(const mca_part_ucx_request_t *req)
{
    static opal_atomic_int32_t told = 0;
    static volatile bool checked = false;
    const char *v;

    if (checked) {
        return;
    }
    checked = true;
    v = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    if (NULL == v || atoi(v) < 16) {
        mca_part_ucx_show_help(&told, "stream connections", mca_part_ucx_stream_kind(req),
                               req->peer, req->tag, (NULL == v) ? "8 (unset)" : v);
    }
}

/* Where the request's kind runs its stream-ordered epochs on the GPU
 * itself (a collective's GPU engine): the host word it sets to each epoch
 * complete; else NULL. */
static const volatile uint64_t *mca_part_ucx_stream_gpu_done(const mca_part_ucx_request_t *req)
{
    return (NULL != req->ops->gpu_epochs) ? req->ops->gpu_epochs(req) : NULL;
}

/* The words of a request's stream-ordered epochs (its setup done). */
static int mca_part_ucx_stream_plan(mca_part_ucx_request_t *req, int capturing,
                                    mca_part_ucx_stream_plan_t *plan)
{
    mca_part_ucx_dev_words_t w;
    volatile uint64_t *words;

    memset(plan, 0, sizeof(*plan));
    if (NULL == (words = mca_part_ucx_stream_words(req))) {
        return MPI_ERR_NO_MEM;
    }
    if (req->proc_null) {
        plan->done = (const volatile uint64_t *) &req->epoch; /* nothing moves */
        return MPI_SUCCESS;
    }
    if (MCA_PART_UCX_SETUP_FAILED == req->setup) {
        return req->error;
    }
    if (MCA_PART_UCX_COLL != req->kind && MCA_PART_UCX_SETUP_DONE != req->setup) {
        return MPI_ERR_INTERN; /* waited for by the caller */
    }
    if (req->takes_pready && NULL == req->dev) {
        /* only kernels make partitions ready in an epoch a stream started */
        return MPI_ERR_REQUEST;
    }
    mca_part_ucx_dev_stream_words(req, &w);
    if (NULL != (plan->done = mca_part_ucx_stream_gpu_done(req))) {
        /* a collective's GPU engine: its kernels and MPIX_Parrived take
         * the epoch from the kernels' copy (epoch_gpu) */
        if (NULL != w.epoch_dev) {
            plan->start[plan->n++] = w.epoch_dev;
        }
        if (1 == capturing && NULL != req->ops->gpu_epoch_word) {
            /* the kernel's, which it advances as it completes */
            plan->next = plan->start[plan->n++] = req->ops->gpu_epoch_word(req);
        }
        plan->gpu = true;
        plan->start_implied = true;
        MCA_PART_UCX_VERBOSE(10, "collective: stream-ordered epochs on the GPU engine");
        return MPI_SUCCESS;
    }
    if (mca_part_ucx_stream_direct(req, &w, capturing, plan)) {
        MCA_PART_UCX_VERBOSE(10, "%s rank %d tag %d: stream-ordered epochs without a host",
                             mca_part_ucx_stream_kind(req), req->peer, req->tag);
        return MPI_SUCCESS;
    }
    if (mca_part_ucx_stream_copied(req, capturing, plan)) {
        MCA_PART_UCX_VERBOSE(10, "%s rank %d tag %d: stream-ordered epochs copied by the stream",
                             mca_part_ucx_stream_kind(req), req->peer, req->tag);
        return MPI_SUCCESS;
    }
    /* The host runs the epochs, on the progress thread. */
    if (MCA_PART_UCX_SEND == req->kind && NULL != mca_part_ucx_sendreq(req)->words_rkey) {
        /* its receiver expects this side's kernels to complete its epochs */
        return mca_part_ucx_stream_refuse(req, "its kernels cannot store into the receiver's "
                                               "GPU buffer, which the receiver offered for it");
    }
    if (MPI_THREAD_MULTIPLE != ompi_mpi_thread_provided) {
        return mca_part_ucx_stream_refuse(req, "its epochs need the host (the progress engine, "
                                               "host buffers, another node or a partitioned "
                                               "collective), whose progress thread needs "
                                               "MPI_THREAD_MULTIPLE");
    }
    MCA_PART_UCX_VERBOSE(10, "%s rank %d tag %d: stream-ordered epochs run by the host",
                         mca_part_ucx_stream_kind(req), req->peer, req->tag);
    mca_part_ucx_stream_connections(req);
    plan->driven = true;
    plan->start[plan->n++] = words + MCA_PART_UCX_STREAM_START;
    if (NULL != w.epoch) {
        plan->start[plan->n++] = w.epoch; /* the kernels' epoch, before the host's start */
    }
    plan->wait = plan->done = words + MCA_PART_UCX_STREAM_DONE;
    return MPI_SUCCESS;
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

/* The host's side of a start, under the module lock: the epoch it gives the
 * stream's words, the request active until the stream says it is done. */
static uint64_t mca_part_ucx_stream_start_one(mca_part_ucx_request_t *req, bool counted,
                                              mca_part_ucx_stream_plan_t *plan)
{
    volatile uint64_t *words = req->stream_words.addr;
    volatile uint64_t *count = words + MCA_PART_UCX_STREAM_COUNT;
    uint64_t base, e;

    /* The epochs so far: the host's, a graph's replays the host never saw
     * (the stream was synchronised before this, as for any host use of
     * the request), those the host was given to run. */
    base = (*count > req->epoch) ? *count : req->epoch;
    base = (req->driven && req->enq_epoch > base) ? req->enq_epoch : base;
    /* kernels that count the epochs: a graph's replays, in the done word */
    base = (0 != plan->kernels && *plan->done > base) ? *plan->done : base;
    if (1 == plan->kernels) {
        /* from here the kernels take epoch done_dev + 1 */
        plan->value[0] = plan->value[1] = base;
        plan->value[2] = MCA_PART_UCX_DEV_STREAM_KERNELS;
        req->kernels_count = true;
    }
    if (plan->driven && !req->driven) {
        /* the host's epochs catch up with the stream's from here */
        words[MCA_PART_UCX_STREAM_START] = words[MCA_PART_UCX_STREAM_DONE] = base;
        req->epoch = base;
    }
    e = base + 1;
    req->super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.req_status.MPI_ERROR = OMPI_SUCCESS;
    req->super.req_status._cancelled = 0;
    req->super.req_complete = REQUEST_PENDING;
    req->enqueued = true;
    req->stream_event_waited = false; /* until this epoch's wait records it */
    req->stream_wait = plan->wait;
    req->stream_copy = plan->copy;
    req->stream_wait_gpu_scope = plan->wait_gpu_scope;
    req->stream_done = plan->done;
    if (counted) {
        *count = base; /* the graph counts on from here */
        req->stream_epoch = count;
    } else if (plan->driven) {
        *count = req->enq_epoch = e;
        req->stream_epoch = (const volatile uint64_t *) &req->enq_epoch;
    } else {
        /* e, not one more than the host's count: a graph's replays may
         * have counted epochs the host never saw (the stream was
         * synchronised since) */
        req->stream_epoch = (const volatile uint64_t *) &req->epoch;
        (void) opal_atomic_swap_64((opal_atomic_int64_t *) &req->epoch, (int64_t) e);
        *count = req->epoch;
    }
    /* with count, the device plugin's pair (stream_start_counted): the
     * epoch the next counted start takes, this one where it is counted */
    words[MCA_PART_UCX_STREAM_NEXT] = counted ? e : e + 1;
    ++req->starts;
    mca_part_ucx_request_activate(req);
    if (plan->driven) {
        req->driven = true;
        mca_part_ucx_request_drive_on(req);
        mca_part_ucx_stream_thread_need();
    } else {
        mca_part_ucx_request_drive_off(req);
    }
    return e;
}

/* A start or wait the stream was not given: the request completes at
 * once, failed, rather than wait for words nothing writes. */
static int mca_part_ucx_stream_failed(mca_part_ucx_request_t *req,
                                      const mca_part_ucx_device_ops_t *gpu, const char *what)
{
    MCA_PART_UCX_ERROR("enqueueing the %s of a partitioned epoch failed: %s", what,
                       gpu->last_error());
    req->error = MPI_ERR_INTERN;
    req->driven = false;
    req->kernels_count = false; /* told again at the next start */
    req->stream_done = req->stream_epoch;
    return MPI_ERR_INTERN;
}

/* Whether a request's starts and waits are one-thread kernels rather
 * than stream memory operations: always where the host runs the epochs,
 * which may need GPU work of this process (UCX's copies, reductions) that
 * a memory operation would hold back (mca_part_ucx_device_ops_t). */
static bool mca_part_ucx_stream_by_kernel(bool driven)
{
    return driven || mca_part_ucx_module.params.stream_kernel_ops;
}

/* Whether a start captured into a graph is a one-thread kernel rather than
 * copies from host memory: copies need no SM, where the kernels waiting for
 * the start could fill this GPU (a sender sharing it, under CUDA MPS), but
 * cost a few microseconds more each (MCA part_ucx_stream_graph_start).
 * Epochs the host runs keep the kernel (mca_part_ucx_stream_by_kernel). */
static bool mca_part_ucx_stream_counted_by_kernel(const mca_part_ucx_stream_plan_t *plan)
{
    switch (mca_part_ucx_module.params.stream_graph_start) {
    case MCA_PART_UCX_GRAPH_START_KERNEL:
        return true;
    case MCA_PART_UCX_GRAPH_START_COPY:
        return plan->driven;
    default:
        return plan->driven || !plan->start_waited_here;
    }
}

/* How the device plugin makes a captured start (stream_start_counted).
 * Joined to the wait right before it, where there is one, it needs neither
 * an SM nor a node of its own: the wait's kernel runs before the kernels
 * waiting for the start can fill the GPU (MCA part_ucx_stream_graph_join). */
static int mca_part_ucx_stream_counted_how(const mca_part_ucx_stream_plan_t *plan)
{
    return (mca_part_ucx_stream_counted_by_kernel(plan) ? MCA_PART_UCX_START_KERNEL : 0) |
           (mca_part_ucx_module.params.stream_graph_join ? MCA_PART_UCX_START_JOIN : 0) |
           (plan->gpu ? MCA_PART_UCX_START_LOCAL : 0);
}

/* The stream's side of a start, outside the module lock: a CUDA call may
 * block while the stream's queue is full, until the stream drains, which
 * may take this module's progress. */
static int mca_part_ucx_stream_issue_start(mca_part_ucx_request_t *req,
                                           const mca_part_ucx_device_ops_t *gpu, void *stream,
                                           bool counted, const mca_part_ucx_stream_plan_t *plan,
                                           uint64_t e)
{
    volatile uint64_t *count = (volatile uint64_t *) req->stream_words.addr +
                               MCA_PART_UCX_STREAM_COUNT;
    uint64_t values[4];
    unsigned i;
    int rc = 0;

    if (counted) {
        /* the GPU engine's kernel reads the count even where no word takes it */
        rc = (0 == plan->n && !plan->gpu)
                 ? 0 : gpu->stream_start_counted(stream, count, plan->n, plan->start,
                                                 mca_part_ucx_stream_counted_how(plan),
                                                 plan->next);
    } else if (0 != plan->n) {
        for (i = 0; i < plan->n; ++i) {
            values[i] = (1 == plan->kernels) ? plan->value[i]
                        : (plan->zero & (1u << i)) ? 0 : e;
        }
        rc = gpu->stream_write(stream, plan->n, plan->start, values,
                               mca_part_ucx_stream_by_kernel(plan->driven));
    }
    if (0 == rc && plan->gpu) {
        rc = req->ops->gpu_enqueue(req, stream, counted ? 0 : e, counted ? count : NULL);
    }
    if (0 != rc) {
        return mca_part_ucx_stream_failed(req, gpu, "start");
    }
    /* nothing on the stream for the event to follow, or nothing the
     * epoch's completion does not imply */
    return (counted || 0 == plan->n || plan->start_implied)
               ? MPI_SUCCESS : mca_part_ucx_stream_event(req, gpu, stream);
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
    uint64_t *epochs;
    size_t i;

    if (0 == count) {
        return MPI_SUCCESS;
    }
    gpu = mca_part_ucx_stream_gpu(stream, &capturing);
    if (NULL == gpu) {
        return MPI_ERR_UNSUPPORTED_OPERATION; /* no GPU here, or not a stream */
    }
    plans = calloc(count, sizeof(*plans) + sizeof(uint64_t));
    if (NULL == plans) {
        return MPI_ERR_NO_MEM;
    }
    epochs = (uint64_t *) (plans + count);
    /* The first start of a receive, or of a collective's channels, may
     * come before the peer's setup record: its words exist once matched
     * (outside the module lock, which progress takes), and the match may
     * call CUDA synchronously, which must happen before the stream holds
     * anything that waits for this process. Epochs the host runs are kept
     * at most MCA_PART_UCX_STREAM_AHEAD ahead of it: further ahead, the
     * stream's queue of CUDA work fills and the next CUDA call of this
     * thread blocks. */
    for (i = 0; i < count; ++i) {
        req = (mca_part_ucx_request_t *) requests[i];
        while (mca_part_ucx_start == req->super.req_start && NULL != req->ops->setup_pending &&
               req->ops->setup_pending(req)) {
            opal_progress();
        }
        while (mca_part_ucx_start == req->super.req_start && req->driven && 1 != capturing &&
               req->enq_epoch >= ((const volatile uint64_t *)
                                      req->stream_words.addr)[MCA_PART_UCX_STREAM_DONE] +
                                     MCA_PART_UCX_STREAM_AHEAD) {
            opal_progress();
            mca_part_ucx_request_drive_begin();
        }
    }
    /* All or none, as MPI_Startall: every request checked first. */
    OPAL_THREAD_LOCK(&m->lock);
    for (i = 0; i < count && MPI_SUCCESS == rc; ++i) {
        req = (mca_part_ucx_request_t *) requests[i];
        rc = (mca_part_ucx_start != req->super.req_start) ? MPI_ERR_REQUEST
                                                          : mca_part_ucx_stream_check_start(req);
        if (MPI_SUCCESS == rc) {
            rc = mca_part_ucx_stream_plan(req, capturing, &plans[i]);
        }
    }
    for (i = 0; i < count && MPI_SUCCESS == rc; ++i) {
        epochs[i] = mca_part_ucx_stream_start_one((mca_part_ucx_request_t *) requests[i],
                                                  1 == capturing, &plans[i]);
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    for (i = 0; i < count && MPI_SUCCESS == rc; ++i) {
        rc = mca_part_ucx_stream_issue_start((mca_part_ucx_request_t *) requests[i], gpu, stream,
                                             1 == capturing, &plans[i], epochs[i]);
    }
    free(plans);
    return rc;
}

int mca_part_ucx_wait_enqueue(size_t count, ompi_request_t **requests, void *stream)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    const mca_part_ucx_device_ops_t *gpu;
    mca_part_ucx_request_t *req;
    volatile uint64_t *counter;
    bool engine;
    int capturing, rc = MPI_SUCCESS, err;
    uint64_t *targets;
    size_t i;

    if (0 == count) {
        return MPI_SUCCESS;
    }
    gpu = mca_part_ucx_stream_gpu(stream, &capturing);
    if (NULL == gpu) {
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    targets = calloc(2 * count, sizeof(*targets)); /* and the wait's flags */
    if (NULL == targets) {
        return MPI_ERR_NO_MEM;
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
        targets[i] = *req->stream_epoch; /* the epoch of the last start */
        targets[count + i] =
            (mca_part_ucx_stream_by_kernel(req->driven) ? MCA_PART_UCX_WAIT_KERNEL : 0) |
            (req->stream_wait_gpu_scope ? MCA_PART_UCX_WAIT_GPU_SCOPE : 0);
        req->waits = req->starts;
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    /* Outside the lock, as the starts (mca_part_ucx_stream_issue_start). */
    for (i = 0; i < count && MPI_SUCCESS == rc; ++i) {
        req = (mca_part_ucx_request_t *) requests[i];
        counter = (volatile uint64_t *) req->stream_words.addr + MCA_PART_UCX_STREAM_COUNT;
        engine = NULL != mca_part_ucx_stream_gpu_done(req);
        /* a send whose kernels only mark: the epoch's copy, then its wait
         * as any kernel copy's (none where the kernels count the epochs) */
        err = mca_part_ucx_dev_copies_after(req) ? mca_part_ucx_dev_stream_copy_after(req, stream)
                                                 : 0;
        if (0 != err) {
            /* failed below */
        } else if (engine) {
            err = req->ops->gpu_join(req, stream); /* the GPU engine's kernel */
        } else if (req->stream_copy) {
            err = mca_part_ucx_dev_stream_copy(req, stream, targets[i],
                                               (req->stream_epoch == counter) ? counter : NULL);
        } else if (req->proc_null || NULL == req->stream_wait) {
            err = 0; /* nothing to wait for, or the kernels' stream order does it */
        } else if (req->stream_epoch == counter) {
            err = gpu->stream_wait_counted(stream, req->stream_wait, counter,
                                           (int) targets[count + i]);
        } else {
            err = gpu->stream_wait(stream, req->stream_wait, targets[i],
                                   (int) targets[count + i]);
        }
        if (0 != err) {
            rc = mca_part_ucx_stream_failed(req, gpu, "wait");
        } else if (1 != capturing && !engine) {
            /* (the GPU engine's kernel writes its done word before it ends:
             * the host needs no event to see the epoch complete) */
            rc = mca_part_ucx_stream_event(req, gpu, stream);
            opal_atomic_wmb(); /* the event recorded before the flag says what it follows */
            req->stream_event_waited = MPI_SUCCESS == rc && !req->proc_null;
        }
    }
    free(targets);
    return rc;
}
