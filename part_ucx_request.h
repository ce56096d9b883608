/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#ifndef MCA_PART_UCX_REQUEST_H
#define MCA_PART_UCX_REQUEST_H

#include "part_ucx.h"
#include "part_ucx_ctrl.h"
#include "part_ucx_mem.h"
#include "part_ucx_memtype.h"

#include "ompi/request/request.h"
#include "ompi/datatype/ompi_datatype.h"

BEGIN_C_DECLS

typedef enum {
    MCA_PART_UCX_SEND,
    MCA_PART_UCX_RECV,
    MCA_PART_UCX_COLL              /* a partitioned collective (part_ucx_coll.c) */
} mca_part_ucx_kind_t;

typedef enum {
    MCA_PART_UCX_SETUP_PENDING, /* setup record sent / receive not matched yet */
    MCA_PART_UCX_SETUP_DONE,    /* remote buffer, flags and keys known */
    MCA_PART_UCX_SETUP_FAILED   /* peers disagree (size), or UCX failed */
} mca_part_ucx_setup_t;

/* Per-partition state of a send, in units of the epoch: 2e means "ready in
 * epoch e, waiting for the receiver", 2e+1 "issued in epoch e". A CAS on it
 * lets MPI_Pready and progress race for the issue without a lock. */
#define MCA_PART_UCX_QUEUED(_e) ((uint64_t) (_e) * 2)
#define MCA_PART_UCX_ISSUED(_e) ((uint64_t) (_e) * 2 + 1)

/* What each kind of request does, set by the layer that creates it:
 * generic code (start, progress, free, the module's entry points) calls
 * through it and never asks the kind. */
typedef struct mca_part_ucx_request_ops_t {
    int (*start)(mca_part_ucx_request_t *req);
    /* An active epoch: true once it is complete on this side. */
    bool (*progress)(mca_part_ucx_request_t *req);
    /* Under the module lock, as the request leaves the module's table:
     * nothing new may find it (NULL: nothing to do). */
    void (*withdraw)(mca_part_ucx_request_t *req);
    /* What the kind owns; no callback reaches the request any more. */
    void (*release)(mca_part_ucx_request_t *req);
    /* MPI_Pready of partitions first..last (checked), NULL: not a sender. */
    int (*pready)(mca_part_ucx_request_t *req, size_t first, size_t last);
    /* MPI_Parrived of an active epoch, NULL: not a receiver. */
    int (*parrived)(mca_part_ucx_request_t *req, size_t first, size_t last, int *flag);
    /* MPIX_Pbuf_prepare of an active epoch. */
    int (*prepare)(mca_part_ucx_request_t *req);
    /* A completed epoch: whether the request may be freed (a collective's
     * channels may still be busy), NULL: always. */
    bool (*idle)(const mca_part_ucx_request_t *req);
    /* A device request bound to it (done_words: where kernels see partitions
     * done) or unbound (NULL), NULL: nothing to tell. */
    void (*dev_attach)(mca_part_ucx_request_t *req, volatile uint64_t *done_words,
                       volatile uint32_t *error);
    /* Whether the request (or, for a collective, one of its channels) still
     * waits for its peer's setup, NULL: never. Stream-ordered epochs begin
     * only after: finishing a setup may call CUDA synchronously (a
     * receive's GPU words), which must not wait behind a stream that waits
     * for this process. */
    bool (*setup_pending)(const mca_part_ucx_request_t *req);
    /* What the kind's progress waits on, to stderr, read without locks
     * (mca_part_ucx_dump), NULL: nothing beyond the base. */
    void (*dump)(const mca_part_ucx_request_t *req);
    /* Stream-ordered epochs a kind runs on the GPU itself (a collective's
     * GPU engine), NULL: none. gpu_epochs: the host word its GPU work sets
     * to each epoch complete, NULL where this request does not run so;
     * gpu_enqueue: its GPU work of an epoch, after the stream got here
     * (epoch 0: the stream's count, *epoch_word); gpu_epoch_word: a GPU
     * word a counted start also sets to the epoch, for that work to read,
     * and which that work sets to the next epoch as it completes;
     * gpu_join: the stream waits for that work. */
    const volatile uint64_t *(*gpu_epochs)(const mca_part_ucx_request_t *req);
    int (*gpu_enqueue)(mca_part_ucx_request_t *req, void *stream, uint64_t epoch,
                       const volatile uint64_t *epoch_word);
    volatile uint64_t *(*gpu_epoch_word)(const mca_part_ucx_request_t *req);
    int (*gpu_join)(mca_part_ucx_request_t *req, void *stream);
} mca_part_ucx_request_ops_t;

/* A device request's hooks into the request it is bound to
 * (part_ucx_devreq.c): the point-to-point and collective layers below it
 * consult the kernels' marks through them. */
typedef struct mca_part_ucx_dev_ops_t {
    void (*start)(mca_part_ucx_request_t *req);
    void (*release)(mca_part_ucx_request_t *req);
    /* Send: partitions kernels marked ready, to the host path. */
    void (*progress)(mca_part_ucx_request_t *req);
    /* Whether a kernel reported misuse; the request's error is then MPI_ERR_ARG. */
    bool (*failed)(mca_part_ucx_request_t *req);
    /* A send with misuse reported: whether it may complete (it then fails). */
    bool (*send_drained)(mca_part_ucx_request_t *req);
    /* Whether a kernel marked partition p of this epoch ready. */
    bool (*marked)(const mca_part_ucx_request_t *req, size_t p);
    /* Whether a kernel stored partition p of this epoch itself (kernel copy). */
    bool (*copied)(const mca_part_ucx_request_t *req, size_t p);
    /* Partitions a transport group of the device request (1: not grouped). */
    unsigned (*group)(const mca_part_ucx_request_t *req);
    /* Kernel copy: the kernels set the receiver's arrival flags themselves. */
    bool (*sets_arrivals)(const mca_part_ucx_request_t *req);
    /* Tell kernels the receiver's buffer of the current epoch is ready. */
    void (*rtr)(mca_part_ucx_request_t *req);
} mca_part_ucx_dev_ops_t;

/* The common base of every kind (super first, as ompi_request_t's users
 * do): what generic code (start, free, progress, the framework's entry
 * points, device requests) reads. */
struct mca_part_ucx_request_t {
    ompi_request_t super;
    const mca_part_ucx_request_ops_t *ops;
    mca_part_ucx_kind_t kind;       /* to check ids in messages, never to dispatch */
    mca_part_ucx_link_t link;       /* the module's active list */
    int32_t id;                     /* index in the module's request table */
    uint64_t cookie;                /* tells a reused id from the old request: unique
                                     * for the life of the process */
    opal_atomic_int32_t handlers;   /* AM callbacks using the request now */

    ompi_communicator_t *comm;
    int peer;                       /* rank in comm (remote group if inter) */
    int tag;
    bool proc_null;                 /* MPI_PROC_NULL peer: completes at once */
    bool takes_pready;              /* the user makes partitions ready (a send, a
                                     * collective but a bcast's non-root) */
    int source;                     /* MPI_SOURCE of its status */

    void *buf;
    size_t parts;
    size_t count;                   /* elements per partition */
    ompi_datatype_t *datatype;
    ptrdiff_t extent;
    size_t part_bytes;              /* packed bytes of one of our partitions */
    size_t total_bytes;
    bool device;                    /* buffer in accelerator (GPU) memory */

    uint64_t epoch;                 /* 0 before the first MPI_Start */
    volatile int setup;             /* mca_part_ucx_setup_t */
    int error;                      /* MPI error class reported at completion */

    /* Device bindings (MPIX_Prequest_create), NULL without. */
    struct mca_part_ucx_dev_t *dev;
    const mca_part_ucx_dev_ops_t *dev_ops;
    uint32_t pready_threads;        /* info "mpix_pready_threads": device calls per partition */
    int pready_aggregate;           /* mca_part_ucx_pready_aggregate_t, from info or MCA */

    /* Stream-ordered epochs (part_ucx_stream.c). The current epoch was
     * started by a stream: this side's host takes no part in it, and sees
     * it complete once *stream_done reaches *stream_epoch (the request's
     * epoch, or where a graph replays the starts, the stream's own count)
     * and the stream is past the request's last work (stream_event). */
    bool enqueued;
    /* Info "mpix_stream_kernels" of a send: its epochs are only enqueued and
     * only kernels on its stream make them ready, between start and wait;
     * with kernel copy the kernels count the epochs (kernels_count, from
     * the first enqueued start) and the stream carries no start or wait. */
    bool stream_only, kernels_count;
    uint64_t starts, waits;         /* enqueued starts and waits: one wait a start */
    mca_part_ucx_block_t stream_words; /* MCA_PART_UCX_STREAM_* (mapped), made on first use */
    /* Epochs the host runs in stream order (mca_part_ucx_request_drive):
     * where the current one is (MCA_PART_UCX_DRIVE_*), and the last one a
     * stream was given. */
    bool driven;
    volatile int drive_state;
    uint64_t enq_epoch;
    mca_part_ucx_link_t drive_link; /* the module's driven list */
    const volatile uint64_t *stream_wait; /* what the stream waits on (GPU memory) */
    bool stream_wait_gpu_scope;     /* and acquires at GPU scope (MCA_PART_UCX_WAIT_GPU_SCOPE) */
    bool stream_copy;               /* the stream moves each epoch at its wait
                                     * (mca_part_ucx_dev_stream_copy) */
    const volatile uint64_t *stream_done;
    const volatile uint64_t *stream_epoch;
    void *stream_event;
    /* stream_event was recorded after a wait of the stream on the epoch's
     * stream_wait word: once it completes the epoch is, though the host
     * word stream_done may lag (kernels write it after the GPU words
     * streams wait on, so that no fence waits for host memory). */
    bool stream_event_waited;
};

OBJ_CLASS_DECLARATION(mca_part_ucx_request_t);

/* An epoch the host runs in stream order: none under way, being begun by
 * the progress thread outside the module lock (progress must not look at
 * the epoch before, which is complete, and take it for this one), under
 * way. */
enum { MCA_PART_UCX_DRIVE_IDLE, MCA_PART_UCX_DRIVE_BEGINNING, MCA_PART_UCX_DRIVE_RUNNING };

/* A request's stream words (host memory mapped for the GPU): a graph's
 * epoch count and the epoch its next start takes (the pair the device
 * plugin's counted starts and waits keep: part_ucx_device.h); where the
 * host runs the epochs, the last epoch a stream started (the stream writes
 * it) and the last one complete (the host). */
#define MCA_PART_UCX_STREAM_COUNT 0
#define MCA_PART_UCX_STREAM_NEXT  1
#define MCA_PART_UCX_STREAM_START 2
#define MCA_PART_UCX_STREAM_DONE  3
#define MCA_PART_UCX_STREAM_WORDS 4

/* What a point-to-point send and receive share: the peer, the data as UCX
 * moves it, and the setup exchange. */
typedef struct mca_part_ucx_p2p_t {
    mca_part_ucx_request_t super;
    mca_part_ucx_peer_t *remote;    /* known once set up */
    char *data;                     /* contiguous: first byte of the data */
    size_t stride;                  /* bytes from one partition's data to the next: part_bytes,
                                     * or more where each partition is contiguous but the
                                     * datatype's extent leaves gaps (no packing then) */
    bool contiguous;
    char *pack_buf;                 /* non-contiguous: packed data, put/arrives here */
    bool am;                        /* partitions move as active messages */
    /* Epoch ahead (part_ucx_epoch_ahead_bytes; both sides): the sender may send an
     * epoch once the receiver started the previous one, the receiver holds
     * early partitions until its MPI_Start and sends its RTR lazily. */
    bool ahead;
    /* Remote side, from the setup exchange. */
    size_t remote_parts;            /* sender: receiver's partitions; receiver: sender's */
    ucp_rkey_h *buf_rkeys;          /* one per worker */
    ucp_rkey_h *flags_rkeys;
    ucp_rkey_h rtr_rkey;            /* worker 0 */
    void *ctrl_msg;                 /* setup record or its answer, kept until sent */
    void *ctrl_op;
} mca_part_ucx_p2p_t;

typedef struct mca_part_ucx_sendreq_t {
    mca_part_ucx_p2p_t super;
    bool rndv;                      /* am: GPU data by rendezvous, the receiver's buffer
                                     * being reachable zero-copy (cuda_ipc) */
    int device_copy;                /* mca_part_ucx_device_copy_t, from info or MCA */
    int device_group_bytes;         /* info "mpix_device_group_bytes" or MCA (-1: by mechanism) */
    uint64_t remote_buf;
    uint64_t remote_stride;         /* the receiver's stride, 0: its partitions are packed */
    uint64_t remote_flags;
    uint64_t remote_flags_chunk;    /* am: the receiver's shared chunk of them */
    uint64_t remote_flags_chunk_size;
    uint64_t remote_words;          /* exposed receive: its stream words, and their key */
    ucp_rkey_h words_rkey;
    const volatile uint64_t *peer_rtr; /* kernel copy: the receiver's ready-to-receive word
                                        * (its shared flags, mapped here), NULL: none */
    bool receiver_same_gpu;         /* MCA_PART_UCX_ACK_SAME_GPU */
    bool receiver_rtr_am;           /* MCA_PART_UCX_ACK_RTR_AM: no put reaches rtr_block */
    volatile bool receiver_gone;    /* its receive was freed (MCA_PART_UCX_RTR_RELEASED) */
    mca_part_ucx_block_t rtr_block; /* receiver writes the epoch it is ready for */
    volatile uint64_t *part_state;  /* MCA_PART_UCX_QUEUED / MCA_PART_UCX_ISSUED */
    opal_atomic_int64_t queued;     /* partitions waiting for the receiver */
    opal_atomic_int64_t ops_done;   /* completed puts in this epoch */
    uint64_t *flag_values;          /* put sources, stable until completion */
    mca_part_ucx_data_hdr_t *am_hdrs; /* am transfer: headers, stable until completion */
    /* GPU data on a node, host copy: the receiver's buffer mapped here
     * (cuda_ipc rkey_ptr); runs of partitions are copied on a stream and
     * their arrivals sent as each copy completes, in order: seen by its
     * event, or for a run a kernel copied, by the kernel's sequence number
     * in hcopy_word (host memory). */
    char *hcopy_dst;
    void *hcopy_stream;
    mca_part_ucx_block_t hcopy_word;
    uint64_t hcopy_seq;             /* the last sequence number given a kernel */
    struct mca_part_ucx_hcopy_run_t *hcopy_runs; /* ring of parts entries */
    size_t hcopy_head, hcopy_tail;
    opal_atomic_lock_t hcopy_lock;  /* issue (any thread) vs progress */
} mca_part_ucx_sendreq_t;

OBJ_CLASS_DECLARATION(mca_part_ucx_sendreq_t);

typedef struct mca_part_ucx_recvreq_t {
    mca_part_ucx_p2p_t super;
    mca_part_ucx_post_t post;       /* in its bucket until matched */
    bool exposed;                   /* GPU buffer mapped for the sender's kernels */
    bool sender_stream_only;        /* MCA_PART_UCX_SRC_STREAM_ONLY */
    bool sender_stream_copy;        /* MCA_PART_UCX_SRC_STREAM_COPY */
    bool sender_same_gpu;           /* the send buffer is on this GPU (ranks sharing it) */
    bool same_gpu_data;             /* and so is this buffer: the sender's kernels' stores
                                     * stay in this GPU's memory (MCA_PART_UCX_ACK_SAME_GPU) */
    bool shared_flags;              /* flags_block in shared memory mapped for the GPU, with
                                     * the two words of MCA_PART_UCX_RECV_RTR_WORD after them */
    uint64_t *words;                /* exposed: MCA_PART_UCX_RECV_WORDS words of GPU memory */
    int words_dev;                  /* their device (mca_part_ucx_devmem_alloc) */
    ucp_mem_h words_memh;
    uint64_t remote_rtr;
    mca_part_ucx_block_t flags_block; /* one flag per sender partition */
    ucp_mem_h buf_memh;
    size_t arrived_prefix;          /* sender partitions below have arrived this epoch */
    volatile uint64_t *unpacked;    /* non-contiguous: 2e once partition unpacked in epoch e,
                                     * 2e - 1 while a thread unpacks it */
    uint64_t rtr_value;             /* put source for the ready-to-receive */
    void *rtr_op;                   /* outstanding RTR put, NULL when none */
    opal_atomic_lock_t rtr_op_lock; /* rtr_op and its source: MPI_Start, progress,
                                     * MPIX_Pbuf_prepare may send or release it */
    bool rtr_am;                    /* RTR as a message (mca_part_ucx_rtr_by_am) */
    mca_part_ucx_rtr_msg_t rtr_msg; /* its source */
    struct mca_part_ucx_held_t *early_msgs; /* one epoch ahead: early partition messages */
    uint64_t rtr_owed_epoch;        /* epoch whose RTR is not sent yet, or 0
                                     * (under the peer's rtr_lock) */
    opal_atomic_lock_t early_msgs_lock; /* early_msgs vs the epoch, between MPI_Start and
                                         * handlers */
} mca_part_ucx_recvreq_t;

OBJ_CLASS_DECLARATION(mca_part_ucx_recvreq_t);

typedef struct mca_part_ucx_collreq_t {
    mca_part_ucx_request_t super;
    struct mca_part_ucx_coll_t *coll; /* its schedule and state (part_ucx_coll.h) */
    mca_part_ucx_block_t coll_done_block; /* with a device request: epoch per partition
                                           * done, mapped for kernels */
    /* The GPU engine's (part_ucx_coll_gpu.h), which a device request uses
     * instead: the ready words its kernels mark (GPU memory) and the done
     * words its kernel writes (host memory); NULL without the engine. */
    volatile uint64_t *gpu_ready, *gpu_done;
    bool gpu_scope; /* the engine's ranks all on this GPU (mca_part_ucx_gcoll_gpu_scope) */
    bool gpu_ordered; /* gpu_ready are stream-ordered marks (mca_part_ucx_gcoll_ordered) */
} mca_part_ucx_collreq_t;

OBJ_CLASS_DECLARATION(mca_part_ucx_collreq_t);

/* The kinds from the base: only where the kind is known (as container_of,
 * whatever the constness). */
static inline mca_part_ucx_p2p_t *mca_part_ucx_p2p(const mca_part_ucx_request_t *req)
{
    return (mca_part_ucx_p2p_t *) req;
}

static inline mca_part_ucx_sendreq_t *mca_part_ucx_sendreq(const mca_part_ucx_request_t *req)
{
    return (mca_part_ucx_sendreq_t *) req;
}

static inline mca_part_ucx_recvreq_t *mca_part_ucx_recvreq(const mca_part_ucx_request_t *req)
{
    return (mca_part_ucx_recvreq_t *) req;
}

static inline mca_part_ucx_collreq_t *mca_part_ucx_collreq(const mca_part_ucx_request_t *req)
{
    return (mca_part_ucx_collreq_t *) req;
}


int mca_part_ucx_check_args(const void *buf, size_t parts, size_t count,
                            ompi_datatype_t *datatype, int peer, int tag,
                            ompi_communicator_t *comm);
/* What every kind of request sets first (collectives too). */
void mca_part_ucx_request_init_base(mca_part_ucx_request_t *req, mca_part_ucx_kind_t kind,
                                    const mca_part_ucx_request_ops_t *ops, size_t parts,
                                    size_t count, ompi_datatype_t *datatype, int peer,
                                    ompi_communicator_t *comm);
/* List the request (id for control messages, MPIX_Prequest_free) with a
 * fresh cookie. */
int mca_part_ucx_request_register(mca_part_ucx_request_t *req);
/* A point-to-point request's common part (mca_part_ucx_p2p_t), and the base. */
int mca_part_ucx_request_setup(mca_part_ucx_request_t *req, mca_part_ucx_kind_t kind,
                               const mca_part_ucx_request_ops_t *ops, const void *buf,
                               size_t parts, size_t count, ompi_datatype_t *datatype, int peer,
                               int tag, ompi_communicator_t *comm);
/* What mca_part_ucx_request_setup gave a point-to-point request: its
 * kind's release ends with it. */
void mca_part_ucx_p2p_release(mca_part_ucx_p2p_t *p2p);
int mca_part_ucx_start(size_t count, ompi_request_t **requests);
/* MPIX_Pbuf_prepare of one request. */
int mca_part_ucx_pbuf_prepare(ompi_request_t *request);
/* A point-to-point request's setup_pending. */
bool mca_part_ucx_p2p_setup_pending(const mca_part_ucx_request_t *req);
/* The workers, control messages and every active request once; the
 * module's progress function. */
int mca_part_ucx_request_progress(void);
/* mca_part_ucx_dump's part: every active or stream-driven request's state
 * to stderr, read without locks. */
void mca_part_ucx_request_dump(void);
/* One line of it ("part/ucx dump PID: " first): the kinds' dump ops use it. */
void mca_part_ucx_dump_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* True on the progress thread of stream-ordered epochs only. */
extern opal_thread_local bool mca_part_ucx_on_progress_thread;
void mca_part_ucx_request_complete(mca_part_ucx_request_t *req);
/* Send: this epoch's partitions may go (the receiver started it, or the
 * previous one where it holds early partitions: not where this process
 * copies into the receiver's exposed GPU buffer itself, which nothing
 * holds). */
static inline bool mca_part_ucx_receiver_ready(const mca_part_ucx_sendreq_t *sreq)
{
    /* a receiver whose epochs a stream starts sends no message: its word;
     * one epoch ahead of a receive that was freed is none */
    return MCA_PART_UCX_SETUP_DONE == sreq->super.super.setup &&
           (*(volatile uint64_t *) sreq->rtr_block.addr +
                    ((sreq->super.ahead && NULL == sreq->hcopy_dst && !sreq->receiver_gone) ? 1
                                                                                          : 0) >=
                sreq->super.super.epoch ||
            (NULL != sreq->peer_rtr && *sreq->peer_rtr >= sreq->super.super.epoch));
}
void mca_part_ucx_request_fail(mca_part_ucx_request_t *req, int error);
void mca_part_ucx_request_activate(mca_part_ucx_request_t *req);
/* Begin the stream-ordered epochs the host runs whose start a stream
 * reached (the progress thread; not under the module lock). */
void mca_part_ucx_request_drive_begin(void);
/* On or off the module's driven list (under the module lock). */
void mca_part_ucx_request_drive_on(mca_part_ucx_request_t *req);
void mca_part_ucx_request_drive_off(mca_part_ucx_request_t *req);
/* The live request of this id and cookie, or NULL. _get (from AM callbacks,
 * any thread) holds it until _put: its release waits for that. */
mca_part_ucx_request_t *mca_part_ucx_request_lookup(int32_t id, uint64_t cookie);
mca_part_ucx_request_t *mca_part_ucx_request_get(int32_t id, uint64_t cookie);
void mca_part_ucx_request_put(mca_part_ucx_request_t *req);

/* part_ucx_sendreq.c */
int mca_part_ucx_psend_init(const void *buf, size_t parts, size_t count,
                            ompi_datatype_t *datatype, int dst, int tag,
                            ompi_communicator_t *comm, ompi_info_t *info,
                            ompi_request_t **request);
/* Control handlers (mca_part_ucx_ctrl_handlers_t). */
void mca_part_ucx_send_answer(const mca_part_ucx_ack_msg_t *ack, size_t len);
void mca_part_ucx_send_rtr_arrived(const mca_part_ucx_rtr_msg_t *msg);
/* At finalize: the bookkeeping of the ready-to-receive words freed sends hold. */
void mca_part_ucx_send_fini(void);
/* That bookkeeping's counts, read without locks (mca_part_ucx_dump). */
void mca_part_ucx_send_dump_words(void);
/* Mark partition p ready (queued) in this epoch; false if it already was. */
bool mca_part_ucx_claim_ready(mca_part_ucx_request_t *req, size_t p);
bool mca_part_ucx_claim_copied(mca_part_ucx_request_t *req, size_t p);
void mca_part_ucx_send_copied(mca_part_ucx_request_t *req, size_t first, uint64_t bits);

/* A device request's hooks (req->dev non-NULL). */
static inline bool mca_part_ucx_dev_failed(mca_part_ucx_request_t *req)
{
    return req->dev_ops->failed(req);
}

static inline bool mca_part_ucx_dev_send_drained(mca_part_ucx_request_t *req)
{
    return req->dev_ops->send_drained(req);
}

static inline bool mca_part_ucx_dev_marked(const mca_part_ucx_request_t *req, size_t p)
{
    return req->dev_ops->marked(req, p);
}

static inline bool mca_part_ucx_dev_copied(const mca_part_ucx_request_t *req, size_t p)
{
    return req->dev_ops->copied(req, p);
}

static inline unsigned mca_part_ucx_dev_group(const mca_part_ucx_request_t *req)
{
    return req->dev_ops->group(req);
}

static inline bool mca_part_ucx_dev_sets_arrivals(const mca_part_ucx_request_t *req)
{
    return req->dev_ops->sets_arrivals(req);
}

/* Info keys of device requests ("mpix_*") into the request's fields. */
int mca_part_ucx_request_dev_info(mca_part_ucx_request_t *req, ompi_info_t *info);

/* part_ucx_recvreq.c */
int mca_part_ucx_precv_init(void *buf, size_t parts, size_t count,
                            ompi_datatype_t *datatype, int src, int tag,
                            ompi_communicator_t *comm, ompi_info_t *info,
                            ompi_request_t **request);
/* Control handlers (mca_part_ucx_ctrl_handlers_t). */
void mca_part_ucx_recv_matched(mca_part_ucx_post_t *post, const mca_part_ucx_setup_msg_t *msg);
ucs_status_t mca_part_ucx_recv_data(ucp_worker_h worker, const mca_part_ucx_data_hdr_t *hdr,
                                    void *data, size_t length, bool rndv);
/* One epoch ahead: the ready-to-receive of this epoch, if not sent yet. */
/* Progress from a polling MPI_Parrived, one polling thread at a time. */
void mca_part_ucx_poll_progress(void);
/* MPI_Parrived of an active receive without any progress. */
int mca_part_ucx_arrived(mca_part_ucx_request_t *req, size_t min_part, size_t max_part,
                         int *flag);
void mca_part_ucx_recv_rtr_flush(mca_part_ucx_request_t *req);
/* Until the ready-to-receive sent last is out (any thread). */
void mca_part_ucx_recv_rtr_wait(mca_part_ucx_request_t *req);
/* One epoch ahead: a ready-to-receive owed to `peer`, to ride on a partition
 * message to it (rtr->epoch 0: none). */
void mca_part_ucx_recv_rtr_ride(mca_part_ucx_peer_t *peer, mca_part_ucx_rtr_msg_t *rtr);

/* Shared flags (the sender's kernels map them): after the sender's
 * partitions' flags, the receiver's ready-to-receive word (the epoch it
 * started last, written by its MPI_Start or its stream) and the done word
 * (the last epoch whose data the sender's kernels completed). */
#define MCA_PART_UCX_RECV_RTR_WORD(_rreq)  ((_rreq)->super.remote_parts)
#define MCA_PART_UCX_RECV_DONE_WORD(_rreq) ((_rreq)->super.remote_parts + 1)
/* The same two words in the receiver's GPU memory, which the sender's
 * kernels reach over NVLink and its stream waits on without crossing PCIe:
 * written in stream-ordered epochs only. */
#define MCA_PART_UCX_RECV_WORDS 2

/* The receive's words for stream-ordered epochs where the sender's kernels
 * store into its buffer and complete its epochs (else
 * OMPI_ERR_NOT_SUPPORTED): the ready-to-receive and done words in shared
 * host memory and in GPU memory. */
typedef struct mca_part_ucx_recv_words_t {
    volatile uint64_t *rtr, *done;
    volatile uint64_t *rtr_dev, *done_dev;
    bool same_gpu; /* the sender's kernels run on this GPU */
    /* and store into this GPU's memory: a wait acquires their data at GPU
     * scope (part_ucx_device_gpu_scope_fences) */
    bool gpu_scope;
} mca_part_ucx_recv_words_t;
int mca_part_ucx_recv_stream_words(mca_part_ucx_request_t *req, mca_part_ucx_recv_words_t *w);

/* A receive partition has arrived when every sender partition that
 * overlaps it has: partition counts may differ on the two sides. */
static inline void mca_part_ucx_overlap(const mca_part_ucx_p2p_t *p2p, size_t first,
                                        size_t last, size_t *sfirst, size_t *slast)
{
    const mca_part_ucx_request_t *req = &p2p->super;
    size_t spart_bytes, begin, end;

    if (0 == p2p->remote_parts) { /* an empty message: nothing to wait for */
        *sfirst = 1;
        *slast = 0;
        return;
    }
    spart_bytes = req->total_bytes / p2p->remote_parts;
    begin = first * req->part_bytes;
    end = (last + 1) * req->part_bytes;
    if (0 == spart_bytes) {
        *sfirst = 0;
        *slast = p2p->remote_parts - 1;
        return;
    }
    *sfirst = begin / spart_bytes;
    *slast = (end - 1) / spart_bytes;
}

/* Where the bytes UCX moves live: the user's GPU buffer, or host memory
 * (a host buffer, or the host pack buffer of a non-contiguous GPU one). */
static inline bool mca_part_ucx_data_on_device(const mca_part_ucx_p2p_t *p2p)
{
    return p2p->super.device && NULL == p2p->pack_buf;
}

END_C_DECLS

#endif /* MCA_PART_UCX_REQUEST_H */
