/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The device plugin's copy after the producers (stream_copy_after,
 * part_ucx_device.h), included by part_ucx_device.cu: a stream-only
 * kernel-copy send whose epochs are large (part_ucx_stream_copy_after_bytes)
 * moves its data in a kernel of its own, after the kernels that made its
 * partitions ready, rather than inside them.
 *
 * Why: in the kernels, each transport group's last block copies the group
 * and releases it (a system fence and an atomic), holding its SM slot
 * until both return, and at large grids every wave of a short producer
 * pays that. Here MPIX_Pready is one store per partition (mpix_part_device.h,
 * stream-ordered marks), the producer runs at its own speed, and the copy
 * runs on every SM at once with four loads in flight per thread: one
 * release and one count per block, not per group. The price: no
 * partition arrives before the producer has ended.
 */

#ifndef MCA_PART_UCX_DEVICE_AFTER_H
#define MCA_PART_UCX_DEVICE_AFTER_H

/* Blocks of 1024 threads: each copies at least this many bytes, so that a
 * small epoch does not pay for blocks with nothing to move. */
#define PART_AFTER_BLOCK_BYTES (64 << 10)

/* The receiver's ready-to-receive for epoch e: its stream's word in its
 * GPU memory, read first; its host's (epochs its host starts write only
 * that one) every 16th look, a read of host memory costing about a
 * microsecond. */
__device__ static inline void part_after_rtr(const mca_part_ucx_copy_after_t &c, uint64_t e)
{
    for (unsigned i = 1;; ++i) {
        if (NULL != c.rtr_dev && *c.rtr_dev >= e) {
            return;
        }
        if ((NULL == c.rtr_dev || 0 == (i & 15)) && *c.rtr >= e) {
            return;
        }
        part_nap();
    }
}

/* The epoch's marks, partitions first, stride, ...: each checked and
 * cleared by one thread (the next epoch's MPIX_Pready runs after this
 * kernel); a partition no call marked fails the request, its data moves
 * all the same (the receiver must not wait forever). */
__device__ static inline void part_after_marks(const mca_part_ucx_copy_after_t &c, uint64_t first,
                                               uint64_t stride)
{
    unsigned missing = 0;

    for (uint64_t p = first; p < c.parts; p += stride) {
        missing += (1 != c.marks[p]);
        c.marks[p] = 0;
    }
    if (0 != missing) {
        /* any bit fails the request: a lost one loses nothing */
        *c.error |= MCA_PART_UCX_GCOLL_ERR_UNREADY;
        __threadfence_system();
    }
}

/* The grid's share of the buffer: 16 bytes a thread, four loads in flight
 * (the peer's memory is far); bytes at a 16-byte boundary (whole
 * partitions of any type are, in any buffer cudaMalloc returned) or byte
 * by byte otherwise. */
__device__ static inline void part_after_copy(const mca_part_ucx_copy_after_t &c, uint64_t first,
                                              uint64_t stride)
{
    const char *s = (const char *) c.src;
    char *d = (char *) c.dst;

    if (0 != (((uintptr_t) s | (uintptr_t) d | c.bytes) & 15)) {
        for (uint64_t i = first; i < c.bytes; i += stride) {
            d[i] = s[i];
        }
        return;
    }
    const uint4 *s16 = (const uint4 *) s;
    uint4 *d16 = (uint4 *) d;
    uint64_t n16 = c.bytes / 16, i = first;

    for (; i + 3 * stride < n16; i += 4 * stride) {
        uint4 v0 = s16[i], v1 = s16[i + stride], v2 = s16[i + 2 * stride], v3 = s16[i + 3 * stride];
        d16[i] = v0;
        d16[i + stride] = v1;
        d16[i + 2 * stride] = v2;
        d16[i + 3 * stride] = v3;
    }
    for (; i < n16; i += stride) {
        d16[i] = s16[i];
    }
}

/* The epoch: the one after *done_dev (the kernels before counted none:
 * they only marked). Every block waits for the producers' completion
 * (griddepcontrol.wait: launched as their programmatic dependent) and for
 * the receiver, checks its share of the marks and copies its share. Each
 * block then releases its stores and counts itself; the last one acquires
 * them all, sets the arrival flags (one a partition, for the receiver's
 * MPI_Parrived and MPI_Test), then the words streams wait on (GPU memory)
 * and last the host words (their stores take about a microsecond to get
 * there, and the kernel's end waits for them all at once). */
__global__ void __launch_bounds__(1024) part_copy_after(mca_part_ucx_copy_after_t c)
{
    __shared__ uint64_t epoch;
    __shared__ bool last;
    uint64_t stride = (uint64_t) gridDim.x * blockDim.x;
    uint64_t me = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    if (0 == threadIdx.x) {
        epoch = *c.done_dev + 1;
        part_after_rtr(c, epoch);
    }
    __syncthreads();
    part_after_marks(c, me, stride);
    part_after_copy(c, me, stride);
    __syncthreads();
    if (0 == threadIdx.x) {
        part_fence(c.gpu_scope); /* the block's stores (cumulative), then its count */
        last = (gridDim.x == atomicAdd(c.blocks_done, 1ull) + 1);
        if (last) {
            *c.blocks_done = 0; /* every block has counted: the next epoch's kernel starts at 0 */
            part_fence(c.gpu_scope); /* acquire the other blocks' stores */
        }
    }
    __syncthreads();
    if (!last) {
        return;
    }
    for (uint64_t p = threadIdx.x; NULL != c.flags && p < c.parts; p += blockDim.x) {
        c.flags[p] = epoch;
    }
    __syncthreads();
    if (0 != threadIdx.x) {
        return;
    }
    if (NULL != c.remote_done_dev) {
        *c.remote_done_dev = epoch;
    }
    *c.done_dev = epoch;
    if (NULL != c.remote_done) {
        *c.remote_done = epoch;
    }
    *c.done = epoch;
}

/* The blocks of one epoch of `bytes`: one fewer than the GPU holds at
 * once, fewer still where each would have less than PART_AFTER_BLOCK_BYTES
 * to move. The slot left free is for the receiver's kernels where it
 * shares this GPU (a captured wait is a one-thread kernel, and the start
 * this kernel waits for follows it): with every slot taken by blocks
 * waiting for that start, it would never run. */
static unsigned part_after_blocks(uint64_t bytes)
{
    static int full = 0; /* a process drives one GPU */
    int sms, per_sm = 0;
    uint64_t want = (bytes + PART_AFTER_BLOCK_BYTES - 1) / PART_AFTER_BLOCK_BYTES;

    if (0 == full) {
        sms = dev_sm_count();
        if (0 == sms ||
            cudaSuccess != cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, part_copy_after,
                                                                         1024, 0)) {
            (void) cudaGetLastError();
            return 1;
        }
        full = sms * (per_sm > 0 ? per_sm : 1);
        full = (full > 1) ? full - 1 : 1;
    }
    return (unsigned) (want < 1 ? 1 : want < (uint64_t) full ? want : (uint64_t) full);
}

static int dev_stream_copy_after(void *stream, const mca_part_ucx_copy_after_t *c)
{
    if (NULL == stream) {
        /* loaded, and the grid and programmatic launches known, before any
         * stream waits on it or captures its launch (as the GPU engine's,
         * MCA_PART_UCX_GCOLL_LOAD) */
        cudaFuncAttributes attr;

        (void) part_after_blocks(0);
        (void) gcoll_pdl_capable();
        return check(cudaFuncGetAttributes(&attr, part_copy_after));
    }
    return gcoll_launch_ex(part_copy_after, part_after_blocks(c->bytes), 1024, stream, false,
                           true, *c);
}

#endif /* MCA_PART_UCX_DEVICE_AFTER_H */
