/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * part/ucx: MPI-4 partitioned communication over UCX.
 *
 * Each partition goes straight into the receiver's buffer: a put into its
 * registered memory followed, after a flush, by a put of the partition's
 * arrival flag (the epoch number), or, where UCX would only emulate the put
 * (tcp, host memory between processes of a node, GPU memory), an active
 * message whose header the receiver checks against the live request before
 * it writes the data in place and sets the flag itself. Either way
 * MPI_Parrived is a read of the receiver's own flag array.
 */

#ifndef MCA_PART_UCX_H
#define MCA_PART_UCX_H

#include "ompi_config.h"

#include <ucp/api/ucp.h>

#include "opal/class/opal_free_list.h"
#include "opal/class/opal_hash_table.h"
#include "opal/class/opal_pointer_array.h"
#include "opal/mca/base/mca_base_var_enum.h"
#include "opal/mca/threads/mutex.h"
#include "opal/util/misc.h"
#include "opal/util/output.h"
#include "opal/mca/common/ucx/common_ucx.h"
#include "ompi/mca/part/part.h"
#include "ompi/mca/part/base/base.h"

BEGIN_C_DECLS

typedef struct mca_part_ucx_request_t mca_part_ucx_request_t;
typedef struct mca_part_ucx_peer_t mca_part_ucx_peer_t;

/* Intrusive doubly linked list: requests move between the module's lists
 * on the slow path only, so no allocation is needed there. */
typedef struct mca_part_ucx_link_t {
    struct mca_part_ucx_link_t *prev, *next;
} mca_part_ucx_link_t;

typedef enum {
    MCA_PART_UCX_TRANSFER_AUTO,
    MCA_PART_UCX_TRANSFER_PUT,
    MCA_PART_UCX_TRANSFER_AM
} mca_part_ucx_transfer_t;

/* How kernels' MPIX_Pready move data (MCA part_ucx_device_copy, info key
 * "mpix_device_copy" of MPI_Psend_init). */
typedef enum {
    MCA_PART_UCX_DEVICE_COPY_AUTO,    /* kernel copy where the peer GPU is mapped */
    MCA_PART_UCX_DEVICE_COPY_PROGRESS,
    MCA_PART_UCX_DEVICE_COPY_KERNEL
} mca_part_ucx_device_copy_t;

/* What a start captured into a CUDA graph is made of (MCA
 * part_ucx_stream_graph_start): a one-thread kernel, or copies from host
 * memory, which need no SM (auto: copies for a receive whose sender's
 * kernels run on the same GPU and wait for the start). */
typedef enum {
    MCA_PART_UCX_GRAPH_START_AUTO,
    MCA_PART_UCX_GRAPH_START_KERNEL,
    MCA_PART_UCX_GRAPH_START_COPY
} mca_part_ucx_graph_start_t;

/* What a kernel's MPIX_Pready combines into one counter update (MCA
 * part_ucx_pready_aggregate, info key "mpix_pready_aggregate"); the values
 * of MPIX_PREQUEST_AGGREGATE_* in mpix_part_device.h. */
typedef enum {
    MCA_PART_UCX_PREADY_AGGREGATE_WARP,
    MCA_PART_UCX_PREADY_AGGREGATE_BLOCK
} mca_part_ucx_pready_aggregate_t;

typedef enum {
    MCA_PART_UCX_ALLREDUCE_AUTO,
    MCA_PART_UCX_ALLREDUCE_RING,
    MCA_PART_UCX_ALLREDUCE_RD
} mca_part_ucx_allreduce_t;

/* Enumerated parameters whose names info keys also take. */
typedef enum {
    MCA_PART_UCX_ENUM_DEVICE_COPY,
    MCA_PART_UCX_ENUM_PREADY_AGGREGATE,
    MCA_PART_UCX_ENUM_ALLREDUCE,
    MCA_PART_UCX_ENUM_COUNT
} mca_part_ucx_enum_id_t;

/* The MCA parameters (part_ucx_*), registered by part_ucx_component.c. */
typedef struct mca_part_ucx_params_t {
    int priority;
    int num_workers;
    int parrived_progress_interval;
    int transfer;
    int rtr;                        /* ready-to-receive: mca_part_ucx_transfer_t too */
    int device_copy;                /* mca_part_ucx_device_copy_t */
    int pready_aggregate;           /* mca_part_ucx_pready_aggregate_t */
    int allreduce_algorithm;        /* mca_part_ucx_allreduce_t */
    int allreduce_small;            /* bytes per partition for recursive doubling */
    int allreduce_ring_two;         /* two ranks, host buffers: ring from these bytes */
    int coll_transport_bytes;       /* collectives: smaller user partitions are grouped */
    int coll_transport_bytes_gpu;   /* the same on GPU buffers */
    int join_bytes;                 /* adjacent ready partitions per message/put, bytes */
    int join_bytes_gpu;             /* the same for GPU data */
    int device_group_bytes;         /* device sends: bytes of a transport group (-1: by mechanism) */
    int gpu_eager_bytes;            /* GPU data without a cuda_ipc mapping: eager up to this */
    bool device_arrivals;           /* kernel copy: kernels set the receiver's flags */
    bool device_rtr_cache;          /* kernel copy: receiver-ready word cached on the GPU */
    bool device_gpu_scope_fences;   /* kernel copy within one GPU: GPU-scope fences */
    bool gpu_host_copy;             /* GPU data on a node: the host copies it, no rendezvous */
    bool gpu_host_copy_kernel;      /* ... small runs by a kernel that sets a host word */
    bool stream_kernel_ops;         /* enqueued starts and waits: kernels, not memory operations */
    bool stream_copy_engine;        /* the progress engine's enqueued epochs within a node: the
                                     * stream copies them (no host) */
    int stream_copy_after_bytes;    /* stream-only kernel copy from these many bytes: the copy
                                     * runs after the kernels, which only mark (0: never) */
    int stream_graph_start;         /* mca_part_ucx_graph_start_t */
    bool stream_graph_join;         /* a captured start joins the wait before it */
    int epoch_ahead_bytes;          /* am transfer and RTR: senders one epoch ahead up to this */
    bool coll_gpu_engine;           /* collectives on GPU buffers within a node: GPU engine */
    int coll_gpu_unit_bytes;        /* the GPU engine's unit of work */
    int coll_gpu_span_unit_bytes;   /* the same where the ranks span GPUs */
    int coll_gpu_blocks;            /* the GPU engine kernel's blocks, at most */
    int coll_gpu_span_blocks;       /* the same where the ranks span GPUs */
    int coll_gpu_twoshot_bytes;     /* allreduce on 3+ ranks: two-shot from these many bytes */
    int coll_gpu_span_twoshot_bytes; /* the same where the ranks span GPUs */
    int coll_gpu_push_bytes;        /* allreduce: pushed up to these many bytes */
    int coll_gpu_span_push_bytes;   /* the same where the ranks span GPUs */
    int coll_gpu_bulk_bytes;        /* allreduce: else pushed whole up to these many bytes */
    bool coll_gpu_bulk_one_gpu;     /* ... also where every rank shares one GPU */
    int coll_gpu_ll128_bytes;       /* ... in 128-byte lines up to these many bytes (NVLink) */
    int coll_gpu_ll128_twoshot_bytes; /* two-shot in 128-byte lines up to these many bytes */
    int coll_gpu_twoshot_push;      /* two-shot pushes its slices: 0 never, 1 across GPUs, 2 also on one */
    int coll_gpu_span_twoshot_push_bytes; /* ... and on two ranks of two GPUs from these many bytes */
    bool coll_gpu_scope_fences;     /* GPU-scope fences where all ranks share one GPU */
    int coll_gpu_relay_bytes;       /* across GPUs the engine relays readiness up to these many bytes */
    int coll_gpu_priority;          /* the engine at the greatest priority: 0 never, 1 across GPUs, 2 also on one */
    int coll_gpu_after_bytes;       /* stream-ordered epochs from these many bytes on one GPU: the engine after the producers */
} mca_part_ucx_params_t;

typedef struct mca_part_ucx_component_t {
    mca_part_base_component_4_0_0_t super;
} mca_part_ucx_component_t;

OMPI_DECLSPEC extern mca_part_ucx_component_t mca_part_ucx_component;

/* The module: the part framework's entry points (filled in by part_ucx.c)
 * and the state every layer shares, defined in part_ucx_context.c, the
 * lowest layer. */
typedef struct mca_part_ucx_module_t {
    mca_part_base_module_t super;
    mca_part_ucx_params_t params;
    const mca_base_component_t *version; /* the component's: its modex key */
    mca_base_var_enum_t *enums[MCA_PART_UCX_ENUM_COUNT]; /* kept from registration */
    ucp_context_h context;
    int num_workers;
    ucp_worker_h *workers;
    /* modex blob: every worker's address, see part_ucx_ctrl.c */
    void *address_blob;
    size_t address_blob_len;
    opal_hash_table_t peers;            /* opal_process_name_t -> peer */
    opal_pointer_array_t requests;      /* id -> request, validates remote ids */
    /* Requests reached by id from AM callbacks: the table and the callbacks'
     * references are under this lock of its own, never the module lock
     * (held around UCX calls, while callbacks run holding a worker's). */
    opal_atomic_lock_t requests_lock;
    opal_hash_table_t seq_in;           /* (comm id, source) -> setup records seen */
    opal_hash_table_t seq_out;          /* (comm id, dest) -> setup records sent */
    opal_recursive_mutex_t lock;        /* matching, lists, tables: slow path only */
    /* Matching (part_ucx_ctrl.c): (comm id, source, tag) -> its bucket of
     * posted receives and unexpected setup records, each in order; and
     * (comm id, sender, seq) -> a record that came ahead of its sequence. */
    opal_hash_table_t match;
    opal_hash_table_t setup_ahead;
    int comm_keyval;                    /* communicator attribute: its state goes at free */
    mca_part_ucx_link_t active;         /* requests the progress function polls */
    opal_free_list_t op_ctx;            /* mca_part_ucx_op_ctx_get */
    opal_atomic_int32_t num_active;
    /* Requests whose stream-ordered epochs the host runs: polled for a
     * stream's start even where no epoch is active on the host (a graph's
     * replays start epochs the host never counted). */
    mca_part_ucx_link_t driven;
    opal_atomic_int32_t num_driven;
    /* The progress thread of those epochs runs (part_ucx_stream.c). */
    volatile bool progress_thread;
    /* Whether UCX has a transport that does RMA by itself, to a peer of this
     * node (shared memory) and of another (RDMA); where it has none it
     * emulates puts over active messages (tcp: ~20 us a put, 8 an active
     * message, as both need the target's progress). */
    bool rma_local, rma_remote;
    bool initialized;
} mca_part_ucx_module_t;

OMPI_DECLSPEC extern mca_part_ucx_module_t mca_part_ucx_module;

/* Logging through opal/mca/common/ucx's stream, as pml/ucx and osc/ucx
 * (opal_common_ucx_verbose; levels above 2 in debug builds only). */
#define MCA_PART_UCX_VERBOSE MCA_COMMON_UCX_VERBOSE
#define MCA_PART_UCX_ERROR   MCA_COMMON_UCX_ERROR
#define MCA_PART_UCX_WARN    MCA_COMMON_UCX_WARN

static inline void mca_part_ucx_link_init(mca_part_ucx_link_t *head)
{
    head->prev = head->next = head;
}

static inline bool mca_part_ucx_link_empty(const mca_part_ucx_link_t *head)
{
    return head->next == head;
}

static inline bool mca_part_ucx_link_linked(const mca_part_ucx_link_t *item)
{
    return NULL != item->next;
}

static inline void mca_part_ucx_link_append(mca_part_ucx_link_t *head,
                                            mca_part_ucx_link_t *item)
{
    item->next = head;
    item->prev = head->prev;
    head->prev->next = item;
    head->prev = item;
}

static inline void mca_part_ucx_link_remove(mca_part_ucx_link_t *item)
{
    item->prev->next = item->next;
    item->next->prev = item->prev;
    item->prev = item->next = NULL;
}

/* Room for one more element of `size` bytes in *array, which holds `used`
 * in room for *cap: the room doubles (16 at first) when full. False, the
 * array as it was, where memory runs out. */
static inline bool mca_part_ucx_grow(void **array, size_t used, size_t *cap, size_t size)
{
    size_t want = (0 == *cap) ? 16 : 2 * *cap;
    void *p;

    if (used < *cap) {
        return true;
    }
    if (want > SIZE_MAX / size || NULL == (p = realloc(*array, want * size))) {
        return false;
    }
    *array = p;
    *cap = want;
    return true;
}

/* part_ucx_context.c: the UCP context and its workers. */
int mca_part_ucx_context_init(void);
void mca_part_ucx_context_fini(void);
/* What a completion callback of the data path needs (a few words), from
 * a free list instead of malloc; any thread. NULL when out of memory. */
#define MCA_PART_UCX_OP_CTX_WORDS 4
void *mca_part_ucx_op_ctx_get(void);
void mca_part_ucx_op_ctx_put(void *ctx);
/* A message of help-part-ucx.txt, from any thread: once a process where
 * `shown` is given (the caller's flag), otherwise every time. */
void mca_part_ucx_show_help(opal_atomic_int32_t *shown, const char *topic, ...);

/* part_ucx_info.c: an info key's value into *value, left as it is where
 * the key is absent; MPI_ERR_INFO_VALUE for a value not allowed. */
int mca_part_ucx_info_enum(struct ompi_info_t *info, const char *key, mca_part_ucx_enum_id_t id,
                           int *value);
int mca_part_ucx_info_int(struct ompi_info_t *info, const char *key, int min, int *value);
int mca_part_ucx_info_bool(struct ompi_info_t *info, const char *key, bool *value);

/* part_ucx.c */
int mca_part_ucx_module_init(const mca_base_component_t *version, bool enable_mpi_threads);
int mca_part_ucx_module_fini(void);
/* For a hang: every active or stream-driven request's state, and the
 * ready-to-receive words freed sends hold, to stderr, read without locks
 * (tools/hangdump.c calls it by name from a watchdog thread). Not for use
 * while the module is finalizing. */
void mca_part_ucx_dump(void);
int mca_part_ucx_progress(void);

END_C_DECLS

#endif /* MCA_PART_UCX_H */
