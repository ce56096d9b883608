/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The device plugin (part_ucx_device.so, built by nvcc from
 * part_ucx_device.cu): what partitioned collectives on GPU buffers run on
 * the GPU, on a non-blocking stream each collective owns, so neither the
 * whole device nor the application's streams are synchronised. libmpi
 * loads it with dlopen the first time a collective has GPU buffers, so
 * libmpi itself never needs the CUDA runtime. Plain C ABI, versioned.
 */

#ifndef MCA_PART_UCX_DEVICE_H
#define MCA_PART_UCX_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#define MCA_PART_UCX_DEVICE_ABI 27
#define MCA_PART_UCX_DEVICE_SYMBOL "mca_part_ucx_device_ops"

/* How stream_start_counted makes a start (flags). */
#define MCA_PART_UCX_START_KERNEL 1
#define MCA_PART_UCX_START_JOIN 2
#define MCA_PART_UCX_START_LOCAL 4
/* A wait's flags: a one-thread kernel waits (stream_wait); the data its
 * word releases was written on this GPU, into this GPU's memory: the
 * kernel acquires it at GPU scope (part_ucx_device_gpu_scope_fences). */
#define MCA_PART_UCX_WAIT_KERNEL    1
#define MCA_PART_UCX_WAIT_GPU_SCOPE 2

/* Element types the reduction kernels know. */
typedef enum {
    MCA_PART_UCX_DT_INT8,
    MCA_PART_UCX_DT_INT16,
    MCA_PART_UCX_DT_INT32,
    MCA_PART_UCX_DT_INT64,
    MCA_PART_UCX_DT_UINT8,
    MCA_PART_UCX_DT_UINT16,
    MCA_PART_UCX_DT_UINT32,
    MCA_PART_UCX_DT_UINT64,
    MCA_PART_UCX_DT_FLOAT,
    MCA_PART_UCX_DT_DOUBLE,
    MCA_PART_UCX_DT_COUNT
} mca_part_ucx_dt_t;

/* Operations, in the order of Open MPI's enum ompi_op_type. */
typedef enum {
    MCA_PART_UCX_OP_MAX = 1,
    MCA_PART_UCX_OP_MIN,
    MCA_PART_UCX_OP_SUM,
    MCA_PART_UCX_OP_PROD,
    MCA_PART_UCX_OP_LAND,
    MCA_PART_UCX_OP_BAND,
    MCA_PART_UCX_OP_LOR,
    MCA_PART_UCX_OP_BOR,
    MCA_PART_UCX_OP_LXOR,
    MCA_PART_UCX_OP_BXOR
} mca_part_ucx_opk_t;

/* The GPU engine of partitioned collectives within a node
 * (part_ucx_coll_gpu.c): one kernel an epoch, on a stream of its own (or
 * forked from the application's), runs every transport partition of this
 * rank through the collective as the partition becomes ready on the ranks
 * it needs, reading the peers' buffers through their GPU mappings (one-shot
 * pull; two-shot for large allreduces: rank w reduces slice w of each
 * partition and stores it into every rank's result; small allreduces
 * push: each rank stores its contribution into every peer's window with
 * the epoch in each 8 bytes, or, larger ones, whole with a flag a unit;
 * see part_ucx_device_coll.h). */
#define MCA_PART_UCX_GCOLL_MAX_RANKS 8

typedef enum {
    MCA_PART_UCX_GCOLL_ALLREDUCE,   /* one-shot */
    MCA_PART_UCX_GCOLL_ALLREDUCE2,  /* two-shot */
    MCA_PART_UCX_GCOLL_REDUCE,
    MCA_PART_UCX_GCOLL_BCAST,
    MCA_PART_UCX_GCOLL_ALLGATHER,
    MCA_PART_UCX_GCOLL_ALLTOALL,
    MCA_PART_UCX_GCOLL_ALLREDUCE_PUSH, /* one-shot, pushed with the flag in the data */
    MCA_PART_UCX_GCOLL_ALLREDUCE_BULK, /* one-shot, pushed whole, a flag a unit */
    /* two-shot, each slice pushed whole to its reducer and each reduced
     * slice to every rank, a flag a slice */
    MCA_PART_UCX_GCOLL_ALLREDUCE2_BULK
} mca_part_ucx_gcoll_kind_t;

/* The kernel's work is cut into units of unit_bytes (the last one may be
 * shorter) of the partition space (for allgather and alltoall, of a rank's
 * block), each moved by one block once every user partition it overlaps
 * is ready on the ranks it needs.
 * A rank's window (GPU memory, mapped by its peers): ready[user_parts],
 * then consumed[n][units] ([reader][k]: the reader has read this rank's
 * data of unit k), then slices[n][units] ([writer][k]: two-shot, the
 * writer stored its slice of k into this rank's result), then, for this
 * rank only, count[user_parts]: units of the partition final, over all
 * epochs (a partition is done at e times its units), then relayed[units]
 * (a.relay: the last epoch in which this rank made unit k ready, written
 * by its engine for the peers), then blocks_done (the engine's count of
 * its blocks, and the gate's of its own), then marks[user_parts] (where
 * the kernels' MPIX_Pready only marks: a.marks, which a peer's gate finds
 * at the same offset); at push_off bytes
 * (push allreduces), lines[2][n][partition space's bytes / 8] of 16 bytes
 * ([e % 2][writer][i]: the writer's 8 bytes i of epoch e, each half with
 * the epoch's low 32 bits); bulk push allreduces: there copies[2][n] of
 * the partition space (each rounded up to 16 bytes; [e % 2][writer]: the
 * writer's contribution of epoch e), and consumed[writer][k] is the epoch
 * of the writer's last copy of unit k into this rank's window instead; or,
 * where ll128 is set, lines128[2][n][units][ceil(unit_bytes / 120)] of 128
 * bytes ([e % 2][writer][k][l]: 120 bytes of the writer's unit k, then the
 * epoch; NCCL's LL128 lines), at a 128-byte boundary; bulk-pushed
 * two-shot: slots[2][n][units] of MCA_PART_UCX_SLICE_BYTES ([e % 2][writer]
 * [k]: the writer's slice of unit k that this rank reduces), consumed
 * [writer][k] the epoch of the writer's last slot of k here and slices
 * [writer][k] that of its reduced slice of k in this rank's result. */
/* 128-byte lines (15 data words of 8 bytes and the epoch each) that carry
 * `len` bytes; the lines of a unit of the LL128 bulk push, and of a slice
 * of two-shot in lines (a slice of a unit on n ranks is at most
 * unit / n + 16 bytes, cut at 16-byte boundaries). The host sizes the
 * windows and the kernel indexes them by these. */
#define MCA_PART_UCX_LINES_OF(len) ((((len) + 7) / 8 + 14) / 15)
#define MCA_PART_UCX_SLICE_LINES(unit, n) MCA_PART_UCX_LINES_OF((unit) / (n) + 24)
/* A bulk-pushed two-shot slice's slot: a slice of a unit on n ranks is at
 * most unit / n + 16 bytes (cut at 16-byte boundaries). */
#define MCA_PART_UCX_SLICE_BYTES(unit, n) ((((unit) / (n)) + 31) & ~(uint64_t) 15)

/* gcoll's `how` */
enum { MCA_PART_UCX_GCOLL_LAUNCH, MCA_PART_UCX_GCOLL_LOAD, MCA_PART_UCX_GCOLL_GATED };

/* The error bit the gate sets in pready_error: mpix_part_device.h's
 * MPIX_PREQUEST_ERR_UNREADY (the plugin does not include that header;
 * part_ucx_devreq.c checks that the two agree). */
#define MCA_PART_UCX_GCOLL_ERR_UNREADY 4u

typedef struct mca_part_ucx_gcoll_args_t {
    int kind, op, dt;               /* dt/op: reductions */
    int me, n, root;
    int gpu_scope;                  /* 1: every rank on this GPU (GPU-scope fences suffice) */
    /* 1: fences no wider than the words' readers need (part_ucx_device_coll.h) */
    int narrow_fences;
    /* bulk push: 1: the copies go as 128-byte lines, each with its flag
     * (every pair of the ranks' GPUs linked by NVLink, which delivers a
     * warp's 128-byte store whole), instead of a release and a flag a unit */
    int ll128;
    /* 1: the kernels' MPIX_Pready release at GPU scope, and the engine
     * relays each unit's readiness to the peers in relayed[k], released at
     * system scope (MCA part_ucx_coll_gpu_relay_bytes; the ranks span GPUs
     * and read each other's data) */
    unsigned char relay;
    unsigned char span;             /* 1: the ranks are on more than one GPU */
    /* 1: the kernel goes at the greatest stream priority
     * (part_ucx_coll_gpu_priority) */
    unsigned char urgent;
    uint64_t user_parts, user_bytes; /* the user's partitions, bytes each */
    uint64_t units, unit_bytes;
    uint64_t block_bytes;           /* allgather, alltoall: a rank's block of the result */
    uint64_t push_off;              /* push allreduce: the lines' offset in each window */
    const char *src[MCA_PART_UCX_GCOLL_MAX_RANKS];  /* rank r's contribution */
    char *dst[MCA_PART_UCX_GCOLL_MAX_RANKS];        /* rank r's result */
    volatile uint64_t *win[MCA_PART_UCX_GCOLL_MAX_RANKS]; /* rank r's window */
    const volatile uint64_t *host_ready; /* this rank's host MPI_Pready, per user partition */
    volatile uint64_t *done;        /* host memory: epoch per user partition whose result is final */
    volatile uint64_t *finished;    /* host memory: the last epoch the kernel completed */
    unsigned int *blocks_done;      /* GPU memory: blocks done this epoch */
    char *scratch;                  /* in-place one-shot allreduce: results until read */
    /* GPU memory: a counted epoch (gcoll's epoch 0), which the stream's
     * start writes here too: every block reads it, and reads of host
     * memory from many blocks queue up. The kernel sets it to the epoch
     * after its own when it completes, for the next counted start to
     * take (stream_start_counted's `next`). */
    volatile uint64_t *epoch_dev;
    /* GPU memory: nonzero once the host made a partition ready
     * (MPI_Pready); until then the kernel reads no host_ready word (a read
     * of host memory from a kernel takes about a microsecond, and every
     * waiting thread would make them) */
    const volatile uint64_t *host_marks;
    /* GPU memory: stream-ordered marks (MPIX_PREQUEST_TAG_ORDERED), one
     * word per user partition that its MPIX_Pready sets to 1 and the gate
     * checks, clears and publishes, in this rank's window (the peers'
     * gates read them); NULL where the kernels mark as usual */
    uint64_t *marks;
    /* host memory: the device request's error word, for the gate's
     * MCA_PART_UCX_GCOLL_ERR_UNREADY (NULL: no device request) */
    volatile uint32_t *pready_error;
} mca_part_ucx_gcoll_args_t;

/* A progress-engine send's epoch moved by its stream within a node
 * (stream_copy; part_ucx_stream.c). */
typedef struct mca_part_ucx_stream_copy_t {
    const volatile uint64_t *marked; /* GPU memory: this side's kernels marked every group */
    /* GPU memory: the epoch this side's start wrote for its kernels, which
     * a counted epoch (a graph's) reads rather than its pair in host
     * memory (a read of host memory costs a kernel a microsecond or more) */
    const volatile uint64_t *epoch;
    /* host memory: the kernels' mark of each group (at its first
     * partition, with MPIX_PREQUEST_MARK_HOST clear), which a counted
     * epoch reads where `marked` is behind (part_copy_wait) */
    const volatile uint64_t *ready;
    uint32_t groups;
    uint32_t group_shift;
    const volatile uint64_t *rtr;    /* the receiver's ready-to-receive (its shared memory) */
    /* the same in the receiver's GPU memory, mapped here, where its stream
     * writes one (a stream-only send's receiver: epochs its host starts
     * write only `rtr`), else NULL */
    const volatile uint64_t *rtr_dev;
    const void *src;
    void *dst;                       /* the receiver's buffer, mapped here */
    size_t bytes;
    volatile uint64_t *flags;        /* the receiver's arrival flags (its shared memory) */
    size_t nflags;
    /* the receiver's done words (its stream's, GPU memory; its host's, past
     * its flags): NULL where its host sees the flags instead */
    volatile uint64_t *remote_done_dev;
    volatile uint64_t *remote_done;
    volatile uint64_t *done;         /* host memory: the last epoch that left the send buffer */
    int wait_flags;                  /* the waits' stream_wait flags (MCA_PART_UCX_WAIT_KERNEL) */
} mca_part_ucx_stream_copy_t;

/* A stream-only kernel-copy send whose kernels only mark their partitions
 * (MPIX_PREQUEST_TAG_ORDERED, part_ucx_stream_copy_after_bytes): the
 * epoch's copy, launched at MPIX_Wait_enqueue behind them (stream_copy_after).
 * Every pointer is fixed for the request's life, so a graph replays it:
 * the epoch is the one after *done_dev, as the kernels count it. */
typedef struct mca_part_ucx_copy_after_t {
    uint64_t *marks;                 /* GPU memory: 1 per partition MPIX_Pready marked */
    uint32_t parts;
    uint32_t gpu_scope;              /* every reader is on this GPU: GPU-scope releases */
    const volatile uint64_t *rtr_dev; /* the receiver's ready-to-receive, its GPU memory */
    const volatile uint64_t *rtr;    /* the same, its host's (epochs its host starts) */
    const void *src;
    void *dst;                       /* the receiver's buffer, mapped here */
    uint64_t bytes;
    volatile uint64_t *flags;        /* the receiver's arrival flags, one a partition */
    volatile uint64_t *remote_done_dev; /* the receiver's done words: its stream's */
    volatile uint64_t *remote_done;  /* and its host's */
    volatile uint64_t *done_dev;     /* GPU memory: this side's last epoch done */
    volatile uint64_t *done;         /* host memory: the same, for MPI_Wait */
    unsigned long long *blocks_done; /* GPU memory, 0 between epochs */
    /* host memory: MPIX_PREQUEST_ERR_* bits, a missing mark's is
     * MCA_PART_UCX_GCOLL_ERR_UNREADY (the same bit, part_ucx_devreq.c) */
    volatile uint32_t *error;
} mca_part_ucx_copy_after_t;

/* Every function returns 0 on success, a negative value on error. */
typedef struct mca_part_ucx_device_ops_t {
    int abi;
    int (*stream_create)(void **stream);
    void (*stream_destroy)(void *stream);
    int (*event_create)(void **event);
    void (*event_destroy)(void *event);
    int (*event_record)(void *event, void *stream);
    int (*event_query)(void *event);    /* 1 done, 0 not yet, < 0 error */
    int (*copy)(void *dst, const void *src, size_t bytes, void *stream);
    int (*stream_sync)(void *stream);
    /* inout[i] = inout[i] op in[i] for count elements */
    int (*reduce)(int op, int dt, const void *in, void *inout, size_t count, void *stream);
    /* out[i] = a[i] op b[i] for count elements */
    int (*reduce3)(int op, int dt, const void *a, const void *b, void *out, size_t count,
                   void *stream);
    const char *(*last_error)(void);
    /* 1 where host memory at ptr is already pinned and mapped for the GPU
     * (UCX's cuda_copy registers the memory ucp_mem_map allocates), else 0 */
    int (*host_mapped)(const void *ptr);
    /* Stream-ordered epochs (part_ucx_stream.c), on the application's
     * stream; words are host memory mapped for the GPU or GPU memory.
     * 1 where the stream is being captured into a graph, else 0. */
    int (*stream_capturing)(void *stream);
    /* *addrs[i] = values[i] once the stream gets there (n <= 4): a stream
     * memory operation, or with `kernel` a one-thread kernel. A memory
     * operation after a kernel waits for that kernel to end, holding up
     * the hardware queue the stream shares with others (see stream_wait). */
    int (*stream_write)(void *stream, unsigned n, volatile uint64_t *const *addrs,
                        const uint64_t *values, int kernel);
    /* the stream goes on once *addr >= value: a stream memory operation,
     * or with MCA_PART_UCX_WAIT_KERNEL in `flags` (or where the driver has
     * no 64-bit waits) a one-thread kernel. A memory operation waiting stalls the hardware
     * queue the stream shares with others (CUDA_DEVICE_MAX_CONNECTIONS):
     * where this process's own GPU work must run for the wait to end, only
     * kernels are safe, for the wait and for the writes after it. */
    int (*stream_wait)(void *stream, const volatile uint64_t *addr, uint64_t value, int flags);
    /* For graphs, whose replays repeat the values captured: the stream
     * counts the epochs itself, in a pair of words of host memory mapped
     * for the GPU: epoch[1] the epoch of the next start (of the current
     * one, once started), epoch[0] the last one the stream completed or
     * started. start: *addrs[i] = epoch[1]; wait: the stream goes on once
     * *done >= epoch[1], then epoch[0] = epoch[1] and epoch[1] += 1 (the
     * GPU engine's kernel, which takes the place of the wait, does the
     * same). The start is made of copies from host memory, which the copy
     * engines carry out: no SM, so that it runs while kernels that wait
     * for it (a peer's, on a GPU the ranks share) fill the GPU. With
     * MCA_PART_UCX_START_KERNEL in `how`, a one-thread kernel does it
     * instead, and also sets epoch[0] = epoch[1] (see stream_write). With
     * MCA_PART_UCX_START_JOIN, a start captured right after a counted
     * wait of the same thread's capture (nothing on the stream between
     * them) is made by that wait's kernel once it has waited, epoch[0]
     * included: no node of its own. With MCA_PART_UCX_START_LOCAL, only
     * this stream's later work on this GPU reads the start's words (the
     * GPU engine's): a start kernel then needs no system-scope fence, the
     * kernels' boundaries order it. `next` (GPU memory, NULL: none): a
     * word that also holds the epoch of the next start, once the work
     * before it completed (the GPU engine's kernel writes it); a start
     * kernel takes its epoch from there, or from epoch[1] as the host
     * sees it now where that is later, rather than read host memory at
     * each replay (about a microsecond on the epoch's critical path).
     * The wait's `flags` as stream_wait's (its kernel is always one). */
    int (*stream_start_counted)(void *stream, volatile uint64_t *epoch, unsigned n,
                                volatile uint64_t *const *addrs, int how,
                                const volatile uint64_t *next);
    int (*stream_wait_counted)(void *stream, const volatile uint64_t *done,
                               volatile uint64_t *epoch, int flags);
    /* The calling thread works on GPU `device` (its primary context): UCX's
     * CUDA transports need a current context on a progress thread. */
    int (*set_device)(int device);
    /* The reduction kernel of op and dt loaded now (CUDA's lazy loading
     * would load it at its first launch, which may wait for the context to
     * go idle: never, while a stream or a kernel waits for this very
     * collective). */
    int (*reduce_load)(int op, int dt);
    /* The GPU engine's kernel for args (host memory; dev: their copy in
     * GPU memory) loaded (how: MCA_PART_UCX_GCOLL_LOAD, see reduce_load),
     * or launched on stream with `blocks` blocks for `epoch` (0:
     * *epoch_word, a stream's count of its epochs, which graph replays
     * advance: stream_start_counted's pair, whose words the kernel
     * advances; it reads the epoch from args->epoch_dev, which the start
     * also writes); MCA_PART_UCX_GCOLL_GATED: behind a one-block kernel
     * on the same stream that waits until every rank that makes
     * partitions ready made all of them ready (the engine's blocks then
     * never hold SMs a producer of this epoch still needs). */
    int (*gcoll)(const mca_part_ucx_gcoll_args_t *args, const mca_part_ucx_gcoll_args_t *dev,
                 uint64_t epoch, const volatile uint64_t *epoch_word, unsigned blocks,
                 void *stream, int how);
    /* stream waits for event (recorded on another stream) */
    int (*stream_wait_event)(void *stream, void *event);
    /* The SMs of the calling thread's GPU (0: not known). */
    int (*sm_count)(void);
    /* A copy of at most copy_signal_max bytes by one block of this
     * process's kernel on stream, which then sets *word = value (host
     * memory mapped for the GPU), the data released at system scope
     * before it: one CUDA call, and a word the host reads, instead of a
     * copy, an event and its queries. word NULL: the kernel loaded only
     * (CUDA loads a kernel at its first launch, behind the context's
     * work: a stream waiting for the copy would wait forever). */
    int (*copy_signal)(void *dst, const void *src, size_t bytes, void *stream,
                       volatile uint64_t *word, uint64_t value);
    size_t copy_signal_max;
    /* 1: the GPUs of PCI ids a and b (mca_part_ucx_gpu_id) are linked by
     * NVLink (NVML's view: any GPU of the node, visible to CUDA here or
     * not); 0: not, or not known (no NVML) */
    int (*nvlink)(uint64_t a, uint64_t b);
    /* Epoch `epoch` of c, on stream: it waits for *c->marked and *c->rtr
     * to reach the epoch (as stream_wait with c->wait_flags: the kernels
     * that mark are earlier work of this stream, the receiver another
     * process),
     * copies the bytes with a copy engine, then a one-block kernel sets
     * every arrival flag and, after a system-scope release, the receiver's
     * done words (where given), then *c->done. With `count` (a graph's:
     * stream_start_counted's pair) the epoch is the one the start wrote
     * (*c->epoch) when the stream gets there: a one-block kernel waits for
     * the kernels' count (every group's mark where it is behind) and the
     * ready-to-receive (*c->rtr_dev first) instead of stream memory
     * operations, and the finishing kernel advances the pair as
     * stream_wait_counted does and makes the starts joined to it. */
    int (*stream_copy)(void *stream, const mca_part_ucx_stream_copy_t *c, uint64_t epoch,
                       volatile uint64_t *count);
    /* The epoch of c, on stream, after the work before it (a programmatic
     * dependent of the kernel before, where the GPU has them): once the
     * receiver is ready, its blocks check and clear the marks, copy the
     * buffer with SM stores, and the last one sets the arrival flags and
     * the done words. Loaded only, with stream NULL. */
    int (*stream_copy_after)(void *stream, const mca_part_ucx_copy_after_t *c);
} mca_part_ucx_device_ops_t;

#ifdef __cplusplus
extern "C"
#endif
const mca_part_ucx_device_ops_t *mca_part_ucx_device_ops(void);

#endif /* MCA_PART_UCX_DEVICE_H */
