/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Control path: peers (UCP endpoints from modex addresses), the setup
 * exchange as UCP active messages on worker 0, and matching of setup
 * records with MPI_Precv_init requests.
 */

#ifndef MCA_PART_UCX_CTRL_H
#define MCA_PART_UCX_CTRL_H

#include "part_ucx.h"

#include "ompi/communicator/communicator.h"
#include "ompi/proc/proc.h"

BEGIN_C_DECLS

#define MCA_PART_UCX_AM_SETUP 0x5043 /* sender -> receiver */
#define MCA_PART_UCX_AM_ACK   0x5044 /* receiver -> sender */
#define MCA_PART_UCX_AM_DATA  0x5045 /* sender -> receiver, am transfer only */
#define MCA_PART_UCX_AM_RTR   0x5046 /* receiver -> sender, where a put would be emulated */

#define MCA_PART_UCX_MAX_RKEY 1024

typedef struct mca_part_ucx_rkey_t mca_part_ucx_rkey_t;
typedef struct mca_part_ucx_bucket_t mca_part_ucx_bucket_t;

/* An entry of a bucket's posted list: a receive waiting for its setup
 * record, or (req NULL) what is left of one freed before: MPI matches
 * partitioned inits in order, so the next record of its (communicator,
 * source, tag) is still its own, consumed and answered with an error
 * in its place. */
typedef struct mca_part_ucx_post_t {
    mca_part_ucx_link_t link;
    mca_part_ucx_bucket_t *bucket;  /* NULL: not posted */
    bool tombstone;
} mca_part_ucx_post_t;

struct mca_part_ucx_peer_t {
    opal_process_name_t name;
    ucp_ep_h *eps;                  /* one per worker */
    mca_part_ucx_rkey_t *rkeys;     /* unpacked keys of the peer's control chunks */
    /* One epoch ahead: a receive from this peer whose ready-to-receive is
     * owed, to ride on the next partition message to the peer. */
    struct mca_part_ucx_recvreq_t *rtr_owed_req;
    opal_atomic_lock_t rtr_lock;
};

#define MCA_PART_UCX_ACK_AHEAD 2u
/* The answer's flags: the receive buffer is in the memory of the GPU the
 * setup record named (src_gpu), which the receiver's threads run on too:
 * the sender's kernels may release their stores into it at GPU scope
 * (part_ucx_device_gpu_scope_fences). Only the receiver's own data depends
 * on it. */
#define MCA_PART_UCX_ACK_SAME_GPU 1u
/* ... and the receiver sends its ready-to-receive as active messages
 * (MCA_PART_UCX_AM_RTR), which the sender's handler writes into its word
 * only for the live request: no put of the receiver reaches the word. */
#define MCA_PART_UCX_ACK_RTR_AM 2u

/* Sender -> receiver, once per MPI_Psend_init. */
typedef struct mca_part_ucx_setup_msg_t {
    mca_part_ucx_link_t link;       /* local: its bucket's unexpected list */
    int32_t error;                  /* local: MPI error class of a record that could
                                     * not be used; the receive it matches fails */
    ompi_comm_extended_cid_t cid;
    opal_process_name_t sender;
    int32_t src;                    /* sender's rank in the communicator */
    int32_t tag;
    uint64_t seq;                   /* per (communicator id, receiver) */
    int32_t sreq_id;
    uint32_t rtr_rkey_len;
    uint64_t sreq_cookie;
    uint32_t src_device;            /* MCA_PART_UCX_SRC_*: 0, host send buffer */
    uint64_t parts;
    uint64_t total_bytes;
    uint64_t rtr_addr;
    uint64_t src_gpu;               /* the send buffer's GPU: mca_part_ucx_gpu_id, 0 unknown */
    uint8_t rtr_rkey[];
} mca_part_ucx_setup_msg_t;

/* The setup record's src_device: the send buffer is in GPU memory, and its
 * kernels may store into the receiver's (kernel copy not declined by the
 * info key "mpix_device_copy" or the MCA parameter). */
#define MCA_PART_UCX_SRC_DEVICE      1u
#define MCA_PART_UCX_SRC_KERNEL_COPY 2u
/* Its epochs are only ever started on a stream (info "mpix_stream_kernels"):
 * its kernels read the receiver's ready-to-receive in GPU memory only, and
 * the receiver's stream need not write the host word. */
#define MCA_PART_UCX_SRC_STREAM_ONLY 4u
/* A stream-only send on the progress engine whose stream copies its
 * epochs (part_ucx_stream_copy_engine): that stream also writes the
 * receiver's done words, so that the receiver's stream-ordered epochs need
 * no host either; it waits for the receiver's host-memory ready-to-receive,
 * which the receiver's stream then writes too. */
#define MCA_PART_UCX_SRC_STREAM_COPY 8u

/* Receiver -> sender, once the setup record matched. */
typedef struct mca_part_ucx_ack_msg_t {
    int32_t sreq_id;
    int32_t rreq_id;
    int32_t error;                  /* MPI error class, MPI_SUCCESS if matched */
    uint32_t buf_rkey_len;
    uint32_t flags_rkey_len;
    uint32_t am;                    /* 1: send partitions as active messages, | 2
                                     * (MCA_PART_UCX_ACK_AHEAD): one epoch ahead */
    uint64_t sreq_cookie;
    uint64_t rreq_cookie;
    uint64_t parts;
    uint64_t total_bytes;
    uint64_t buf_addr;
    uint64_t flags_addr;
    uint64_t buf_stride;            /* receiver partitions this far apart; 0: packed */
    uint64_t flags_chunk_addr;      /* the shared chunk the flags are in, which a */
    uint64_t flags_chunk_size;      /* sender's GPU may write (kernel copy) */
    uint64_t words_addr;            /* exposed buffer: the receiver's stream words in its
                                     * GPU memory (MCA_PART_UCX_RECV_WORDS), 0: none */
    uint32_t words_rkey_len;
    uint32_t flags;                 /* MCA_PART_UCX_ACK_SAME_GPU, _RTR_AM */
    uint8_t rkeys[];                /* buf rkey, flags rkey, then words rkey */
} mca_part_ucx_ack_msg_t;

/* Receiver -> sender: ready for `epoch`, by active message where UCX has no
 * transport that puts it into the sender's word by itself. */
typedef struct mca_part_ucx_rtr_msg_t {
    int32_t sreq_id;
    uint32_t pad;
    uint64_t sreq_cookie;
    uint64_t epoch;
} mca_part_ucx_rtr_msg_t;

/* An rtr message's epoch that says instead: the receive was freed, and no
 * put of its ready-to-receive can follow (sent after an endpoint flush):
 * the sender may give its word to another request. */
#define MCA_PART_UCX_RTR_RELEASED UINT64_MAX

/* Header of a partition sent as an active message: the receiver checks
 * every field before it writes anything. */
typedef struct mca_part_ucx_data_hdr_t {
    int32_t rreq_id;
    uint32_t pad;
    uint64_t rreq_cookie;
    uint64_t epoch;
    uint64_t part;
    uint64_t count;                 /* data of partitions part .. part + count - 1,
                                     * contiguous on both sides */
    uint64_t copied;                /* bit i: a kernel already stored partition
                                     * part + i; only arrivals, no data */
    mca_part_ucx_rtr_msg_t rtr;     /* a ready-to-receive riding along (epoch 0: none):
                                     * one epoch ahead, one this process owes the peer */
} mca_part_ucx_data_hdr_t;

/* What the request layers above do with the messages this layer receives,
 * given once at init (part_ucx.c). This layer checks the messages' sizes;
 * the handlers check every field against the live request. */
typedef struct mca_part_ucx_ctrl_handlers_t {
    /* Receiver, progress: a setup record matched the posted receive of
     * `post`; msg->error says if the record is unusable (its sender is
     * told already). */
    void (*matched)(mca_part_ucx_post_t *post, const mca_part_ucx_setup_msg_t *msg);
    /* Sender, progress: the answer to its setup record. */
    void (*answer)(const mca_part_ucx_ack_msg_t *ack, size_t len);
    /* Sender, AM callback (any thread): a ready-to-receive. */
    void (*rtr)(const mca_part_ucx_rtr_msg_t *msg);
    /* Receiver, AM callback (any thread): a partition message. */
    ucs_status_t (*data)(ucp_worker_h worker, const mca_part_ucx_data_hdr_t *hdr, void *data,
                         size_t length, bool rndv);
} mca_part_ucx_ctrl_handlers_t;

int mca_part_ucx_ctrl_init(const mca_part_ucx_ctrl_handlers_t *handlers);
void mca_part_ucx_ctrl_fini(void);

mca_part_ucx_peer_t *mca_part_ucx_peer_get(ompi_proc_t *proc);
mca_part_ucx_peer_t *mca_part_ucx_peer_get_by_name(const opal_process_name_t *name);
/* The unpacked key of one of the peer's control chunks (flags, ready
 * words), unpacked once per chunk and worker and owned by the peer: with
 * shared-memory transports, unpacking attaches the peer's segment and
 * destroying detaches it, which cost more than all the rest of an init. */
int mca_part_ucx_peer_rkey(mca_part_ucx_peer_t *peer, int worker, const void *packed,
                           size_t len, ucp_rkey_h *rkey);
/* [addr, addr + len) of a peer's control chunk (chunk_addr, chunk_size),
 * reached through `rkey` (from mca_part_ucx_peer_rkey) as local memory that
 * this process's GPU may store into: the peer's shared memory mapped here
 * (ucp_rkey_ptr) and registered with the accelerator, once per chunk. An
 * error where UCX maps no shared memory or the range is outside the chunk. */
int mca_part_ucx_peer_gpu_ptr(mca_part_ucx_peer_t *peer, ucp_rkey_h rkey, uint64_t chunk_addr,
                              uint64_t chunk_size, uint64_t addr, size_t len, void **ptr);

/* Send a control message on worker 0. The caller keeps the buffer until
 * *op (NULL when done at once) completes: see mca_part_ucx_op_release(). */
int mca_part_ucx_ctrl_send(mca_part_ucx_peer_t *peer, unsigned id, const void *buf,
                           size_t len, void **op);
void mca_part_ucx_op_release(void **op);

/* Receiver, at a receive's free: tell its sender that no ready-to-receive
 * of the send `rtr` names can follow (MCA_PART_UCX_RTR_RELEASED): where it
 * sent any (`sent`), they are flushed to the sender first, then the
 * message goes, without waiting for it. */
void mca_part_ucx_ctrl_rtr_released(mca_part_ucx_peer_t *peer, const mca_part_ucx_rtr_msg_t *rtr,
                                    bool sent);

/* Send a setup record with the next sequence number of its (communicator
 * id, receiver); the number is used only if the send starts. */
int mca_part_ucx_ctrl_send_setup(mca_part_ucx_peer_t *peer, ompi_communicator_t *comm,
                                 mca_part_ucx_setup_msg_t *msg, size_t len, void **op);

/* Receiver side matching of a new MPI_Precv_init (its `post`) against
 * setup records that came first; the caller holds the module lock. */
int mca_part_ucx_match_posted(mca_part_ucx_post_t *post, ompi_communicator_t *comm, int src,
                              int tag);
/* A receive freed before its record came: leave its place to a
 * tombstone; the caller holds the module lock. */
void mca_part_ucx_match_withdraw(mca_part_ucx_post_t *post);
/* What the component keeps per communicator: an attribute with a delete
 * callback, set at its first partitioned init, which also drops the
 * communicator's matching state when it is freed. */
typedef struct mca_part_ucx_comm_state_t {
    /* Partitioned collectives: a duplicate of the communicator for their
     * channels (created by the first, collectively), and the collectives
     * initialized on it so far, which tags each one's channels. */
    ompi_communicator_t *coll_comm;
    uint32_t coll_seq;
} mca_part_ucx_comm_state_t;

/* The communicator's state; NULL when out of memory. */
mca_part_ucx_comm_state_t *mca_part_ucx_comm_state(ompi_communicator_t *comm);

/* Handle control messages queued by the AM callbacks (outside them, where
 * blocking UCX calls are allowed). */
int mca_part_ucx_ctrl_progress(void);

/* Wait until a UCP operation completes, progressing the worker. */
ucs_status_t mca_part_ucx_wait(ucp_worker_h worker, void *op);

END_C_DECLS

#endif /* MCA_PART_UCX_CTRL_H */
