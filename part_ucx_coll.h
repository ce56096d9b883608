/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Partitioned collectives on one schedule engine (Algorithms 1 and 2 of
 * Temucin et al., "Design and Implementation of MPI-Native GPU-Initiated
 * MPI Partitioned Communication"). A schedule, built once at init, is a list of steps; a step names
 * outgoing channels (made ready when a partition enters the step) and
 * incoming channels (waited on; reduced into the result or landed in
 * place). A channel is one of our own partitioned point-to-point requests,
 * so collectives move data with the same puts/messages and arrival flags.
 * Every transport partition walks the steps on its own, so partitions
 * pipeline through the schedule. Transport partitions are distinct from the
 * user's: consecutive small user partitions share one (it starts when all of
 * them are ready, and MPI_Parrived sees them arrive together), so
 * per-partition costs count once per group. Adding a collective means
 * writing a builder.
 */

#ifndef MCA_PART_UCX_COLL_H
#define MCA_PART_UCX_COLL_H

#include "part_ucx_request.h"

#include "ompi/op/op.h"

#include "part_ucx_device.h"

BEGIN_C_DECLS

#define MCA_PART_UCX_NO_CHAN INT_MAX /* an empty chunk: nothing to move */

typedef struct mca_part_ucx_chan_t {
    ompi_request_t *req;            /* internal partitioned request */
    bool send;
    bool reduce;                    /* receive: reduce into the result (else lands in place) */
    bool staged;                    /* send: copied out at MPI_Pready (see commit) */
    bool from_send;                 /* send: straight from the user's send buffer */
    bool bounce;                    /* receive (GPU): a chunk lands in tmp, then in place */
    bool first;                     /* receive, no_copy_in: result = own contribution op tmp */
    int peer;
    char *tmp;                      /* reduce, staged or bounce: parts x len elements */
    size_t off, len;                /* element offset (partition 0) and elements per partition;
                                     * partition p is at off + p * count */
} mca_part_ucx_chan_t;

/* A step's channels: nout entries of the collective's out list from out0,
 * nin of its in list from in0 (channels join only the newest step, so each
 * step's entries are consecutive and a step costs the same at any fan). */
typedef struct mca_part_ucx_step_t {
    int out0, nout, in0, nin;
} mca_part_ucx_step_t;

/* The GPU engine's settings that shape its windows, units and protocol
 * (MCA part_ucx_coll_gpu_*): ranks that differ would map each other's
 * words at other offsets, or run other algorithms, and hang or corrupt
 * results. Declared the same on every process, but nothing enforces that
 * for MCA variables, so the ranks settle them at init with the
 * collective's arguments: each takes the smallest of every rank's values
 * (0 turns a choice off). Negative values count as their least. */
typedef struct mca_part_ucx_gcoll_params_t {
    uint64_t unit_bytes;      /* part_ucx_coll_gpu_unit_bytes, at least 16 */
    uint64_t span_unit_bytes; /* part_ucx_coll_gpu_span_unit_bytes, at least 16 */
    uint64_t blocks;          /* part_ucx_coll_gpu_blocks, at least 1 (units follow it) */
    uint64_t twoshot_bytes;   /* part_ucx_coll_gpu_twoshot_bytes */
    uint64_t span_twoshot_bytes; /* part_ucx_coll_gpu_span_twoshot_bytes */
    uint64_t push_bytes;      /* part_ucx_coll_gpu_push_bytes */
    uint64_t span_push_bytes; /* part_ucx_coll_gpu_span_push_bytes */
    uint64_t bulk_bytes;      /* part_ucx_coll_gpu_bulk_bytes */
    uint64_t scope_fences;    /* part_ucx_coll_gpu_scope_fences */
    uint64_t bulk_one_gpu;    /* part_ucx_coll_gpu_bulk_one_gpu */
    uint64_t ll128_bytes;     /* part_ucx_coll_gpu_ll128_bytes */
    uint64_t ll128_twoshot_bytes; /* part_ucx_coll_gpu_ll128_twoshot_bytes */
    uint64_t span_blocks;     /* part_ucx_coll_gpu_span_blocks, at least 1 */
    uint64_t twoshot_push;    /* part_ucx_coll_gpu_twoshot_push */
    uint64_t span_twoshot_push_bytes; /* part_ucx_coll_gpu_span_twoshot_push_bytes */
    uint64_t relay_bytes;     /* part_ucx_coll_gpu_relay_bytes */
} mca_part_ucx_gcoll_params_t;

typedef struct mca_part_ucx_coll_t {
    ompi_communicator_t *comm;
    ompi_communicator_t *chan_comm; /* the channels': mca_part_ucx_coll_channels */
    int chan_tag;
    ompi_datatype_t *dtype;
    ompi_op_t *op;                  /* NULL: no reduction */
    const char *sendbuf;            /* NULL: in place or none */
    size_t own_src, own_dst;        /* elements: where MPI_Pready copies our own part from/to */
    char *acc;                      /* the result, user memory */
    size_t parts, count;            /* transport partitions, elements per partition */
    size_t group;                   /* user partitions per transport partition */
    size_t user_parts;              /* parts * group */
    uint64_t *user_ready;           /* per user partition: epoch of its MPI_Pready */
    size_t *ready_count;            /* per transport partition: user partitions ready */
    ptrdiff_t extent;
    bool user_pready;               /* this rank makes partitions ready (else at start) */
    bool no_copy_in;                /* the builder reads our contribution from sendbuf (step-0
                                     * sends, first reductions): no copy into the result */

    /* The schedule; the arrays grow as the builder adds to them, so an
     * init allocates what its schedule uses (O(log n) for trees). */
    int nchans, nsteps, nouts, nins, max_chans, max_steps, max_outs, max_ins;
    mca_part_ucx_chan_t *chans;
    mca_part_ucx_step_t *steps;
    int *outs, *ins;                /* channel indices, per step (out0/in0) */

    void *owned;                    /* result buffer of ranks that get none (reduce) */
    size_t owned_bytes;
    char *scratch;                  /* every channel's tmp, one allocation */
    size_t scratch_bytes;
    int dev_id;                     /* of scratch and owned */
    volatile int *state;            /* per partition: step waited on, -1 before, -2 begun,
                                     * nsteps done */
    size_t done;                    /* partitions complete this epoch */

    /* GPU buffers: copies and reductions run on the device plugin's stream;
     * a partition takes its next state once its event has completed. */
    bool device;
    const mca_part_ucx_device_ops_t *gpu;
    void *stream;
    void **events;                  /* per partition */
    int *gpu_pending_state;         /* per partition: state after the GPU work, or -1 */
    int gpu_op, gpu_type;           /* the kernels' op and element type */
    volatile uint64_t *done_words;  /* device request: epoch each partition completed */
    /* info "mpix_stream_kernels": every epoch starts and completes on a
     * stream, and only kernels on it between the two call MPIX_Pready */
    bool stream_kernels;
    /* The GPU engine (part_ucx_coll_gpu.h) where every rank agreed to it:
     * no schedule, no channels; and the settings of it that every rank
     * must share (settled at init: mca_part_ucx_gcoll_params_t). */
    struct mca_part_ucx_gcoll_t *gcoll;
    mca_part_ucx_gcoll_params_t gparams;
    opal_mutex_t lock;
} mca_part_ucx_coll_t;

/* Builders (part_ucx_schedule.c) use these. */
int mca_part_ucx_coll_chan(mca_part_ucx_coll_t *c, bool send, int peer, size_t off, size_t len,
                           bool reduce);
int mca_part_ucx_coll_step(mca_part_ucx_coll_t *c);
/* After the builder: create the channels' requests, in declaration order. */
int mca_part_ucx_coll_commit(mca_part_ucx_coll_t *c);
/* Add a channel (or MCA_PART_UCX_NO_CHAN: nothing) to the newest step. */
int mca_part_ucx_step_out(mca_part_ucx_coll_t *c, int step, int chan);
int mca_part_ucx_step_in(mca_part_ucx_coll_t *c, int step, int chan);

/* Allreduce schedule: MCA_PART_UCX_ALLREDUCE_*, auto resolved from the
 * partition's bytes and whether any rank's buffers are on a GPU (so that
 * every rank picks the same). */
int mca_part_ucx_allreduce_info(ompi_info_t *info, int *alg);
int mca_part_ucx_build_allreduce(mca_part_ucx_coll_t *c, int alg, bool any_device);
int mca_part_ucx_build_bcast(mca_part_ucx_coll_t *c, int root);
int mca_part_ucx_build_reduce(mca_part_ucx_coll_t *c, int root);
int mca_part_ucx_build_allgather(mca_part_ucx_coll_t *c);
int mca_part_ucx_build_alltoall(mca_part_ucx_coll_t *c);

/* The kind's operations (part_ucx_request.h). */
extern const mca_part_ucx_request_ops_t mca_part_ucx_coll_ops;
/* The communicator and tag of the channels, before they are created. */
int mca_part_ucx_coll_channels(mca_part_ucx_coll_t *c);
/* GPU buffers: the plugin and the kernels for the type and op (before the
 * ranks agree), then the stream and the events (after). */
int mca_part_ucx_coll_device_check(mca_part_ucx_coll_t *c, bool reduction);
int mca_part_ucx_coll_device(mca_part_ucx_coll_t *c);
/* Scratch memory where the collective's buffers are (host or GPU). */
void *mca_part_ucx_coll_alloc(mca_part_ucx_coll_t *c, size_t bytes);

END_C_DECLS

#endif /* MCA_PART_UCX_COLL_H */
