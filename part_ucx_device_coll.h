/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The GPU engine's kernel (mca_part_ucx_gcoll_args_t, part_ucx_device.h):
 * CUDA code, included by part_ucx_device.cu only (after part_op,
 * part_fence_sys and part_fence).
 *
 * One kernel an epoch. Its blocks take the transport partitions in turn
 * (t = blockIdx.x, + gridDim.x, ...), and for each:
 *   1. wait until this rank made t ready: a kernel's MPIX_Pready marks the
 *      window's ready word; a host MPI_Pready marks host memory, which the
 *      kernel copies into the window for the peers; where ranks on other GPUs
 *      read it (up to part_ucx_coll_gpu_relay_bytes), the block then
 *      releases t to them with one word (gcoll_relay);
 *   2. wait until every rank t needs made it ready (peers' windows);
 *   3. move t: reduce the ranks' data in rank order (every rank gets the
 *      same bits), or copy it, reading the peers' buffers through their
 *      GPU mappings; two-shot: reduce slice `me` and store it into every
 *      rank's result; push (small allreduces): store this rank's data into
 *      every peer's window with the epoch beside it, wait for the peers'
 *      and reduce (no step 2 or 4, and no wait for readers: gcoll_push);
 *      bulk push (larger allreduces): the same with plain stores of the
 *      unit and one flag a unit after a release (gcoll_bulk); the pushed
 *      protocols are in part_ucx_device_coll_push.h;
 *   4. tell each rank read from that its data of t is read (and two-shot,
 *      that a slice of its result is stored, with a release).
 * Then each block waits, for its partitions, until every rank that reads
 * this rank's data has read it (the application may then write its buffer
 * again), and two-shot until every slice of the result is there; only
 * then are the in-place results copied out and the done words written.
 * The last block to finish writes the epoch into `finished`. A block never
 * waits for another block of its own kernel, and a rank's block waits for
 * a peer only after it marked this rank's readiness of the same
 * partition, so no wait is circular.
 *
 * Peers' data is read with ld.global.cg (past L1, which is not coherent
 * and may hold an earlier epoch's data), after an acquire of the word that
 * said it is there.
 *
 * Fences. A system-scope fence takes microseconds even with no store
 * outstanding (four GPU-scope ones on H100), and every step of an epoch
 * would pay one, so each is no wider than the readers of its word need
 * (a.narrow_fences, MCA part_ucx_coll_gpu_scope_fences; 0 keeps system
 * scope everywhere):
 * - between the ranks' words, GPU scope where every rank runs on this GPU
 *   (a.gpu_scope: ranks sharing it under CUDA MPS), else system scope;
 * - the waits acquire with the load that sees the word (ld.acquire), not
 *   with a fence after it;
 * - no fence before a word that only says a peer's data was read
 *   (consumed): every value read was stored before the block's barrier,
 *   so no read is outstanding for a later store of the peer to overtake
 *   (NCCL's consumers free a buffer so, without a fence);
 * - GPU scope before the host-memory words that say a result is final
 *   (done, finished): the results lie in this GPU's memory, whose L2 is
 *   where every reader reaches them (this GPU's kernels, the host's
 *   copies, a peer or a NIC), and a GPU-scope fence has them there before
 *   the word is stored; a system-scope one would also wait for this GPU's
 *   stores into other memories, which these words do not publish.
 */

#define GCOLL_THREADS 512
/* After mode's engine (part_gcoll_after): at most one block an SM, so up
 * to 96 registers a thread, which keep gcoll_reduce's chunks in flight
 * without spilling; 512 * 96 registers leave an SM room for a gate's block
 * (GCOLL_GATE_THREADS at 32). */
#define GCOLL_AFTER_REGS 96
static_assert(GCOLL_THREADS >= 64, "gcoll_tell and gcoll_done take a warp each");

/* The trace's stamps (part_ucx_device_trace.h): thread 0 of block 0's,
 * and the end's, by the block that completes the epoch. */
#ifdef PART_UCX_GCOLL_TRACE
#include "part_ucx_device_trace.h"
#define GCOLL_TRACING 1
#define GCOLL_STAMP(e, i)                                \
    do {                                                 \
        if (0 == threadIdx.x && 0 == blockIdx.x) {       \
            part_trace_stamp((e), (i));                  \
        }                                                \
    } while (0)
/* unit k's record i (PART_TRACE_UNIT_*), by thread 0 of its block; the
 * block's own (PART_TRACE_BLOCK_*) */
#define GCOLL_UNIT_STAMP(e, k, i)                        \
    do {                                                 \
        if (0 == threadIdx.x) {                          \
            part_trace_quad_stamp((e), (k), (i));        \
        }                                                \
    } while (0)
#define GCOLL_BLOCK_STAMP(e, i) GCOLL_UNIT_STAMP((e), PART_TRACE_UNITS + blockIdx.x, (i))
/* the gate's block's record i (PART_TRACE_GATE_*), stamped t */
#define GCOLL_GATE_STAMP(e, i, t)                                                           \
    do {                                                                                  \
        if (0 == threadIdx.x) {                                                           \
            part_trace_quad_stamp_at((e), PART_TRACE_UNITS + PART_TRACE_BLOCKS + blockIdx.x, \
                                     (i), (t));                                           \
        }                                                                                 \
    } while (0)
#else
#define GCOLL_TRACING 0
#define GCOLL_STAMP(e, i) ((void) 0)
#define GCOLL_UNIT_STAMP(e, k, i) ((void) 0)
#define GCOLL_BLOCK_STAMP(e, i) ((void) 0)
#define GCOLL_GATE_STAMP(e, i, t) ((void) 0)
#endif

/* Between this rank's and the peers' words (and this kernel's blocks). */
__device__ static inline void gcoll_fence(const mca_part_ucx_gcoll_args_t &a)
{
    part_fence(a.gpu_scope);
}

/* Before a host-memory word that says results in this GPU's memory are
 * final (see above). */
__device__ static inline void gcoll_fence_host(const mca_part_ucx_gcoll_args_t &a)
{
    part_fence(a.narrow_fences);
}

/* A word loaded with acquire, at GPU scope where only this GPU's threads
 * write it: what its writer released before it is then visible to this
 * thread and, after a block barrier, to the block. Cheaper than a relaxed
 * poll followed by a fence, which waits for this thread's stores too (a
 * system-scope fence takes microseconds). */
__device__ static inline uint64_t gcoll_acquire(bool gpu_scope, const volatile uint64_t *w)
{
    uint64_t v;
#if __CUDA_ARCH__ >= 700
    if (gpu_scope) {
        asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(w) : "memory");
    } else {
        asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(w) : "memory");
    }
#else
    v = *w;
    part_fence(gpu_scope);
#endif
    return v;
}

__device__ static inline void gcoll_nap(void)
{
#if __CUDA_ARCH__ >= 700
    __nanosleep(32);
#endif
}

/* Thread 0 of a block of a kernel whose blocks count themselves at their
 * end, after its fence of the block's words: whether this block is the
 * last to count; that one sets the count back to 0 for the next epoch's
 * kernel (the engine's, a.blocks_done[0], and the gate's, [1]). */
__device__ static inline bool gcoll_count_last(unsigned int *count)
{
    bool last = (atomicAdd(count, 1u) + 1 == gridDim.x);

    if (last) {
        atomicExch(count, 0u);
    }
    return last;
}

template <typename T> __device__ static inline T gcoll_apply(int op, T a, T b)
{
    switch (op) {
    case MCA_PART_UCX_OP_MAX: return part_op<T, MCA_PART_UCX_OP_MAX>::f(a, b);
    case MCA_PART_UCX_OP_MIN: return part_op<T, MCA_PART_UCX_OP_MIN>::f(a, b);
    case MCA_PART_UCX_OP_SUM: return part_op<T, MCA_PART_UCX_OP_SUM>::f(a, b);
    case MCA_PART_UCX_OP_PROD: return part_op<T, MCA_PART_UCX_OP_PROD>::f(a, b);
    }
    if constexpr (std::is_integral<T>::value) {
        switch (op) {
        case MCA_PART_UCX_OP_LAND: return part_op<T, MCA_PART_UCX_OP_LAND>::f(a, b);
        case MCA_PART_UCX_OP_LOR: return part_op<T, MCA_PART_UCX_OP_LOR>::f(a, b);
        case MCA_PART_UCX_OP_LXOR: return part_op<T, MCA_PART_UCX_OP_LXOR>::f(a, b);
        case MCA_PART_UCX_OP_BAND: return part_op<T, MCA_PART_UCX_OP_BAND>::f(a, b);
        case MCA_PART_UCX_OP_BOR: return part_op<T, MCA_PART_UCX_OP_BOR>::f(a, b);
        case MCA_PART_UCX_OP_BXOR: return part_op<T, MCA_PART_UCX_OP_BXOR>::f(a, b);
        }
    }
    return a;
}

/* gcoll_apply on each element of two 8-byte words. */
template <typename T> __device__ static inline uint64_t gcoll_apply8(int op, uint64_t a, uint64_t b)
{
    union {
        uint64_t v;
        T x[8 / sizeof(T)];
    } x, y;

    x.v = a;
    y.v = b;
#pragma unroll
    for (int k = 0; k < (int) (8 / sizeof(T)); ++k) {
        x.x[k] = gcoll_apply<T>(op, x.x[k], y.x[k]);
    }
    return x.v;
}

/* The window's words of rank r. */
__device__ static inline volatile uint64_t *gcoll_ready(const mca_part_ucx_gcoll_args_t &a, int r)
{
    return a.win[r];
}

__device__ static inline volatile uint64_t *gcoll_consumed(const mca_part_ucx_gcoll_args_t &a,
                                                           int r, int reader, uint64_t k)
{
    return a.win[r] + a.user_parts + (uint64_t) reader * a.units + k;
}

__device__ static inline volatile uint64_t *gcoll_slices(const mca_part_ucx_gcoll_args_t &a,
                                                         int r, int writer, uint64_t k)
{
    return a.win[r] + a.user_parts + (uint64_t) (a.n + writer) * a.units + k;
}

__device__ static inline unsigned long long *gcoll_count(const mca_part_ucx_gcoll_args_t &a,
                                                         uint64_t u)
{
    return (unsigned long long *) (a.win[a.me] + a.user_parts + 2 * (uint64_t) a.n * a.units) + u;
}

/* Rank r's relayed readiness of unit k (a.relay), after its counts. */
__device__ static inline volatile uint64_t *gcoll_relayed(const mca_part_ucx_gcoll_args_t &a,
                                                          int r, uint64_t k)
{
    return a.win[r] + 2 * a.user_parts + 2 * (uint64_t) a.n * a.units + k;
}

/* Unit k: its byte range [*off, *off + return) and the user partitions
 * [*u0, *u1] it overlaps. */
__device__ static inline uint64_t gcoll_unit(const mca_part_ucx_gcoll_args_t &a, uint64_t k,
                                             uint64_t *off, uint64_t *u0, uint64_t *u1)
{
    uint64_t total = a.user_parts * a.user_bytes, end;

    *off = k * a.unit_bytes;
    end = (*off + a.unit_bytes < total) ? *off + a.unit_bytes : total;
    *u0 = *off / a.user_bytes;
    *u1 = (end - 1) / a.user_bytes;
    return end - *off;
}

/* Whether this rank makes partitions ready (a bcast's other ranks do not). */
__device__ static inline bool gcoll_readies(const mca_part_ucx_gcoll_args_t &a)
{
    return MCA_PART_UCX_GCOLL_BCAST != a.kind || a.me == a.root;
}

/* Whether this rank's peers store its data into its window (no rank reads
 * another's buffers): its results are final once reduced, and nobody
 * waits for its data to be read. Two-shot in lines (a.ll128) pushes each
 * slice to its reducer and each reduced slice to every rank. */
__device__ static inline bool gcoll_pushed(const mca_part_ucx_gcoll_args_t &a)
{
    return MCA_PART_UCX_GCOLL_ALLREDUCE_PUSH == a.kind ||
           MCA_PART_UCX_GCOLL_ALLREDUCE_BULK == a.kind ||
           MCA_PART_UCX_GCOLL_ALLREDUCE2_BULK == a.kind ||
           (MCA_PART_UCX_GCOLL_ALLREDUCE2 == a.kind && a.ll128);
}

/* Whether this rank reads rank r's data (a push: peers store it here). */
__device__ static inline bool gcoll_reads(const mca_part_ucx_gcoll_args_t &a, int r)
{
    if (r == a.me || gcoll_pushed(a)) {
        return false;
    }
    switch (a.kind) {
    case MCA_PART_UCX_GCOLL_REDUCE: return a.me == a.root;
    case MCA_PART_UCX_GCOLL_BCAST: return r == a.root;
    }
    return true;
}

/* Whether rank r reads this rank's data. */
__device__ static inline bool gcoll_read_by(const mca_part_ucx_gcoll_args_t &a, int r)
{
    if (r == a.me || gcoll_pushed(a)) {
        return false;
    }
    switch (a.kind) {
    case MCA_PART_UCX_GCOLL_REDUCE: return r == a.root;
    case MCA_PART_UCX_GCOLL_BCAST: return a.me == a.root;
    }
    return true;
}

/* Whether this rank's result of a partition is final only at the end: an
 * in-place one-shot result waits in scratch until the peers have read the
 * contribution it overwrites, a two-shot one for every slice (unless in
 * lines: all there at the unit's end), and a reduce's other ranks have a
 * result only in that their data was read. */
__device__ static inline bool gcoll_done_late(const mca_part_ucx_gcoll_args_t &a)
{
    return NULL != a.scratch ||
           (MCA_PART_UCX_GCOLL_ALLREDUCE2 == a.kind && !gcoll_pushed(a)) ||
           (MCA_PART_UCX_GCOLL_REDUCE == a.kind && a.me != a.root);
}

/* This rank's readiness of user partition u, by one thread; a host mark
 * is copied into the window (host memory is read only every 16th look,
 * and only once the host made any partition ready: a read from a kernel
 * takes about a microsecond). */
__device__ static inline void gcoll_own_wait(const mca_part_ucx_gcoll_args_t &a, uint64_t u,
                                             uint64_t e)
{
    volatile uint64_t *ready = gcoll_ready(a, a.me);

    /* the producer runs on this GPU: GPU scope acquires its data */
    for (unsigned i = 0; gcoll_acquire(true, ready + u) < e; ++i) {
        if (0 == (i & 15) && 0 != *a.host_marks && a.host_ready[u] >= e) {
            part_fence_sys(); /* the data the host saw ready before the word */
            ready[u] = e;
            break;
        }
        gcoll_nap();
    }
}

/* Step 1: this rank's readiness of the user partitions [u0, u1], each by
 * one thread. */
__device__ static inline void gcoll_own_ready(const mca_part_ucx_gcoll_args_t &a, uint64_t u0,
                                              uint64_t u1, uint64_t e)
{
    for (uint64_t u = u0 + threadIdx.x; u <= u1; u += blockDim.x) {
        gcoll_own_wait(a, u, e);
    }
}

/* Step 1 where the engine relays the readiness (a.relay): the kernels'
 * MPIX_Pready released the data at GPU scope, which the peers' GPUs do
 * not see through; once the block acquired every user partition of unit
 * k, one thread releases it all at system scope (cumulative after the
 * barrier) and tells the peers with one word. A thread of the second
 * warp: the first one's threads poll the peers' words meanwhile
 * (gcoll_peers_ready), and the fence takes microseconds. */
__device__ static inline void gcoll_relay(const mca_part_ucx_gcoll_args_t &a, uint64_t k,
                                          uint64_t e)
{
    __syncthreads();
    if (32 == threadIdx.x) {
        part_fence_sys();
        *gcoll_relayed(a, a.me, k) = e;
    }
}

/* Step 2: every rank read from made unit k ([u0, u1]) ready: its relayed
 * word, one rank a thread, or its ready words, one (rank, user partition)
 * pair a thread; each acquires what it saw. */
__device__ static inline void gcoll_peers_ready(const mca_part_ucx_gcoll_args_t &a, uint64_t k,
                                                uint64_t u0, uint64_t u1, uint64_t e)
{
    uint64_t span = u1 - u0 + 1, pairs = (uint64_t) a.n * span;

    if (a.relay) {
        int r = (int) threadIdx.x;
        if (r < a.n && gcoll_reads(a, r)) {
            while (gcoll_acquire(a.gpu_scope, gcoll_relayed(a, r, k)) < e) {
                gcoll_nap();
            }
        }
        return;
    }
    for (uint64_t i = threadIdx.x; i < pairs; i += blockDim.x) {
        int r = (int) (i / span);
        if (gcoll_reads(a, r)) {
            while (gcoll_acquire(a.gpu_scope, gcoll_ready(a, r) + u0 + i % span) < e) {
                gcoll_nap();
            }
        }
    }
}

/* The words of the ranks this rank read unit k from (consumed, and
 * two-shot slices), each by one thread after the caller's barrier; a
 * release of the block's work (cumulative after the barrier) where a
 * word publishes stores (two-shot's slices) or fences stay wide. */
__device__ static inline void gcoll_tell(const mca_part_ucx_gcoll_args_t &a, uint64_t k,
                                         uint64_t e)
{
    int r = (int) threadIdx.x;

    if (r < a.n && gcoll_reads(a, r)) {
        if (!a.narrow_fences || MCA_PART_UCX_GCOLL_ALLREDUCE2 == a.kind) {
            gcoll_fence(a);
        }
        *gcoll_consumed(a, r, a.me, k) = e;
        if (MCA_PART_UCX_GCOLL_ALLREDUCE2 == a.kind) {
            *gcoll_slices(a, r, a.me, k) = e;
        }
    }
}

/* This rank's result of unit k is final: count it toward the user
 * partitions it overlaps, and write the done word (the host and
 * MPIX_Parrived read it) of each one whose last unit this is, after a
 * release of the result. A partition that lies within this one unit has
 * nothing to count: no other block writes any of its result, so its done
 * word follows the release alone (the count's fence and atomic round trip
 * are on every small epoch's critical path). `synced`: the block's
 * barrier since the result's stores was passed. One thread a partition,
 * from the block's last warp down: the first warp's threads tell the
 * peers (gcoll_tell) meanwhile, and a warp's threads in two branches
 * would take them one after the other, each behind its fence; and the
 * last warps have the fewest of the unit's stores into the peers still
 * in flight (lines are dealt from thread 0), which a done word's store
 * and fence would otherwise queue behind. */
__device__ static inline void gcoll_done(const mca_part_ucx_gcoll_args_t &a, uint64_t k,
                                         uint64_t e, bool synced)
{
    uint64_t off, u0, u1, u, t = blockDim.x - 1 - threadIdx.x;
    bool counted = false;

    if (!synced) {
        __syncthreads();
    }
    (void) gcoll_unit(a, k, &off, &u0, &u1);
    for (u = u0 + t; u <= u1; u += blockDim.x) {
        uint64_t first = u * a.user_bytes / a.unit_bytes;
        uint64_t last = ((u + 1) * a.user_bytes - 1) / a.unit_bytes;
        unsigned long long units = last - first + 1;
        if (1 != units) {
            if (!counted) {
                /* the block's result (after the barrier) before the
                 * counts, which only this kernel's blocks read: GPU
                 * scope; the fence before the done word makes it
                 * cumulative for the done word's readers */
                part_fence(true);
                counted = true;
            }
            if (atomicAdd(gcoll_count(a, u), 1ull) + 1 != e * units) {
                continue;
            }
        }
        gcoll_fence_host(a); /* the block's result, and the other units' seen through the count */
        a.done[u] = e;
    }
}

/* Deferred done words only in kernels of up to this many blocks: in
 * larger kernels they lengthened the epoch instead, whichever thread
 * fenced them (docs/developing.md, done words at the block's end). A build
 * may set it (-D) for experiments (bench/trace/run.sh's
 * PART_UCX_TRACE_NVCC_FLAGS). */
#ifndef GCOLL_DEFER_BLOCKS
#define GCOLL_DEFER_BLOCKS 16
#endif

/* The user partitions [*first, *last) whose done words wait for the end of
 * this block (none: an empty range): those of its last unit, where each
 * of them lies within that unit (no count: no other block writes any of
 * their results). Small epochs wait for their blocks' ends, and the done
 * words' fence then leaves the block's path: with one block they follow
 * the fence before the finished word, with more a thread of their own
 * fences beside thread 0's (part_gcoll). */
__device__ static inline void gcoll_deferred(const mca_part_ucx_gcoll_args_t &a, uint64_t *first,
                                             uint64_t *last)
{
    uint64_t k = blockIdx.x + (a.units - 1 - blockIdx.x) / gridDim.x * gridDim.x, off, u0, u1;

    *first = *last = 0;
    if (blockIdx.x >= a.units || gcoll_done_late(a)) {
        return;
    }
    (void) gcoll_unit(a, k, &off, &u0, &u1);
    if (u0 * a.user_bytes / a.unit_bytes == k && ((u1 + 1) * a.user_bytes - 1) / a.unit_bytes == k) {
        *first = u0;
        *last = u1 + 1;
    }
}

/* Bulk push allreduce: rank `owner`'s window holds copies of every
 * writer's contribution, two epochs' (part_ucx_device.h). */
__device__ static inline char *gcoll_copy_of(const mca_part_ucx_gcoll_args_t &a, int owner,
                                             int writer, uint64_t e)
{
    uint64_t bytes = (a.user_parts * a.user_bytes + 15) & ~(uint64_t) 15;

    return (char *) a.win[owner] + a.push_off + ((e & 1) * a.n + writer) * bytes;
}

/* Where gcoll_reduce finds rank r's contribution: its buffer; a bulk
 * push's copy of epoch e in this rank's window; or where the block's
 * gcoll_src_table says (a bulk-pushed two-shot's slots, gcoll_slot:
 * computed in its reduction's loops, their addresses spilled). */
enum { GCOLL_SRC_BUFFERS, GCOLL_SRC_COPIES, GCOLL_SRC_TABLE };

/* Rank r's contribution, addressed as its buffer is (+ the byte offset in
 * the partition space), for GCOLL_SRC_TABLE. */
__shared__ const char *gcoll_src_table[MCA_PART_UCX_GCOLL_MAX_RANKS];

/* Bulk-pushed two-shot: the writer's slot of unit k in the owner's window
 * (epoch e). */
__device__ static inline char *gcoll_slot(const mca_part_ucx_gcoll_args_t &a, int owner,
                                          int writer, uint64_t e, uint64_t k)
{
    return (char *) a.win[owner] + a.push_off +
           (((e & 1) * a.n + writer) * a.units + k) *
               MCA_PART_UCX_SLICE_BYTES(a.unit_bytes, (uint64_t) a.n);
}

/* Rank r's contribution, addressed as its buffer is (+ the byte offset in
 * the partition space). */
template <int Src>
__device__ static inline const char *gcoll_src(const mca_part_ucx_gcoll_args_t &a, int r,
                                               uint64_t e)
{
    if (GCOLL_SRC_TABLE == Src) {
        return gcoll_src_table[r];
    }
    return (GCOLL_SRC_COPIES == Src && r != a.me) ? gcoll_copy_of(a, a.me, r, e) : a.src[r];
}

/* gcoll_reduce's whole 16-byte chunks [0, n16) after byte `base`, with
 * three or four ranks on more than one GPU: one chunk a thread, every
 * rank's loaded before any is reduced (still in rank order), so one round
 * trip over the links a chunk, where gcoll_reduce's loop waits one a rank.
 * On one GPU, where a peer's memory is as near as this rank's, the call
 * costs more than the round trips it saves. Not inlined: its loads in
 * flight take registers the kernel's other loops would then spill. */
template <typename T>
__device__ static __noinline__ void gcoll_reduce_at_once(const mca_part_ucx_gcoll_args_t &a,
                                                         uint64_t base, uint64_t n16, char *dst,
                                                         bool all)
{
    const int V = 16 / sizeof(T);

    for (uint64_t i = threadIdx.x; i < n16; i += blockDim.x) {
        union {
            uint4 v;
            T x[V];
        } in[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            /* set either way: a register only loaded under a predicate
             * keeps its last trip's value, which the compiler spilled */
            in[q].v = make_uint4(0, 0, 0, 0);
            if (q < a.n) {
                in[q].v = __ldcg((const uint4 *) (a.src[q] + base) + i);
            }
        }
#pragma unroll
        for (int q = 1; q < 4; ++q) {
            if (q < a.n) {
#pragma unroll
                for (int k = 0; k < V; ++k) {
                    in[0].x[k] = gcoll_apply<T>(a.op, in[0].x[k], in[q].x[k]);
                }
            }
        }
        for (int r = all ? 0 : a.n - 1; r < a.n; ++r) {
            ((uint4 *) ((all ? a.dst[r] : dst) + base))[i] = in[0].v;
        }
    }
}

/* A 16-byte load of a contribution, which the engine reads once: past L1
 * (no line allocated there, as __ldcg: a peer's data must never come from
 * a stale one), and evict-first in L2. The producers' last stores are
 * still in L2 when the engine starts (after mode: the later rank's last
 * partitions; beside the producers: the partitions just made ready);
 * loads at normal priority would evict them before their units read them,
 * evict-first ones evict each other instead
 * (bench/results/h200x1-coll/s25/README.md). */
__device__ static inline uint4 gcoll_ld_once(const uint4 *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    uint4 v;
    uint64_t pol;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(pol));
    return v;
#else
    return __ldcg(p);
#endif
}

/* The elements [lo, hi) after byte offset `off` of the partition space:
 * op over the ranks r, in rank order, of their contributions (gcoll_src),
 * into dst + off (all: into every rank's dst + off instead). Sixteen bytes
 * at a time where every address allows it, the elements past the last
 * whole 16 bytes one at a time. */
template <typename T, int Src = GCOLL_SRC_BUFFERS>
__device__ static inline void gcoll_reduce(const mca_part_ucx_gcoll_args_t &a, uint64_t off,
                                           uint64_t lo, uint64_t hi, char *dst, bool all,
                                           uint64_t e = 0)
{
    const int V = 16 / sizeof(T);
    uint64_t base = off + lo * sizeof(T), n16 = 0;
    uintptr_t align = (uintptr_t) base;
    int r;

    for (r = 0; r < a.n; ++r) {
        align |= (uintptr_t) gcoll_src<Src>(a, r, e) | (uintptr_t) (all ? a.dst[r] : dst);
    }
    if (0 == (align & 15)) {
        uint64_t b = blockDim.x;
        n16 = (hi - lo) / V;
        if (GCOLL_SRC_BUFFERS == Src && a.span && a.n >= 3 && a.n <= 4) {
            gcoll_reduce_at_once<T>(a, base, n16, dst, all);
        } else {
            /* four chunks a thread, one rank's at a time: the engine
             * has one block an SM or fewer, so its bandwidth is the loads
             * each thread keeps in flight (two left it memory-latency
             * bound; four spill at part_gcoll's 64 registers and are
             * faster all the same, and stay in part_gcoll_after's; six
             * were no faster there) */
            const int U = 4;
            for (uint64_t i = threadIdx.x; i < n16; i += U * b) {
                union {
                    uint4 v;
                    T x[V];
                } acc[U], in[U];
                const uint4 *s = (const uint4 *) (gcoll_src<Src>(a, 0, e) + base) + i;
#pragma unroll
                for (int u = 0; u < U; ++u) {
                    acc[u].v = make_uint4(0, 0, 0, 0);
                    if (i + u * b < n16) {
                        acc[u].v = gcoll_ld_once(s + u * b);
                    }
                }
                for (r = 1; r < a.n; ++r) {
                    s = (const uint4 *) (gcoll_src<Src>(a, r, e) + base) + i;
#pragma unroll
                    for (int u = 0; u < U; ++u) {
                        in[u].v = make_uint4(0, 0, 0, 0);
                        if (i + u * b < n16) {
                            in[u].v = gcoll_ld_once(s + u * b);
                        }
                    }
#pragma unroll
                    for (int u = 0; u < U; ++u) {
#pragma unroll
                        for (int k = 0; k < V; ++k) {
                            acc[u].x[k] = gcoll_apply<T>(a.op, acc[u].x[k], in[u].x[k]);
                        }
                    }
                }
                for (r = all ? 0 : a.n - 1; r < a.n; ++r) {
                    uint4 *d = (uint4 *) ((all ? a.dst[r] : dst) + base);
#pragma unroll
                    for (int u = 0; u < U; ++u) {
                        if (i + u * b < n16) {
                            /* evict-first: the engine never reads a result
                             * again, and on a shared GPU the L2 is better
                             * left to the inputs the ranks' engines are
                             * still reading */
                            __stcs(d + i + u * b, acc[u].v);
                        }
                    }
                }
            }
        }
    }
    for (uint64_t i = lo + n16 * V + threadIdx.x; i < hi; i += blockDim.x) {
        T acc = __ldcg((const T *) (gcoll_src<Src>(a, 0, e) + off) + i);
        for (r = 1; r < a.n; ++r) {
            const T *in = (const T *) (gcoll_src<Src>(a, r, e) + off) + i;
            acc = gcoll_apply<T>(a.op, acc, __ldcg(in));
        }
        for (r = all ? 0 : a.n - 1; r < a.n; ++r) {
            ((T *) ((all ? a.dst[r] : dst) + off))[i] = acc;
        }
    }
}

/* n bytes from s to d, by the block. */
__device__ static inline void gcoll_copy(char *d, const char *s, uint64_t n)
{
    if (0 == (((uintptr_t) s | (uintptr_t) d | n) & 15)) {
        /* four loads in flight a thread: a peer's memory is far */
        uint64_t n16 = n / 16, b = blockDim.x;
        for (uint64_t i = threadIdx.x; i < n16; i += 4 * b) {
            uint4 v[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                if (i + j * b < n16) {
                    v[j] = __ldcg((const uint4 *) s + i + j * b);
                }
            }
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                if (i + j * b < n16) {
                    __stcs((uint4 *) d + i + j * b, v[j]); /* evict-first: gcoll_reduce */
                }
            }
        }
        return;
    }
    for (uint64_t i = threadIdx.x; i < n; i += blockDim.x) {
        d[i] = __ldcg((const signed char *) s + i);
    }
}

/* Slice s of a unit of `len` bytes on the n ranks (two-shot): its first
 * byte, at a 16-byte boundary (every slice but the last's tail moves in
 * whole 16-byte loads over the links, whatever the number of ranks). */
__device__ static inline uint64_t gcoll_cut(const mca_part_ucx_gcoll_args_t &a, uint64_t len,
                                            int s)
{
    return (s >= a.n) ? len : ((uint64_t) s * len / (uint64_t) a.n) & ~(uint64_t) 15;
}

/* The protocols that push this rank's data into the peers' windows (push,
 * bulk push, LL128 lines, two-shot in lines or with its slices pushed). */
#include "part_ucx_device_coll_push.h"

/* The engine's kernels: a bulk push (and two-shot in lines) has a kernel
 * of its own, and a bulk-pushed two-shot another: in one kernel with the
 * others their loops would take registers the others' loops then spill
 * (the kernel's register bound is shared by the functions it calls). */
enum { GCOLL_KERNEL_PULL, GCOLL_KERNEL_BULK, GCOLL_KERNEL_SLICES };

/* Step 3: move `len` bytes at `off` (unit k) of epoch e. */
template <typename T, int Kernel>
__device__ static inline void gcoll_move(const mca_part_ucx_gcoll_args_t &a, uint64_t k,
                                         uint64_t off, uint64_t len, uint64_t e)
{
    uint64_t count = len / sizeof(T);
    int r;

    if constexpr (GCOLL_KERNEL_SLICES == Kernel) {
        gcoll_twoshot_bulk<T>(a, k, off, len, e);
        return;
    }
    if constexpr (GCOLL_KERNEL_BULK == Kernel) {
        if (MCA_PART_UCX_GCOLL_ALLREDUCE2 == a.kind) {
            gcoll_twoshot128<T>(a, k, off, len, e);
        } else if (a.ll128) {
            gcoll_bulk128<T>(a, k, off, len, e);
        } else {
            gcoll_bulk<T>(a, k, off, len, e);
        }
        return;
    }

    switch (a.kind) {
    case MCA_PART_UCX_GCOLL_ALLREDUCE:
        gcoll_reduce<T>(a, off, 0, count, NULL != a.scratch ? a.scratch : a.dst[a.me], false);
        break;
    case MCA_PART_UCX_GCOLL_ALLREDUCE2:
        /* this rank's slice, cut at 16 bytes as in lines (gcoll_cut):
         * whole 16-byte loads over the links for every slice but the
         * last's tail, whatever the number of ranks */
        gcoll_reduce<T>(a, off, gcoll_cut(a, len, a.me) / sizeof(T),
                        gcoll_cut(a, len, a.me + 1) / sizeof(T), NULL, true);
        break;
    case MCA_PART_UCX_GCOLL_ALLREDUCE_PUSH:
        gcoll_push<T>(a, off, len, e);
        break;
    case MCA_PART_UCX_GCOLL_REDUCE:
        if (a.me == a.root) {
            gcoll_reduce<T>(a, off, 0, count, a.dst[a.me], false);
        }
        break;
    case MCA_PART_UCX_GCOLL_BCAST:
        if (a.me != a.root) {
            gcoll_copy(a.dst[a.me] + off, a.src[a.root] + off, len);
        }
        break;
    case MCA_PART_UCX_GCOLL_ALLGATHER:
        for (r = 0; r < a.n; ++r) {
            char *d = a.dst[a.me] + (uint64_t) r * a.block_bytes + off;
            if (d != a.src[r] + off) { /* in place: our own block is there */
                gcoll_copy(d, a.src[r] + off, len);
            }
        }
        break;
    case MCA_PART_UCX_GCOLL_ALLTOALL:
        for (r = 0; r < a.n; ++r) {
            gcoll_copy(a.dst[a.me] + (uint64_t) r * a.block_bytes + off,
                       a.src[r] + (uint64_t) a.me * a.block_bytes + off, len);
        }
        break;
    }
}

/* After every unit of the block: wait for the ranks that read this rank's
 * data of unit k (and two-shot, for the slices of its result), then
 * finish k. */
__device__ static inline void gcoll_finish(const mca_part_ucx_gcoll_args_t &a, uint64_t k,
                                           uint64_t e)
{
    uint64_t off, u0, u1, len = gcoll_unit(a, k, &off, &u0, &u1);
    int r = (int) threadIdx.x;

    if (r < a.n && gcoll_read_by(a, r)) {
        while (gcoll_acquire(a.gpu_scope, gcoll_consumed(a, a.me, r, k)) < e) {
            gcoll_nap();
        }
        if (MCA_PART_UCX_GCOLL_ALLREDUCE2 == a.kind) {
            while (gcoll_acquire(a.gpu_scope, gcoll_slices(a, a.me, r, k)) < e) {
                gcoll_nap();
            }
        }
    }
    __syncthreads();
    if (NULL != a.scratch) {
        gcoll_copy(a.dst[a.me] + off, a.scratch + off, len);
    }
    if (gcoll_done_late(a)) {
        gcoll_done(a, k, e, false);
    }
}

/* The block's shared copy of the arguments and its epoch (epoch_arg, or 0:
 * *args->epoch_dev, which a counted start wrote into GPU memory as well;
 * read beside the copy, not after it behind a barrier). */
__device__ static inline void gcoll_take_args(mca_part_ucx_gcoll_args_t *a, uint64_t *epoch,
                                              const mca_part_ucx_gcoll_args_t *args,
                                              uint64_t epoch_arg)
{
    if (0 == threadIdx.x) {
        *epoch = (0 != epoch_arg) ? epoch_arg : *args->epoch_dev;
    }
    for (unsigned i = threadIdx.x; i < sizeof(*a) / sizeof(uint64_t); i += blockDim.x) {
        ((uint64_t *) a)[i] = ((const uint64_t *) args)[i];
    }
    __syncthreads();
}

/* The arguments (GPU memory, written once per collective) are copied into
 * shared memory: the per-rank arrays are indexed at run time, which from
 * the parameter space would copy them into every thread's local memory.
 * `epoch_arg`: 0 where the stream counts the epochs (*epoch_word).
 * The kernels below run it with their own register bounds. */
template <typename T, int Kernel>
__device__ static __forceinline__ void gcoll_engine(const mca_part_ucx_gcoll_args_t *args,
                                                    uint64_t epoch_arg,
                                                    const volatile uint64_t *epoch_word)
{
    __shared__ mca_part_ucx_gcoll_args_t a;
    __shared__ uint64_t epoch;
    __shared__ uint64_t deferred[2]; /* done words written at the block's end (gcoll_deferred) */
    uint64_t e, k, off, u0, u1, len;
#if GCOLL_TRACING
    unsigned long long entry = part_trace_now();
#endif

    gcoll_take_args(&a, &epoch, args, epoch_arg);
    e = epoch;
#if GCOLL_TRACING
    if (0 == threadIdx.x && 0 == blockIdx.x) {
        part_trace_stamp_at(e, PART_TRACE_ENTRY, entry);
    }
#endif
    GCOLL_STAMP(e, PART_TRACE_EPOCH);
    GCOLL_BLOCK_STAMP(e, PART_TRACE_BLOCK_START);
    if (32 == threadIdx.x) {
        /* from the arguments' shared copy, by a thread that waits for no
         * partition of a small epoch's unit, beside thread 0's wait: from
         * the global copy before the barrier they delayed every wait; read
         * only after a barrier to come (the move's) or by this thread */
        deferred[0] = deferred[1] = 0;
        if (gridDim.x <= GCOLL_DEFER_BLOCKS) {
            gcoll_deferred(a, &deferred[0], &deferred[1]);
        }
    }
    for (k = blockIdx.x; k < a.units; k += gridDim.x) {
        len = gcoll_unit(a, k, &off, &u0, &u1);
        if (gcoll_readies(a)) {
            gcoll_own_ready(a, u0, u1, e);
            if (a.relay) {
                gcoll_relay(a, k, e);
            }
        }
        if (k == blockIdx.x) {
            GCOLL_STAMP(e, PART_TRACE_OWN_READY);
        }
        gcoll_peers_ready(a, k, u0, u1, e);
        __syncthreads();
        if (k == blockIdx.x) {
            GCOLL_STAMP(e, PART_TRACE_PEERS);
        }
        GCOLL_UNIT_STAMP(e, k, PART_TRACE_UNIT_PEERS);
        gcoll_move<T, Kernel>(a, k, off, len, e);
        __syncthreads();
        if (k == blockIdx.x) {
            GCOLL_STAMP(e, PART_TRACE_MOVED);
        }
        GCOLL_UNIT_STAMP(e, k, PART_TRACE_UNIT_MOVED);
        gcoll_tell(a, k, e);
        if (!gcoll_done_late(a) && !(deferred[1] > deferred[0] && k + gridDim.x >= a.units)) {
            gcoll_done(a, k, e, true);
        }
        __syncthreads(); /* the unit's shared state before the next one */
        if (k == blockIdx.x) {
            GCOLL_STAMP(e, PART_TRACE_TOLD);
        }
        GCOLL_UNIT_STAMP(e, k, PART_TRACE_UNIT_TOLD);
    }
    /* a push has no reader to wait for, and its results (never in
     * scratch) are final: no finish step, whose barriers would only
     * lengthen the epoch */
    for (k = blockIdx.x; k < a.units && !gcoll_pushed(a); k += gridDim.x) {
        gcoll_finish(a, k, e);
    }
    __syncthreads();
    GCOLL_STAMP(e, PART_TRACE_FINISHED);
    GCOLL_BLOCK_STAMP(e, PART_TRACE_BLOCK_FINISHED);
    if (32 == threadIdx.x && 1 != gridDim.x && deferred[1] > deferred[0]) {
        /* the deferred done words, by a thread beside thread 0 and its
         * fence below, off the path to the count and the finished word */
        gcoll_fence_host(a);
        for (k = deferred[0]; k < deferred[1]; ++k) {
            a.done[k] = e;
        }
    }
    if (0 == threadIdx.x) {
        bool last = (1 == gridDim.x); /* one block: no count to keep */
        if (!last) {
            part_fence(true); /* this block's words before the count (this GPU's) */
            last = gcoll_count_last(a.blocks_done);
        }
        if (last) {
            /* the next counted start's epoch (stream_start_counted's
             * `next`), before the host may see this one finished and
             * enqueue it */
            *a.epoch_dev = e + 1;
            gcoll_fence_host(a); /* every block's words (the others' seen through the count) */
            for (k = deferred[0]; 1 == gridDim.x && k < deferred[1]; ++k) {
                a.done[k] = e; /* one block: after the one fence */
            }
            *a.finished = e;
            if (0 == epoch_arg) {
                /* complete, and the epoch the stream's next start takes,
                 * as a wait would (stream_start_counted) */
                ((volatile uint64_t *) epoch_word)[0] = e;
                ((volatile uint64_t *) epoch_word)[1] = e + 1;
            }
#if GCOLL_TRACING
            part_trace_stamp(e, PART_TRACE_END);
#endif
        }
    }
}

/* Two blocks an SM (at most 64 registers a thread): a block of the engine,
 * which is resident while the application's kernel still runs, then
 * leaves room on its SM for a block of 1024 threads at 32 registers; at
 * one, it would take a whole SM from that kernel. */
template <typename T, int Kernel>
__global__ void __launch_bounds__(GCOLL_THREADS, 2)
    part_gcoll(const mca_part_ucx_gcoll_args_t *args, uint64_t epoch_arg,
               const volatile uint64_t *epoch_word)
{
    gcoll_engine<T, Kernel>(args, epoch_arg, epoch_word);
}

/* After mode (MCA_PART_UCX_GCOLL_GATED): the producers are done and the
 * engine takes at most one block an SM (mca_part_ucx_gcoll_after), so its
 * threads may have GCOLL_AFTER_REGS registers, and its chunks in flight
 * stay in registers (at 64, the two-block bound, they spill). __maxnreg__
 * needs nvcc 12.4; before it, after mode takes part_gcoll. */
#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4)
template <typename T>
__global__ void __maxnreg__(GCOLL_AFTER_REGS)
    part_gcoll_after(const mca_part_ucx_gcoll_args_t *args, uint64_t epoch_arg,
                     const volatile uint64_t *epoch_word)
{
    gcoll_engine<T, GCOLL_KERNEL_PULL>(args, epoch_arg, epoch_word);
}
#define GCOLL_AFTER_KERNEL(T) part_gcoll_after<T>
#else
#define GCOLL_AFTER_KERNEL(T) part_gcoll<T, GCOLL_KERNEL_PULL>
#endif

/* The gate of an epoch whose kernel runs after the producing kernels
 * (MCA_PART_UCX_GCOLL_GATED: part_ucx_coll_gpu_after_bytes), a small
 * kernel on the application's stream before the engine's (one block, or
 * with marks one a batch of them, up to GCOLL_GATE_BLOCKS): it waits
 * until every rank that makes partitions ready made all of them ready
 * (this rank's host marks copied into the window, as step 1 does; with
 * marks, until those producers have all started their last blocks), so
 * that the engine's blocks, as many as the GPU's share of this rank,
 * never spin on SMs that a producer of the epoch (a peer's, under CUDA
 * MPS) still needs; its waits for the peers' moves then last only as
 * long as their engines, which fit beside it. It only looks: the
 * engine's own waits acquire the data after it. */
/* 512 threads at 32 registers: room beside an after-mode engine block
 * (GCOLL_AFTER_REGS) */
#define GCOLL_GATE_THREADS 512
#define GCOLL_GATE_BATCH 8

/* Whether the gate waits for word i (rank i / user_parts's partition
 * i % user_parts): a rank that makes partitions ready. */
__device__ static inline bool gcoll_gate_waits(const mca_part_ucx_gcoll_args_t &a, uint64_t i)
{
    int r = (int) (i / a.user_parts);

    return MCA_PART_UCX_GCOLL_BCAST != a.kind || r == a.root;
}

/* The gate's wait for word i that was not there at its first look (this
 * rank's as in step 1, its host marks copied into the window). */
__device__ static inline void gcoll_gate_wait(const mca_part_ucx_gcoll_args_t &a, uint64_t i,
                                              uint64_t e)
{
    int r = (int) (i / a.user_parts);
    uint64_t u = i % a.user_parts;

    if (r == a.me) {
        gcoll_own_wait(a, u, e);
        return;
    }
    while (gcoll_ready(a, r)[u] < e) {
        gcoll_nap();
    }
}

/* Stream-ordered marks (a.marks, MPIX_PREQUEST_TAG_ORDERED): the stream
 * ran this rank's producers before the gate, so a partition unmarked now
 * stays so. The gate's blocks check every mark of their share (or the
 * host's MPI_Pready), clear it for the next epoch, and publish the share's
 * ready words after one release for them all, where each MPIX_Pready would
 * have released its own. A partition nobody made ready fails the device
 * request and is published all the same: no peer waits for it forever.
 * The last partition's word goes last, by the block that completes the
 * count of the gate's blocks (a.blocks_done[1]), after a release of every
 * block's words: a peer's gate then waits for that one word of this rank
 * (gcoll_gate_last), where one block looking at every word took a round
 * trip per batch of them (16 at 16384 partitions on two ranks) between the
 * last producer and the engines. Returns whether this block is that last
 * one. Loads in batches of four, a batch a thread for each of the gate's
 * blocks (gcoll_gate_blocks): within the gate's 32 registers four spill
 * 28 bytes (to L1), two none but would take twice the blocks, or round
 * trips beyond 16 blocks. */
#define GCOLL_PUBLISH_BATCH 4
__device__ static inline bool gcoll_gate_publish(const mca_part_ucx_gcoll_args_t &a, uint64_t e)
{
    volatile uint64_t *marks = a.marks, *ready = gcoll_ready(a, a.me);
    const uint64_t b = blockDim.x, parts = a.user_parts, step = GCOLL_PUBLISH_BATCH * b;
    const uint64_t first = blockIdx.x * step + threadIdx.x, stride = gridDim.x * step;
    __shared__ bool last;
    bool host = 0 != *a.host_marks;
    int missing = 0;

    for (uint64_t i0 = first; i0 < parts; i0 += stride) {
        uint64_t v[GCOLL_PUBLISH_BATCH];
#pragma unroll
        for (int j = 0; j < GCOLL_PUBLISH_BATCH; ++j) {
            v[j] = (i0 + j * b < parts) ? marks[i0 + j * b] : 1;
        }
#pragma unroll
        for (int j = 0; j < GCOLL_PUBLISH_BATCH; ++j) {
            uint64_t u = i0 + j * b;
            if (u < parts) {
                missing |= (1 != v[j] && !(host && a.host_ready[u] >= e));
                marks[u] = 0;
            }
        }
    }
    missing = __syncthreads_or(missing);
    if (0 != missing && 0 == threadIdx.x && NULL != a.pready_error) {
        *a.pready_error |= MCA_PART_UCX_GCOLL_ERR_UNREADY; /* the host fails the request */
    }
    /* what the host made ready: its data before the words, as step 1 */
    if (host) {
        part_fence_sys();
    } else {
        __threadfence();
    }
    for (uint64_t i0 = first; i0 < parts; i0 += stride) {
#pragma unroll
        for (int j = 0; j < GCOLL_PUBLISH_BATCH; ++j) {
            uint64_t u = i0 + j * b;
            if (u < parts - 1) {
                ready[u] = e;
            }
        }
    }
    __syncthreads();
    if (0 == threadIdx.x) {
        /* this block's words (cumulative after the barrier) before the
         * count; the last block's fence makes every block's cumulative
         * for the last word's readers (one block: no count) */
        last = (1 == gridDim.x);
        if (!last) {
            __threadfence();
            last = gcoll_count_last(a.blocks_done + 1);
        }
        if (last) {
            __threadfence();
            ready[parts - 1] = e;
        }
    }
    __syncthreads();
    return last;
}

/* The gate's blocks: one where it only looks (no marks), else enough for
 * a batch of marks a thread, at most GCOLL_GATE_BLOCKS (each but the last
 * leaves once its share is published; the last one waits). */
#define GCOLL_GATE_BLOCKS 16
static unsigned gcoll_gate_blocks(const mca_part_ucx_gcoll_args_t *a)
{
    uint64_t per = (uint64_t) GCOLL_GATE_THREADS * GCOLL_PUBLISH_BATCH;
    uint64_t blocks = (NULL == a->marks) ? 1 : (a->user_parts + per - 1) / per;

    return (unsigned) ((blocks > GCOLL_GATE_BLOCKS) ? GCOLL_GATE_BLOCKS
                       : (blocks < 1) ? 1 : blocks);
}

/* Marks: the last word of every rank that makes partitions ready, which
 * its gate's last block writes after all the others (gcoll_gate_publish),
 * one rank a thread. A rank that marks as usual writes that word for its
 * last partition only: the engine's own waits are the ones that count.
 * Before that wait, the engine may launch (griddepcontrol.launch_dependents)
 * as soon as every such peer's producer marked its last partition (its
 * mark, at the same offset in the peer's window as a.marks in this one's)
 * or published: that producer's blocks have then all started, so the
 * engine's blocks take only SMs that its last blocks leave, and they wait
 * for the words on the SMs meanwhile, where from the gate's end they
 * would first be launched and load their arguments (a launch's latency
 * and a round trip after the last producer). A partition marked out of
 * order only launches the engine early. */
__device__ static inline void gcoll_gate_last(const mca_part_ucx_gcoll_args_t &a, uint64_t e)
{
    int r = (int) threadIdx.x;
    uint64_t last = a.user_parts - 1;
    bool waits = r < a.n && r != a.me && gcoll_gate_waits(a, (uint64_t) r * a.user_parts);

    if (waits) {
        const volatile uint64_t *mark = a.win[r] + (a.marks - (uint64_t *) a.win[a.me]) + last;
        while (gcoll_ready(a, r)[last] < e && 1 != *mark) {
            gcoll_nap();
        }
    }
    __syncthreads();
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
    if (waits) {
        while (gcoll_ready(a, r)[last] < e) {
            gcoll_nap();
        }
    }
}

/* at most 32 registers a thread: a quarter of an SM's, room beside an
 * after-mode engine block (part_ucx_coll_gpu.c, mca_part_ucx_gcoll_after) */
__global__ void __launch_bounds__(GCOLL_GATE_THREADS, 4)
    part_gcoll_gate(const mca_part_ucx_gcoll_args_t *args, uint64_t epoch_arg)
{
    __shared__ mca_part_ucx_gcoll_args_t a;
    __shared__ uint64_t epoch;
    const uint64_t b = blockDim.x;
    uint64_t e, i0, pairs;

#if GCOLL_TRACING
    unsigned long long entry = part_trace_now();
#endif

    gcoll_take_args(&a, &epoch, args, epoch_arg);
    e = epoch;
    GCOLL_GATE_STAMP(e, PART_TRACE_GATE_ENTRY, entry);
    /* launched as a programmatic dependent of the producing kernel
     * (gcoll_launch_ex): the producer's marks and data once it has
     * completed; a no-op where the launch was an ordinary one */
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    GCOLL_GATE_STAMP(e, PART_TRACE_GATE_WAITED, part_trace_now());
    if (NULL != a.marks) {
        if (gcoll_gate_publish(a, e)) {
            gcoll_gate_last(a, e);
        }
        GCOLL_GATE_STAMP(e, PART_TRACE_GATE_LEFT, part_trace_now());
        return;
    }
    pairs = (uint64_t) a.n * a.user_parts;
    /* a batch of words a thread loaded before any is compared: one round
     * trip for the batch, where a word at a time would take one each
     * (an epoch of 16384 partitions on four ranks: 64 words a thread) */
    for (i0 = threadIdx.x; i0 < pairs; i0 += GCOLL_GATE_BATCH * b) {
        uint64_t v[GCOLL_GATE_BATCH];
#pragma unroll
        for (int j = 0; j < GCOLL_GATE_BATCH; ++j) {
            uint64_t i = i0 + j * b;
            v[j] = (i < pairs && gcoll_gate_waits(a, i))
                       ? gcoll_ready(a, (int) (i / a.user_parts))[i % a.user_parts] : e;
        }
#pragma unroll
        for (int j = 0; j < GCOLL_GATE_BATCH; ++j) {
            if (v[j] < e) {
                gcoll_gate_wait(a, i0 + j * b, e);
            }
        }
    }
    GCOLL_GATE_STAMP(e, PART_TRACE_GATE_LEFT, part_trace_now());
}

/* Whether this thread's current GPU has programmatic dependent launch
 * (compute capability 9.0 on). Elsewhere the attribute is not even
 * tried: a refused launch inside a stream capture would invalidate the
 * capture, whatever the ordinary launch after it. */
static bool gcoll_pdl_capable(void)
{
    /* asked once, at the first collective's setup (MCA_PART_UCX_GCOLL_LOAD,
     * outside any capture); a process drives one GPU */
    static int capable = -1;
    int dev = 0, major = 0;

    if (capable < 0) {
        capable = cudaSuccess == cudaGetDevice(&dev) &&
                  cudaSuccess == cudaDeviceGetAttribute(&major,
                                                        cudaDevAttrComputeCapabilityMajor, dev) &&
                  major >= 9;
    }
    return 1 == capable;
}

/* Launches kernel<<<blocks, threads>>>(args...) on stream. urgent: at the
 * device's greatest priority (a captured launch keeps it as its node's).
 * early: as a programmatic dependent of the kernel before it on the
 * stream, whose completion it then waits for itself (griddepcontrol.wait)
 * or does not need: its blocks may start as that kernel's last blocks
 * leave, not once its completion has been flushed, one kernel boundary's
 * latency less. Where the previous work is no kernel, or the GPU has no
 * such launches, the launch is an ordinary one; where the attribute is
 * refused, so is it. */
template <typename... P, typename... A>
static int gcoll_launch_ex(void (*kernel)(P...), unsigned blocks, unsigned threads, void *stream,
                           bool urgent, bool early, A... args)
{
#if CUDART_VERSION >= 12000 /* launch attributes */
    cudaLaunchAttribute attrs[2];
    cudaLaunchConfig_t cfg = {};
    int least = 0, greatest = 0;

    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.stream = (cudaStream_t) stream;
    cfg.attrs = attrs;
    if (urgent) {
        if (0 != check(cudaDeviceGetStreamPriorityRange(&least, &greatest))) {
            return -1;
        }
        attrs[cfg.numAttrs].id = cudaLaunchAttributePriority;
        attrs[cfg.numAttrs++].val.priority = greatest;
    }
    if (early && gcoll_pdl_capable()) {
        attrs[cfg.numAttrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attrs[cfg.numAttrs++].val.programmaticStreamSerializationAllowed = 1;
        if (cudaSuccess == cudaLaunchKernelEx(&cfg, kernel, args...)) {
            return 0;
        }
        (void) cudaGetLastError(); /* refused: an ordinary launch */
        --cfg.numAttrs;
    }
    if (0 < cfg.numAttrs) {
        return check(cudaLaunchKernelEx(&cfg, kernel, args...));
    }
#else
    (void) urgent;
    (void) early;
#endif
    kernel<<<blocks, threads, 0, (cudaStream_t) stream>>>(args...);
    return check(cudaGetLastError());
}

template <typename T>
static int gcoll_launch(int which, const mca_part_ucx_gcoll_args_t *a,
                        const mca_part_ucx_gcoll_args_t *dev, uint64_t epoch,
                        const volatile uint64_t *epoch_word, unsigned blocks, void *stream,
                        int how, bool urgent)
{
    void (*kernel)(const mca_part_ucx_gcoll_args_t *, uint64_t, const volatile uint64_t *) =
        (GCOLL_KERNEL_SLICES == which) ? part_gcoll<T, GCOLL_KERNEL_SLICES>
        : (GCOLL_KERNEL_BULK == which)         ? part_gcoll<T, GCOLL_KERNEL_BULK>
        : (MCA_PART_UCX_GCOLL_GATED == how)    ? GCOLL_AFTER_KERNEL(T)
                                               : part_gcoll<T, GCOLL_KERNEL_PULL>;
    cudaFuncAttributes attr;

    if (MCA_PART_UCX_GCOLL_LOAD == how) {
#if GCOLL_TRACING
        part_trace_setup();
#endif
        (void) gcoll_pdl_capable();
        return (0 != check(cudaFuncGetAttributes(&attr, kernel)) ||
                0 != check(cudaFuncGetAttributes(&attr, part_gcoll_gate)) ||
                (GCOLL_KERNEL_PULL == which &&
                 0 != check(cudaFuncGetAttributes(&attr, GCOLL_AFTER_KERNEL(T)))))
                   ? -1 : 0;
    }
    if (MCA_PART_UCX_GCOLL_GATED == how &&
        0 != gcoll_launch_ex(part_gcoll_gate, gcoll_gate_blocks(a), GCOLL_GATE_THREADS, stream,
                             false, true, dev, epoch)) {
        return -1;
    }
    /* The engine is launched after the producing kernel (see
     * mca_part_ucx_gcoll_start), and a grid's blocks go to the SMs in
     * launch order at equal priority: behind a producer of more blocks than
     * the GPU holds, the engine's would wait for its last ones and move
     * nothing while it runs. Urgent, at the greatest priority, they go
     * ahead of the producer's waiting blocks; the engine's block cap (half
     * the SMs) leaves that kernel room. Behind a gate, its blocks may start
     * once the gate lets them (gcoll_gate_last) or leaves: the engine reads
     * nothing the gate writes without waiting for it. */
    return gcoll_launch_ex(kernel, blocks, GCOLL_THREADS, stream, urgent,
                           MCA_PART_UCX_GCOLL_GATED == how, dev, epoch, epoch_word);
}

/* a: the arguments (host memory), dev: their copy in GPU memory. Copies
 * take one instantiation: no element type matters to them. */
static int dev_gcoll(const mca_part_ucx_gcoll_args_t *a, const mca_part_ucx_gcoll_args_t *dev,
                     uint64_t epoch, const volatile uint64_t *epoch_word, unsigned blocks,
                     void *stream, int how)
{
    /* the bulk push's kernel also runs two-shot in lines */
    bool bulk = MCA_PART_UCX_GCOLL_ALLREDUCE_BULK == a->kind ||
                MCA_PART_UCX_GCOLL_ALLREDUCE2_BULK == a->kind ||
                (MCA_PART_UCX_GCOLL_ALLREDUCE2 == a->kind && a->ll128);
    int which = (MCA_PART_UCX_GCOLL_ALLREDUCE2_BULK == a->kind) ? GCOLL_KERNEL_SLICES
                : bulk ? GCOLL_KERNEL_BULK : GCOLL_KERNEL_PULL;
    bool reduces = bulk || MCA_PART_UCX_GCOLL_ALLREDUCE == a->kind ||
                   MCA_PART_UCX_GCOLL_ALLREDUCE2 == a->kind ||
                   MCA_PART_UCX_GCOLL_ALLREDUCE_PUSH == a->kind ||
                   MCA_PART_UCX_GCOLL_REDUCE == a->kind;

    /* the kernel of element type T (a value of it says which) */
    auto launch = [&](auto zero) {
        return gcoll_launch<decltype(zero)>(which, a, dev, epoch, epoch_word, blocks, stream, how,
                                            0 != a->urgent);
    };

    if (!reduces) {
        return launch(uint8_t());
    }
    switch (a->dt) {
    case MCA_PART_UCX_DT_INT8: return launch(int8_t());
    case MCA_PART_UCX_DT_INT16: return launch(int16_t());
    case MCA_PART_UCX_DT_INT32: return launch(int32_t());
    case MCA_PART_UCX_DT_INT64: return launch(int64_t());
    case MCA_PART_UCX_DT_UINT8: return launch(uint8_t());
    case MCA_PART_UCX_DT_UINT16: return launch(uint16_t());
    case MCA_PART_UCX_DT_UINT32: return launch(uint32_t());
    case MCA_PART_UCX_DT_UINT64: return launch(uint64_t());
    case MCA_PART_UCX_DT_FLOAT: return launch(float());
    case MCA_PART_UCX_DT_DOUBLE: return launch(double());
    }
    return -2;
}

static int dev_stream_wait_event(void *stream, void *event)
{
    return check(cudaStreamWaitEvent((cudaStream_t) stream, (cudaEvent_t) event, 0));
}
