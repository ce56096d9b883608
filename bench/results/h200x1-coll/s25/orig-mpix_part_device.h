/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Device bindings of part/ucx's partitioned communication: inline
 * __device__ functions on an MPIX_Prequest made by MPIX_Prequest_create()
 * (<mpi-ext.h>), so applications need no relocatable device code. Names
 * and argument order follow NVIDIA's mpi-acx prototype where they overlap.
 *
 *   MPIX_Pready(partition, preq)          `threshold` calls a partition and epoch
 *   MPIX_Pready_thread/_warp/_block       explicit levels, for measurement
 *   MPIX_Parrived(preq, partition, &flag) receive side, polls device-visible
 *                                         arrival flags
 *
 * A partition is ready once MPIX_Pready has been called for it exactly
 * `threshold` times in the epoch (the MPI_Info key "mpix_pready_threads"
 * of MPI_Psend_init, default 1: one call, e.g. by one thread; where every
 * thread of a partition's blocks calls it, set the key to that number of
 * threads). Calls from one warp (or, with the key "mpix_pready_aggregate"
 * "block", one block) are combined into one counter update, and the
 * update that completes the count publishes the partition to the host
 * progress engine with a system-scope fence and counts the partition's
 * epoch: the host's current one, which kernels read from a GPU copy (one
 * thread reads the host word, about 1 us, once an epoch). No division,
 * whose 64-bit form would cost a kernel more registers than the rest, and
 * with 1024 threads a block more than 32 registers a thread halve the
 * blocks an SM can hold.
 *
 * Misuse never writes outside the request: a partition out of range or a
 * handle of the wrong kind (a receive's to MPIX_Pready, a send's to
 * MPIX_Parrived) sets a bit in the request's error word (host memory) and
 * does nothing else; so do calls beyond the threshold in an epoch, except
 * that an update which completes a partition with some completes it all
 * the same (its data moves). The host then fails the request with
 * MPI_ERR_ARG at its MPI_Wait/MPI_Test; calls beyond the threshold are
 * never carried into the next epoch (the send stays failed). MPIX_Parrived
 * returns MPI_ERR_ARG with *flag = 1 then, so that a polling loop ends.
 *
 * Transport groups: 2^group_shift consecutive partitions of a send request
 * share one counter (threshold times as many calls), and the call that
 * completes the group copies (kernel copy) and marks all of them, with one
 * system-scope fence. The host chooses the group size from the partition
 * size and the buffer's (MCA part_ucx_device_group_bytes): one copy and
 * one fence per 32-128 KiB (kernel copy) or 1 MiB (progress engine)
 * instead of per partition.
 *
 * The handle carries the request's aggregation level and mechanism in its
 * three low bits (device allocations are at least 256-byte aligned), so that
 * a kernel branches on its argument instead of on a load, which a kernel
 * writing at full memory bandwidth waits for as long as for its stores.
 *
 * Stream-ordered marks (MPIX_PREQUEST_TAG_ORDERED): a collective declared
 * "mpix_stream_kernels" whose GPU engine runs after the producing kernels
 * on the application's stream (part_ucx_coll_gpu_after_bytes). Its epochs
 * start and complete only on a stream, so every kernel that calls
 * MPIX_Pready has finished when the wait's kernels run: MPIX_Pready then
 * only marks its partition (one store, no count, no fence, no barrier),
 * and the wait's first kernel checks the marks and publishes them, with one
 * release for the whole rank. A block that holds its SM slot until its
 * leader's fence and atomic return costs a short producer more than twice
 * its time at large grids; one store costs it far less. Calls beyond
 * the threshold are not counted then; a partition no call marked fails
 * the request (MPIX_PREQUEST_ERR_UNREADY).
 */

#ifndef MPIX_PART_DEVICE_H
#define MPIX_PART_DEVICE_H

#include <mpi.h>
#include <stdint.h>

#define MPIX_PREQUEST_MAGIC 0x50524551u /* "PREQ" */

/* The layout of struct mpix_prequest_s, which kernels read inline: a
 * program passes the layout it was compiled with to MPIX_Prequest_create
 * (MPIX_PREQUEST_LAYOUT of <mpi-ext.h>), and an Open MPI with another one
 * fails the call. Any change of the struct or of the handle's tag bits
 * takes a new number, here and in ompi/mpiext/part/c/mpiext_part_c.h. */
#define MPIX_PART_DEVICE_LAYOUT 4
#if defined(MPIX_PREQUEST_LAYOUT) && MPIX_PREQUEST_LAYOUT != MPIX_PART_DEVICE_LAYOUT
#error "mpix_part_device.h and mpi-ext.h come from different Open MPI installs"
#endif

enum {
    MPIX_PREQUEST_SEND = 1,
    MPIX_PREQUEST_RECV = 2,
    MPIX_PREQUEST_COLL = 3          /* a partitioned collective: Pready and Parrived */
};

/* What MPIX_Pready combines (the MPI_Info key "mpix_pready_aggregate"):
 * the lanes of a warp that name one partition, which is safe in any
 * control flow, or every thread of the block, which the caller promises
 * calls it, for one partition, as it would __syncthreads. */
enum {
    MPIX_PREQUEST_AGGREGATE_WARP = 0,
    MPIX_PREQUEST_AGGREGATE_BLOCK = 1
};

enum {
    MPIX_PREQUEST_PROGRESS = 0,   /* kernel marks, host progress engine puts */
    MPIX_PREQUEST_KERNEL_COPY = 1 /* kernel stores into the peer GPU (NVLink) */
};

/* The handle's low bits (MPIX_Prequest_create sets them). */
#define MPIX_PREQUEST_TAG_BLOCK       ((uintptr_t) 1) /* aggregate MPIX_PREQUEST_AGGREGATE_BLOCK */
#define MPIX_PREQUEST_TAG_KERNEL_COPY ((uintptr_t) 2) /* mechanism MPIX_PREQUEST_KERNEL_COPY */
#define MPIX_PREQUEST_TAG_ORDERED     ((uintptr_t) 4) /* stream-ordered marks (above) */
#define MPIX_PREQUEST_TAG_MASK        ((uintptr_t) 7)

/* The bits of the request's error word (kernels set them, the host fails
 * the request with MPI_ERR_ARG). */
#define MPIX_PREQUEST_ERR_PARTITION ((uint32_t) 1) /* out of range, or the wrong kind of handle */
#define MPIX_PREQUEST_ERR_THRESHOLD ((uint32_t) 2) /* MPIX_Pready beyond the threshold in an epoch */
/* stream-ordered marks: an epoch's wait found a partition no call marked */
#define MPIX_PREQUEST_ERR_UNREADY   ((uint32_t) 4)

/* Kernel copy: the mark of a group that a kernel left to the host (the
 * receiver's ready-to-receive of the epoch not visible yet): the host
 * progress engine sends it as it would for MPI_Pready. */
#define MPIX_PREQUEST_MARK_HOST ((uint64_t) 1 << 63)
/* stream_started of a send whose kernels count its epochs themselves (info
 * "mpix_stream_kernels"): every epoch is stream-started, and epoch e's
 * kernels run after epoch e - 1 completed on this stream, so the epoch is
 * done_dev + 1 and the stream carries no start or wait of its own. */
#define MPIX_PREQUEST_STREAM_KERNELS (~0ull)

/* Lives in GPU memory; written by MPIX_Prequest_create, then by kernels
 * only in rtr_seen/rtr_poller and epoch_seen/epoch_poller (and by the
 * host's MPI_Start in epoch_seen, after an epoch it readied itself). */
struct mpix_prequest_s {
    uint32_t magic;                 /* MPIX_PREQUEST_MAGIC */
    uint32_t layout;                /* MPIX_PART_DEVICE_LAYOUT */
    uint32_t kind;                  /* MPIX_PREQUEST_SEND, _RECV or _COLL */
    uint32_t mechanism;
    uint32_t parts;                 /* this side's partitions */
    uint32_t remote_parts;          /* receive: the sender's partitions */
    uint32_t threshold;             /* send: MPIX_Pready calls per partition */
    uint64_t total_bytes;
    /* send, device memory, per group: the last epoch the group completed
     * (high 32 bits) and the calls since (low 32 bits), so that one atomic
     * tells a call of a new epoch from one beyond the threshold */
    unsigned long long *counters;
    volatile uint64_t *ready;       /* send, host memory: epoch per group, at its first
                                     * partition (the host reads one word a group), with
                                     * MPIX_PREQUEST_MARK_HOST where left to the host */
    const volatile uint64_t *arrived; /* receive, host memory: epoch per sender partition */
    const volatile uint64_t *epoch; /* host memory: the request's current epoch */
    /* Kernel copy (send): partition p goes from src + p * part_bytes to the
     * receiver's buffer mapped at dst + p * part_bytes, once the receiver
     * has started the epoch (*rtr >= epoch). */
    const volatile uint64_t *rtr;
    const char *src;
    char *dst;
    uint64_t part_bytes;
    /* Kernel copy: the receiver's arrival flags (its shared memory,
     * registered for this GPU), set by the kernel right after the data;
     * NULL where the host sends the arrivals. */
    volatile uint64_t *remote_arrived;
    /* Kernel copy, device memory: the highest *rtr a kernel has seen, and
     * a lock so that one group at a time reads *rtr (reads of pinned host
     * memory from a kernel are serialised, about 1 us each). */
    unsigned long long rtr_seen;
    int rtr_poller;
    int rtr_cache;                  /* 0: every copying group reads *rtr itself */
    uint32_t aggregate;             /* MPIX_PREQUEST_AGGREGATE_WARP or _BLOCK */
    uint32_t group_shift;           /* send: log2 of the partitions of a transport group */
    /* The partitions each call takes (one unsigned compare checks both
     * the index and the kind): parts for a send or collective, 0 for a
     * receive (MPIX_Pready); parts for a receive or collective, 0 for a
     * send (MPIX_Parrived). */
    uint32_t pready_parts;
    uint32_t parrived_parts;
    volatile uint32_t *error;       /* host memory: MPIX_PREQUEST_ERR_* bits */
    /* Send, device memory: the highest *epoch a kernel has read, and a
     * lock so that one thread at a time reads *epoch. */
    unsigned long long epoch_seen;
    int epoch_poller;
    /* Kernel copy with the receiver's flags mapped: the group that
     * completes an epoch's last transport group tells both sides, so that
     * no host takes part in the epoch: the done words of the receiver (for
     * its MPI_Wait, in its shared memory; for its stream, in its GPU
     * memory) and of this side (host memory for MPI_Wait, done_dev for the
     * stream). groups_done (device memory) counts the groups completed this
     * epoch, plus 2^32 for each one left to the host, whose data is not
     * there yet (no word is written then). */
    volatile uint64_t *remote_done;
    volatile uint64_t *remote_done_dev; /* NULL where the receiver has no GPU words */
    volatile uint64_t *done;
    unsigned long long done_dev;
    unsigned long long groups_done;
    uint32_t groups;
    /* 1 where the data stays in this GPU's memory and only threads of this
     * GPU read it and the words (a GPU-engine collective whose ranks all
     * share the GPU; a kernel copy into the buffer of a receiver on this
     * GPU): a mark, and the count that completes an epoch, then release
     * and acquire at GPU scope. It fills what was padding, and 0 means
     * system scope, so headers and libraries of layout 3 with and without
     * it still work together. */
    uint32_t mark_gpu_scope;
    /* The receiver's ready-to-receive in its GPU memory, written by its
     * stream (NULL: none), read before the host-memory word rtr. */
    const volatile uint64_t *rtr_dev;
    /* The latest epoch a stream started (MPIX_Start_enqueue). No host sees
     * the receiver's ready-to-receive in such an epoch, so a kernel waits
     * for it instead of leaving its group to the host.
     * MPIX_PREQUEST_STREAM_KERNELS: the kernels count the epochs. */
    unsigned long long stream_started;
    /* Receive: the done word the sender's kernels write into this side's
     * GPU memory once every partition of an epoch has arrived (NULL:
     * none). Written before the arrival flags, which are host memory. */
    const volatile uint64_t *done_gpu;
    /* The epoch of MPIX_Parrived where it is later than *epoch, which a
     * stream does not write (a stream's write to host memory costs it a
     * system-wide flush), NULL: none. Receive: this side's ready-to-receive
     * in its GPU memory, which its stream sets to the epoch at each
     * enqueued start; collective: epoch_seen, which its stream sets. */
    const volatile uint64_t *epoch_gpu;
};

#ifdef __CUDACC__
#define MPIX_PART_HOST_DEVICE __host__ __device__
#else
#define MPIX_PART_HOST_DEVICE
#endif

/* The request a handle names: where its fields live (host code reading
 * them with cudaMemcpy needs it too). */
MPIX_PART_HOST_DEVICE static inline struct mpix_prequest_s *
mpix_prequest_ptr(struct mpix_prequest_s *preq)
{
    return (struct mpix_prequest_s *) ((uintptr_t) preq & ~MPIX_PREQUEST_TAG_MASK);
}

#ifdef __CUDACC__

/* Device-scope fence, acquire and release: orders the caller's (and, after
 * a barrier, its group's) data writes before a counter update, and the
 * completing thread's reads after it. Lighter than __threadfence's
 * sequentially consistent fence, which waits for more. */
__device__ static inline void mpix_part_fence_gpu(void)
{
#if __CUDA_ARCH__ >= 700
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
    __threadfence();
#endif
}

/* System-scope fence, acquire and release: orders data before words that
 * another GPU or the host reads; lighter than __threadfence_system's
 * sequentially consistent fence. */
__device__ static inline void mpix_part_fence_sys(void)
{
#if __CUDA_ARCH__ >= 700
    asm volatile("fence.acq_rel.sys;" ::: "memory");
#else
    __threadfence_system();
#endif
}

/* The release of a complete transport group, and the acquire of the group
 * that completes an epoch: at GPU scope where the request says every
 * reader is on this GPU (mark_gpu_scope). */
__device__ static inline void mpix_part_fence_mark(const struct mpix_prequest_s *preq)
{
    if (preq->mark_gpu_scope) {
        mpix_part_fence_gpu();
    } else {
        mpix_part_fence_sys();
    }
}

/* The transport group of partition p, of groups of 2^s of `parts`
 * partitions: its first partition; returns how many partitions it has (the
 * last group may be short). */
__device__ static inline unsigned mpix_part_group_of(unsigned parts, unsigned s, unsigned p,
                                                     unsigned *first)
{
    *first = (p >> s) << s;
    return min(1u << s, parts - *first);
}

/* The same, of the request's groups. */
__device__ static inline unsigned mpix_part_group(const struct mpix_prequest_s *preq,
                                                  int partition, unsigned *first)
{
    return mpix_part_group_of(preq->parts, preq->group_shift, (unsigned) partition, first);
}

/* Misuse reported to the host; rare, so out of line (registers). */
__device__ static __noinline__ void mpix_part_error(struct mpix_prequest_s *preq, uint32_t bit)
{
    volatile uint32_t *error = preq->error;

    *error |= bit; /* any bit fails the request: a lost one loses nothing */
    __threadfence_system();
}

/* Kernel copy, one thread of the group: one read of the ready-to-receive
 * word by this or another thread of the request (reads of host memory from
 * kernels are serialised, about 1 us each): whether it shows `epoch`. */
__device__ static inline bool mpix_part_rtr_read(struct mpix_prequest_s *preq, uint64_t epoch)
{
    volatile unsigned long long *seen = &preq->rtr_seen;

    if (!preq->rtr_cache) {
        return *preq->rtr >= epoch;
    }
    while (*seen < epoch) {
        if (0 == atomicCAS(&preq->rtr_poller, 0, 1)) {
            unsigned long long r = *preq->rtr;
            if (r > *seen) {
                atomicMax(&preq->rtr_seen, r);
            }
            atomicExch(&preq->rtr_poller, 0);
            return r >= epoch;
        }
    }
    return true;
}

/* Kernel copy, one thread of the group: whether the receiver has started
 * `epoch` (before that its buffer is not ours). In an epoch a host started,
 * never waits longer than one read: where the receiver is not ready (its
 * MPI_Start may even depend on what this process does after the kernel),
 * the group is left to the host. In an epoch a stream started no host
 * looks, and the receiver's start is stream work that needs nothing of
 * this kernel: wait for it. */
__device__ static __noinline__ bool mpix_part_rtr(struct mpix_prequest_s *preq, uint64_t epoch)
{
    const volatile uint64_t *dev = preq->rtr_dev;
    bool started = *(volatile unsigned long long *) &preq->stream_started >= epoch;

    if (NULL != dev && *dev >= epoch) {
        return true;
    }
    /* A host-started epoch reads the host word once. A stream-started one
     * waits for the GPU word, where there is one: a read of host memory
     * from many groups at once takes microseconds each. */
    if ((!started || NULL == dev) && mpix_part_rtr_read(preq, epoch)) {
        return true;
    }
    if (!started) {
        return false;
    }
    /* The host word too, where a receiver whose host starts its epochs
     * writes only that one; but a read of host memory takes about 1 us:
     * where the receiver has a GPU word, only every 16th look. */
    for (unsigned i = 1;; ++i) {
        if (NULL != dev && *dev >= epoch) {
            return true;
        }
        if ((NULL == dev || 0 == (i & 15)) && mpix_part_rtr_read(preq, epoch)) {
            return true;
        }
#if __CUDA_ARCH__ >= 700
        __nanosleep(64);
#endif
    }
}

/* A transport group of epoch `mark` is complete (its data released):
 * whether this completes the epoch, every group's data moved by kernels
 * (where a group was left to the host its data is still to move: the host
 * completes that epoch). The last group acquires the others' stores, which
 * each released with its own system fence before counting, so that its
 * done words release them all. The counter is reset by subtraction, so
 * that a group of the next epoch counting early is kept. */
__device__ static __noinline__ bool mpix_part_epoch_count(struct mpix_prequest_s *preq,
                                                         uint64_t mark, uint32_t groups)
{
    unsigned long long inc = 1, v;

    if (1 == groups) {
        /* the caller's group is the epoch: nothing to count, and no other
         * group's stores to acquire */
        return 0 == (mark & MPIX_PREQUEST_MARK_HOST);
    }
    if (mark & MPIX_PREQUEST_MARK_HOST) {
        inc += 1ull << 32;
    }
    v = atomicAdd(&preq->groups_done, inc) + inc;
    if ((unsigned) v != groups) {
        return false;
    }
    atomicAdd(&preq->groups_done, 0ull - v);
    if (0 != (v >> 32)) {
        return false;
    }
    mpix_part_fence_mark(preq);
    return true;
}

/* Whether epoch e (its low 32 bits) comes after `done`. */
__device__ static inline bool mpix_part_after(unsigned long long e, unsigned done)
{
    return (int) ((unsigned) e - done) > 0;
}

/* The host's current epoch where it is later than `done` (the last epoch
 * the caller's transport group completed); otherwise `done`: the group
 * completed this epoch already. The GPU copy serves until an epoch
 * starts; then one thread reads the host word (about 1 us), or, where the
 * kernels count the epochs, the one after the last done. */
__device__ static __noinline__ uint64_t mpix_part_host_epoch(struct mpix_prequest_s *preq,
                                                             unsigned done)
{
    volatile unsigned long long *seen = &preq->epoch_seen;
    unsigned long long e;

    while (!mpix_part_after(e = *seen, done)) {
        if (0 == atomicCAS(&preq->epoch_poller, 0, 1)) {
            e = (MPIX_PREQUEST_STREAM_KERNELS ==
                 *(volatile unsigned long long *) &preq->stream_started)
                    ? *(volatile unsigned long long *) &preq->done_dev + 1
                    : *preq->epoch;
            atomicMax(&preq->epoch_seen, e);
            atomicExch(&preq->epoch_poller, 0);
            return e;
        }
    }
    return e;
}

/* Kernel copy's store loop: lane `rank` of `size` copies n bytes from s
 * to d, 16 bytes at a time where both sides are aligned (bench/
 * b_ucx_device.cu measures this loop against UCX's device API).
 * Two loads in flight per thread, through pointers: the group that
 * completes a transport group copies all of it alone, so its copy is
 * latency-bound, one round trip a load. Four loads in flight took a kernel
 * calling MPIX_Pready from 28 to 48 registers a thread (and indices instead
 * of pointers, to 34); past 32, an SM holds one block of 1024 threads
 * instead of two, which every kernel pays, not only the groups that copy
 * (tools/test.sh checks the count). */
__device__ static inline void mpix_part_store_bytes(const char *s, char *d, uint64_t n,
                                                    unsigned rank, unsigned size)
{
    uint64_t i;

    if (0 == (((uintptr_t) s | (uintptr_t) d | n) & 15)) {
        const uint4 *s16 = (const uint4 *) s + rank, *end = (const uint4 *) (s + n);
        uint4 *d16 = (uint4 *) d + rank;
#pragma unroll 1
        for (; s16 + size < end; s16 += 2 * size, d16 += 2 * size) {
            uint4 a = s16[0], b = s16[size];
            d16[0] = a;
            d16[size] = b;
        }
        if (s16 < end) {
            *d16 = *s16;
        }
    } else {
#pragma unroll 1
        for (i = rank; i < n; i += size) {
            d[i] = s[i];
        }
    }
}

/* Kernel copy: the group (lane `rank` of `size`) stores the partition's
 * transport group into the receiver's GPU. */
__device__ static inline void mpix_part_store(const struct mpix_prequest_s *preq, int partition,
                                              unsigned rank, unsigned size)
{
    unsigned first, count = mpix_part_group(preq, partition, &first);
    uint64_t off = (uint64_t) first * preq->part_bytes;

    mpix_part_store_bytes(preq->src + off, preq->dst + off, count * preq->part_bytes, rank,
                          size);
    /* No fence here: the group synchronises, then its leader's mark
     * releases every store of the group (one system fence per partition:
     * they cost a microsecond each and are not free to overlap). */
}

/* What a counter update needs of the request. Only the group's leader
 * loads it (a load every thread made would keep the whole group waiting
 * behind its stores), before the group's barrier: the loads then overlap
 * the wait for the other threads instead of following it, and a block
 * holds its SM slot until its leader's update returns, which at large
 * grids every wave of blocks pays. */
struct mpix_part_count_s {
    unsigned long long *counter; /* the transport group's */
    unsigned long long epoch;    /* epoch_seen as loaded: an older value only costs a
                                  * look at the host's (mpix_part_host_epoch); where
                                  * the kernels count the epochs, done_dev + 1 */
    unsigned long long calls;    /* the calls that complete the group; 0: the partition
                                  * is out of range (or the handle of a receive) */
};

__device__ static inline struct mpix_part_count_s
mpix_part_count_load(const struct mpix_prequest_s *preq, int partition)
{
    /* every load issued at once, none behind a branch on another's value:
     * the leader is then one memory latency from its barrier, not two */
    unsigned long long *counters = preq->counters;
    unsigned in_range = preq->pready_parts, s = preq->group_shift, parts = preq->parts;
    unsigned threshold = preq->threshold, p = (unsigned) partition, first;
    struct mpix_part_count_s c;

    unsigned long long seen = *(volatile unsigned long long *) &preq->epoch_seen;
    unsigned long long started = *(volatile unsigned long long *) &preq->stream_started;
    unsigned long long done = *(volatile unsigned long long *) &preq->done_dev;
    c.counter = counters + (p >> s); /* used only in range */
    c.calls = (unsigned long long) threshold * mpix_part_group_of(parts, s, p, &first) &
              (0ull - (p < in_range)); /* no branch: the compiler would sink loads into it */
    /* Where the kernels count the epochs, this epoch is the one after the
     * last one done (the stream ran this kernel after it): no wait for
     * mpix_part_host_epoch's poller, whose three atomics an epoch's first
     * group otherwise pays before its update. */
    c.epoch = (MPIX_PREQUEST_STREAM_KERNELS == started) ? done + 1 : seen;
    return c;
}

/* n calls of this epoch's partition were made by the caller's group,
 * counted toward the partition's transport group (c, loaded before);
 * whose writes mpix_part_release ordered before; the epoch the partition
 * completes with this update, or 0. The completing update acquires the
 * other groups' writes (a kernel copy reads them).
 * The counter's old value tells whether the group had completed the
 * host's epoch already, or had its calls: either makes these calls beyond
 * the threshold, an error (an update that completes the group with some
 * completes it all the same, so that the data still moves). The
 * completing update records the epoch and resets the calls in one atomic;
 * no call of the next epoch can come before the host has seen this one
 * complete. */
__device__ static inline uint64_t mpix_part_count(struct mpix_prequest_s *preq,
                                                  const struct mpix_part_count_s &c, unsigned n)
{
    unsigned calls, done;
    unsigned long long t = c.calls, old, e = c.epoch;

    if (0 == t) {
        mpix_part_error(preq, MPIX_PREQUEST_ERR_PARTITION);
        return 0;
    }
    old = atomicAdd(c.counter, (unsigned long long) n);
    calls = (unsigned) old;
    done = (unsigned) (old >> 32);
    if (!mpix_part_after(e, done)) {
        e = mpix_part_host_epoch(preq, done);
    }
    if (calls >= t || !mpix_part_after(e, done)) {
        mpix_part_error(preq, MPIX_PREQUEST_ERR_THRESHOLD);
        return 0;
    }
    if (calls + n < t) {
        return 0;
    }
    if (calls + n > t) {
        mpix_part_error(preq, MPIX_PREQUEST_ERR_THRESHOLD);
    }
    if (0 != calls) {
        mpix_part_fence_gpu(); /* other groups' calls: acquire their writes */
    }
    atomicAdd(c.counter, ((unsigned long long) ((unsigned) e - done) << 32) - t);
    return e;
}

/* Before the counter update of n calls: a release of the caller's group's
 * writes (synchronised with its leader), for the group that completes the
 * transport group to acquire. Not where these calls alone complete it
 * (one block a partition, say): that group is the caller's, whose barrier
 * already shows it its own writes, and the mark releases them. Another
 * group's calls to it would then be beyond the threshold, an error. */
__device__ static inline void mpix_part_release(const struct mpix_part_count_s &c, unsigned n)
{
    if (c.calls != n) {
        mpix_part_fence_gpu();
    }
}

/* Publish a complete transport group: a release at system scope orders
 * the data the caller's group wrote (and synchronised with) before the
 * receiver's arrival flags (kernel copy, where mapped and the group
 * copied) and the mark the host progress engine reads, one word a group
 * (each word the GPU writes costs the host a cache miss to read); lighter
 * than __threadfence_system's sequentially consistent fence. `mark` is the
 * epoch, with MPIX_PREQUEST_MARK_HOST where a kernel copy left the group
 * to the host. At GPU scope where only this GPU's threads read the words
 * (mark_gpu_scope). */
__device__ static inline void mpix_part_mark(struct mpix_prequest_s *preq, int partition,
                                             uint64_t mark)
{
    unsigned first, count = mpix_part_group(preq, partition, &first), p;
    /* loaded once, before the fence: a volatile store may alias them, and
     * a load after the fence would wait for it (those of the words a
     * stream waits on; the host words' pointers, after it, would cost
     * registers) */
    volatile uint64_t *remote = preq->remote_arrived, *ready = preq->ready;
    volatile uint64_t *remote_done_dev = preq->remote_done_dev;
    uint32_t groups = preq->groups;
    bool done;

    mpix_part_fence_mark(preq);
    /* The words streams wait on (GPU memory) first, the host-memory words
     * after them with no fence of their own: a system fence waits until
     * every earlier store has reached its memory, and a store to host
     * memory takes about a microsecond to get there. The data is released
     * to them all by the fence above. */
    /* (remote_done_dev is set only where remote_done is) */
    done = (NULL != remote_done_dev || NULL != preq->remote_done) &&
           mpix_part_epoch_count(preq, mark, groups);
    if (done) {
        if (NULL != remote_done_dev) {
            *remote_done_dev = mark;
        }
        *(volatile unsigned long long *) &preq->done_dev = mark;
    }
    for (p = first; NULL != remote && 0 == (mark & MPIX_PREQUEST_MARK_HOST) && p < first + count;
         ++p) {
        remote[p] = mark; /* set only with a kernel copy */
    }
    if (done) {
        *preq->remote_done = mark;
        *preq->done = mark;
    }
    ready[first] = mark;
}

/* Stream-ordered marks (MPIX_PREQUEST_TAG_ORDERED): the partition's mark
 * word, in GPU memory, set to 1 (the wait's first kernel checks and clears
 * it). Both loads are of fields fixed at MPIX_Prequest_create, through the
 * read-only cache, and nothing waits for the store. */
__device__ static inline int mpix_part_pready_ordered(int partition, struct mpix_prequest_s *preq)
{
    unsigned parts = __ldg(&preq->pready_parts);
    uint64_t *marks = (uint64_t *) __ldg((const unsigned long long *) &preq->ready);

    if ((unsigned) partition >= parts) {
        mpix_part_error(preq, MPIX_PREQUEST_ERR_PARTITION);
        return 0;
    }
    marks[partition] = 1;
    return 0;
}

/* The block's first thread marks; the others leave at once (no rank to
 * compute: every other thread of the block has some index nonzero). */
__device__ static inline int mpix_part_pready_ordered_block(int partition,
                                                            struct mpix_prequest_s *preq)
{
    if (0 != (threadIdx.x | threadIdx.y | threadIdx.z)) {
        return 0;
    }
    return mpix_part_pready_ordered(partition, mpix_prequest_ptr(preq));
}

/* One call per thread, one counter update per thread; the completing
 * thread copies alone (kernel copy). */
__device__ static inline int MPIX_Pready_thread(int partition, struct mpix_prequest_s *preq)
{
    bool copy = 0 != ((uintptr_t) preq & MPIX_PREQUEST_TAG_KERNEL_COPY);
    uint64_t e;

    if (0 != ((uintptr_t) preq & MPIX_PREQUEST_TAG_ORDERED)) {
        return mpix_part_pready_ordered(partition, mpix_prequest_ptr(preq));
    }
    preq = mpix_prequest_ptr(preq);
    struct mpix_part_count_s c = mpix_part_count_load(preq, partition);
    mpix_part_release(c, 1);
    e = mpix_part_count(preq, c, 1);
    if (0 != e) {
        if (copy && mpix_part_rtr(preq, e)) {
            mpix_part_store(preq, partition, 0, 1);
        } else if (copy) {
            e |= MPIX_PREQUEST_MARK_HOST;
        }
        mpix_part_mark(preq, partition, e);
    }
    return 0;
}

/* The threads in `group` (one warp) call it for the same partition. */
__device__ static inline int mpix_part_pready_warp(int partition, struct mpix_prequest_s *preq,
                                                   unsigned group)
{
    unsigned lane = threadIdx.x & 31, leader = __ffs(group) - 1;
    bool copy = 0 != ((uintptr_t) preq & MPIX_PREQUEST_TAG_KERNEL_COPY);
    uint64_t e = 0;
    struct mpix_part_count_s c;

    if (0 != ((uintptr_t) preq & MPIX_PREQUEST_TAG_ORDERED)) {
        return (lane == leader) ? mpix_part_pready_ordered(partition, mpix_prequest_ptr(preq)) : 0;
    }
    preq = mpix_prequest_ptr(preq);
    if (lane == leader) {
        c = mpix_part_count_load(preq, partition);
    }
    /* The barrier makes the group's writes visible to the leader, whose
     * fence then releases them all (PTX fences are cumulative): one fence
     * per group, not one per thread. */
    __syncwarp(group);
    if (!copy) {
        if (lane == leader) {
            mpix_part_release(c, __popc(group));
            if (0 != (e = mpix_part_count(preq, c, __popc(group)))) {
                mpix_part_mark(preq, partition, e);
            }
        }
        return 0;
    }
    if (lane == leader) {
        mpix_part_release(c, __popc(group));
        e = mpix_part_count(preq, c, __popc(group));
        if (0 != e && !mpix_part_rtr(preq, e)) {
            e |= MPIX_PREQUEST_MARK_HOST;
        }
    }
    e = __shfl_sync(group, e, leader);
    if (0 == e) {
        return 0;
    }
    if (0 == (e & MPIX_PREQUEST_MARK_HOST)) {
        mpix_part_store(preq, partition, __popc(group & ((1u << lane) - 1)), __popc(group));
    }
    __syncwarp(group);
    if (lane == leader) {
        mpix_part_mark(preq, partition, e);
    }
    return 0;
}

/* Every active thread of the warp calls it for the same partition. */
__device__ static inline int MPIX_Pready_warp(int partition, struct mpix_prequest_s *preq)
{
    return mpix_part_pready_warp(partition, preq, __activemask());
}

/* Every thread of the block calls it for the same partition. Without a
 * kernel copy only the first thread has work after the barrier; the
 * others leave there rather than wait for its fence and update. */
__device__ static inline int MPIX_Pready_block(int partition, struct mpix_prequest_s *preq)
{
    __shared__ uint64_t mpix_part_epoch;
    unsigned rank = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned size = blockDim.x * blockDim.y * blockDim.z;
    bool copy = 0 != ((uintptr_t) preq & MPIX_PREQUEST_TAG_KERNEL_COPY);
    uint64_t e, rtr = 0;
    struct mpix_part_count_s c;

    if (0 != ((uintptr_t) preq & MPIX_PREQUEST_TAG_ORDERED)) {
        /* no barrier: the marks are read once the kernel has finished */
        return mpix_part_pready_ordered_block(partition, preq);
    }
    preq = mpix_prequest_ptr(preq);
    if (0 == rank) {
        c = mpix_part_count_load(preq, partition);
        if (copy) {
            /* the receiver's GPU ready-to-receive, early too: only grows,
             * so an early read that shows the epoch shows it started */
            const volatile uint64_t *dev = preq->rtr_dev;
            rtr = (NULL != dev) ? *dev : 0;
        }
    }
    __syncthreads();
    if (!copy) {
        if (0 == rank) { /* one fence for the block, as in the warp level */
            mpix_part_release(c, size);
            if (0 != (e = mpix_part_count(preq, c, size))) {
                mpix_part_mark(preq, partition, e);
            }
        }
        return 0;
    }
    if (0 == rank) {
        mpix_part_release(c, size);
        e = mpix_part_count(preq, c, size);
        if (0 != e && rtr < e && !mpix_part_rtr(preq, e)) {
            e |= MPIX_PREQUEST_MARK_HOST;
        }
        mpix_part_epoch = e;
    }
    __syncthreads();
    e = mpix_part_epoch;
    if (0 == e) {
        return 0;
    }
    if (0 == (e & MPIX_PREQUEST_MARK_HOST)) {
        mpix_part_store(preq, partition, rank, size);
    }
    __syncthreads();
    if (0 == rank) {
        mpix_part_mark(preq, partition, e);
    }
    return 0;
}

/* Automatic: threads of a warp that name the same partition are combined
 * into one counter update by their lowest lane (and copy together); no
 * thread waits for threads outside its warp, so divergent callers are safe.
 * Where the init call declared "mpix_pready_aggregate" "block", the whole
 * block is combined instead: one update per block, and a kernel copy by
 * all its threads. */
__device__ static inline int MPIX_Pready(int partition, struct mpix_prequest_s *preq)
{
    uintptr_t tag = (uintptr_t) preq & MPIX_PREQUEST_TAG_MASK;

    if (0 != (tag & MPIX_PREQUEST_TAG_ORDERED)) {
        /* every caller marks (the same word from many lanes is one store),
         * or a block's first thread */
        return (0 != (tag & MPIX_PREQUEST_TAG_BLOCK))
                   ? mpix_part_pready_ordered_block(partition, preq)
                   : mpix_part_pready_ordered(partition, mpix_prequest_ptr(preq));
    }
    if (0 != (tag & MPIX_PREQUEST_TAG_BLOCK)) {
        return MPIX_Pready_block(partition, preq);
    }
    return mpix_part_pready_warp(partition, preq, __match_any_sync(__activemask(), partition));
}

/* Receive side: *flag = 1 once every sender partition overlapping this
 * receive partition carries the current epoch. A partition out of range
 * or a send request's handle: MPI_ERR_ARG (also at the request's MPI_Wait)
 * and *flag = 1, so that a polling loop ends. */
__device__ static inline int MPIX_Parrived(struct mpix_prequest_s *preq, int partition, int *flag)
{
    preq = mpix_prequest_ptr(preq);
    if ((unsigned) partition >= preq->parrived_parts) {
        mpix_part_error(preq, MPIX_PREQUEST_ERR_PARTITION);
        *flag = 1;
        return MPI_ERR_ARG;
    }
    uint64_t e = *preq->epoch;
    if (NULL != preq->epoch_gpu && *preq->epoch_gpu > e) {
        e = *preq->epoch_gpu;
    }
    /* the whole epoch arrived: the sender's kernels write this word before
     * the flags, which may still be on their way to host memory */
    if (NULL != preq->done_gpu && *preq->done_gpu >= e) {
        __threadfence_system(); /* data reads after the word */
        *flag = 1;
        return 0;
    }
    uint64_t per = preq->total_bytes / preq->parts;
    uint64_t sper = preq->total_bytes / preq->remote_parts;
    uint64_t first = 0, last = 0, i;

    if (0 != per && 0 != sper) {
        first = (uint64_t) partition * per / sper;
        last = ((uint64_t) (partition + 1) * per - 1) / sper;
    }
    for (i = first; i <= last; ++i) {
        if (preq->arrived[i] < e) {
            *flag = 0;
            return 0;
        }
    }
    __threadfence_system(); /* data reads after the flags */
    *flag = 1;
    return 0;
}

#endif /* __CUDACC__ */

#endif /* MPIX_PART_DEVICE_H */
