/* The GPU-executed partitioned allreduce of issue 22, as prototypes
 * outside MPI's data path, against its two limits, on ranks of one node
 * whose GPU buffers CUDA IPC maps (MPI only exchanges the IPC handles and
 * holds barriers):
 *   b_coll_oneshot GRIDS   a kernel of GRID blocks x 1024 threads writes
 *                          one float per thread (block b: partition b),
 *                          then the buffer is summed across ranks:
 *     kernel_alone       the kernel, cudaStreamSynchronize (first limit)
 *     kernel_copy_limit  the kernel, then one cudaMemcpyAsync of the bytes
 *                        an allreduce must move a rank at the least,
 *                        2 (n - 1) / n of the buffer, synchronize (second
 *                        limit)
 *                        Both from a barrier until the last rank is done,
 *                        each iteration: no rank has an allreduce's result
 *                        before every rank's kernel ran, and where the
 *                        ranks share a GPU their kernels, each of more
 *                        blocks than the GPU holds, run one after the
 *                        other (its blocks go to the SMs in launch order).
 *     kernel_alone_own,  the same iterations, each rank timing only its
 *     kernel_copy_own    own kernel (and copy), the slowest rank's mean:
 *                        the limits' definition before session 22, which
 *                        on a shared GPU counts a kernel that ran first
 *                        as if the peers' had not delayed the result
 *     oneshot_host       one-shot, host-started: a collective kernel on a
 *                        side stream (launched first, a bounded number of
 *                        blocks) waits for each partition's ready word on
 *                        every rank (the producing block's release store,
 *                        what MPIX_Pready would write), sums the ranks'
 *                        partitions through the IPC mappings in rank order
 *                        (every rank gets the same bits), tells each owner
 *                        it has read them (its word in the owner's
 *                        consumed array), and ends once every rank has
 *                        read this rank's partitions; the host synchronizes
 *                        both streams (MPI_Start/MPI_Wait's place)
 *     oneshot_stream     the same, stream-ordered: the side stream forks
 *                        from the kernel's stream before the kernel and
 *                        joins after it, epochs back to back, one
 *                        synchronization at the end
 *     twoshot_host,      two-shot (for large data: each rank moves
 *     twoshot_stream     2 (n - 1) / n of the bytes, as the ring): rank r
 *                        sums slice r of each partition over the ranks and
 *                        stores the sum into every rank's result, then
 *                        says so in each rank's window; a rank is done
 *                        once every slice of its result is there and every
 *                        rank has read its data
 * BENCH_KERNEL_EVENTS=1 adds two rows timed by CUDA events around the
 * kernel alone (its time on the GPU, not the host's launch and
 * synchronization): kernel_events, back to back, and kernel_after_writes,
 * each after a copy that leaves as many bytes of other lines written in
 * L2 as the kernel writes (as an engine's results do before the next
 * epoch's producer).
 * Epoch e's values depend on the rank, the epoch and the element; every
 * variant's last epoch is checked on every rank. Output: CSV rows
 * gallreduce,COMPONENT,GRID,RANKS,us an epoch,us (the slowest rank's). */
#include <cuda_runtime.h>
#include <mpi.h>
#include "../examples/common.h" /* CUDA() checks, one GPU per local rank */
#include "coll_gpu.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 1024, MAX_RANKS = 8, COLL_BLOCKS = 64 };

/* What the kernels of an epoch need: every rank's window (its partitions'
 * data and result, and its words), mapped here. */
struct windows {
    const float *src[MAX_RANKS];
    float *dst[MAX_RANKS];                  /* the results (two-shot stores into them) */
    const volatile uint64_t *ready[MAX_RANKS];
    volatile uint64_t *consumed[MAX_RANKS]; /* [reader * parts + p]: read its data */
    volatile uint64_t *slices[MAX_RANKS];   /* [writer * parts + p]: stored its slice */
};

/* Thread 0 of a block: until every rank has marked partition p ready. */
__device__ static inline void wait_ready(const struct windows &w, int p, int n, uint64_t e)
{
    for (int r = 0; r < n; ++r) {
        while (w.ready[r][p] < e) {
            __nanosleep(32);
        }
    }
}

/* Thread 0 of a block: until `words` (this rank's, one per rank and
 * partition) show epoch e for every rank and this block's partitions. */
__device__ static inline void wait_words(volatile uint64_t *words, int parts, int n, uint64_t e)
{
    for (int p = blockIdx.x; p < parts; p += gridDim.x) {
        for (int r = 0; r < n; ++r) {
            while (words[(long) r * parts + p] < e) {
                __nanosleep(32);
            }
        }
    }
}

__device__ static inline void fence_sys(void)
{
    asm volatile("fence.acq_rel.sys;" ::: "memory");
}

/* The application's kernel: block b writes partition b, then marks it. */
__global__ void produce(float *x, volatile uint64_t *ready, int r, uint64_t e)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x[i] = val(i, r, (long) e);
    __syncthreads();
    if (0 == threadIdx.x) {
        fence_sys(); /* the block's data before its mark (cumulative after the barrier) */
        ready[blockIdx.x] = e;
    }
}

__global__ void produce_plain(float *x, int r, uint64_t e)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x[i] = val(i, r, (long) e);
}

/* The collectives: each block takes partitions blockIdx.x, + gridDim.x,
 * ... Data from other ranks is read volatile: L1 is not coherent, and a
 * block may have read the same address in an earlier epoch. */
__global__ void oneshot(struct windows w, int parts, int me, int n, uint64_t e)
{
    for (int p = blockIdx.x; p < parts; p += gridDim.x) {
        if (0 == threadIdx.x) {
            wait_ready(w, p, n, e);
            fence_sys(); /* the marks before the data they publish */
        }
        __syncthreads();
        long i = (long) p * THREADS + threadIdx.x;
        float acc = 0;
        for (int r = 0; r < n; ++r) {
            acc += ((const volatile float *) w.src[r])[i];
        }
        w.dst[me][i] = acc;
        __syncthreads();
        if (0 == threadIdx.x) {
            fence_sys(); /* our reads done before the owners may overwrite */
            for (int r = 0; r < n; ++r) {
                w.consumed[r][(long) me * parts + p] = e;
            }
        }
    }
    /* complete once every rank has read this rank's partitions of this
     * block's share: the application may then write its buffer again */
    if (0 == threadIdx.x) {
        wait_words(w.consumed[me], parts, n, e);
    }
}

__global__ void twoshot(struct windows w, int parts, int me, int n, uint64_t e)
{
    int slice = THREADS / n; /* n divides 1024 */
    for (int p = blockIdx.x; p < parts; p += gridDim.x) {
        if (0 == threadIdx.x) {
            /* every rank ready also means every rank's result is free for
             * this epoch: it started the epoch after it finished the last */
            wait_ready(w, p, n, e);
            fence_sys();
        }
        __syncthreads();
        if ((int) threadIdx.x < slice) {
            long i = (long) p * THREADS + (long) me * slice + threadIdx.x;
            float acc = 0;
            for (int r = 0; r < n; ++r) {
                acc += ((const volatile float *) w.src[r])[i];
            }
            for (int r = 0; r < n; ++r) {
                w.dst[r][i] = acc;
            }
        }
        __syncthreads();
        if (0 == threadIdx.x) {
            fence_sys(); /* our reads and stores before the words that say so */
            for (int r = 0; r < n; ++r) {
                w.consumed[r][(long) me * parts + p] = e;
                w.slices[r][(long) me * parts + p] = e;
            }
        }
    }
    /* complete once every slice of this rank's result of this block's
     * share is there and every rank has read this rank's data */
    if (0 == threadIdx.x) {
        wait_words(w.slices[me], parts, n, e);
        wait_words(w.consumed[me], parts, n, e);
        fence_sys(); /* the slices' data before what follows the kernel */
    }
}

/* A limit's rows: `work` on stream s from a barrier, `iters` times after
 * one warm-up; `all`: until the last rank is done (each iteration's
 * slowest rank), `own`: each rank's own time (the slowest rank's mean). */
template <class F>
static void limit_rows(const char *all, const char *own, int grid, int iters, cudaStream_t s,
                       F work)
{
    double t_all = 0, t_own = 0;
    for (int it = -1; it < iters; ++it) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), dt, slowest;
        work();
        CUDA(cudaStreamSynchronize(s));
        dt = MPI_Wtime() - t0;
        MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (it >= 0) {
            t_all += slowest;
            t_own += dt;
        }
    }
    report(all, grid, t_all, iters);
    report(own, grid, t_own, iters);
}

static void run(int grid, cudaStream_t s, cudaStream_t cs)
{
    size_t n = (size_t) grid * THREADS, bytes = n * sizeof(float);
    size_t words = (size_t) grid * sizeof(uint64_t);
    size_t wbytes = 2 * bytes + words * (1 + 2 * size);
    int iters = iters_for(bytes), blocks = grid < COLL_BLOCKS / size ? grid : COLL_BLOCKS / size;
    char *win;
    float *scratch;
    uint64_t e = 0;
    double t;

    /* this rank's window: data | result | ready[grid] | consumed[size][grid]
     * | slices[size][grid] */
    CUDA(cudaMalloc(&win, wbytes));
    CUDA(cudaMemset(win, 0, wbytes));
    CUDA(cudaMalloc(&scratch, 2 * bytes));
    CUDA(cudaDeviceSynchronize());
    cudaIpcMemHandle_t mine, all[MAX_RANKS];
    CUDA(cudaIpcGetMemHandle(&mine, win));
    MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE, MPI_COMM_WORLD);
    struct windows w = {};
    char *base[MAX_RANKS];
    for (int r = 0; r < size; ++r) {
        if (r == rank) {
            base[r] = win;
        } else {
            CUDA(cudaIpcOpenMemHandle((void **) &base[r], all[r], cudaIpcMemLazyEnablePeerAccess));
        }
        w.src[r] = (const float *) base[r];
        w.dst[r] = (float *) (base[r] + bytes);
        w.ready[r] = (const volatile uint64_t *) (base[r] + 2 * bytes);
        w.consumed[r] = (volatile uint64_t *) (base[r] + 2 * bytes + words);
        w.slices[r] = (volatile uint64_t *) (base[r] + 2 * bytes + words * (1 + size));
    }
    float *x = (float *) win, *y = (float *) (win + bytes);
    volatile uint64_t *ready = (volatile uint64_t *) (win + 2 * bytes);

    /* the first limit: the kernel alone */
    limit_rows("kernel_alone", "kernel_alone_own", grid, iters, s,
               [&] { produce_plain<<<grid, THREADS, 0, s>>>(scratch, rank, 1); });

    /* the second limit: the kernel and a copy of 2 (n - 1) / n of its bytes */
    size_t move = 2 * bytes * (size - 1) / size;
    limit_rows("kernel_copy_limit", "kernel_copy_own", grid, iters, s, [&] {
        produce_plain<<<grid, THREADS, 0, s>>>(scratch, rank, 1);
        CUDA(cudaMemcpyAsync((char *) scratch + bytes, scratch, move < bytes ? move : bytes,
                             cudaMemcpyDeviceToDevice, s));
        if (move > bytes) {
            CUDA(cudaMemcpyAsync(scratch, (char *) scratch + bytes, move - bytes,
                                 cudaMemcpyDeviceToDevice, s));
        }
    });

    if (NULL != getenv("BENCH_KERNEL_EVENTS")) {
        cudaEvent_t k0, k1;
        CUDA(cudaEventCreate(&k0));
        CUDA(cudaEventCreate(&k1));
        for (int after = 0; after < 2; ++after) {
            float ms, sum = 0;
            for (int it = -1; it < iters; ++it) {
                MPI_Barrier(MPI_COMM_WORLD);
                if (after) {
                    /* the window's data into the second half of scratch */
                    CUDA(cudaMemcpyAsync((char *) scratch + bytes, win, bytes,
                                         cudaMemcpyDeviceToDevice, s));
                }
                CUDA(cudaEventRecord(k0, s));
                produce_plain<<<grid, THREADS, 0, s>>>(scratch, rank, 1);
                CUDA(cudaEventRecord(k1, s));
                CUDA(cudaEventSynchronize(k1));
                CUDA(cudaEventElapsedTime(&ms, k0, k1));
                if (it >= 0) sum += ms;
            }
            report(after ? "kernel_after_writes" : "kernel_events", grid, 1e-3 * sum, iters);
        }
        CUDA(cudaEventDestroy(k0));
        CUDA(cudaEventDestroy(k1));
    }

    /* one-shot and two-shot, host-started, then stream-ordered (fork before
     * the kernel, join after it) */
    cudaEvent_t fork, join;
    CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CUDA(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    typedef void (*coll_fn)(struct windows, int, int, int, uint64_t);
    const coll_fn colls[2] = {oneshot, twoshot};
    const char *names[2][2] = {{"oneshot_host", "oneshot_stream"}, {"twoshot_host", "twoshot_stream"}};
    for (int k = 0; k < 2; ++k) {
        t = 0;
        for (int it = -1; it < iters; ++it) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            ++e;
            colls[k]<<<blocks, THREADS, 0, cs>>>(w, grid, rank, size, e);
            produce<<<grid, THREADS, 0, s>>>(x, ready, rank, e);
            CUDA(cudaStreamSynchronize(s));
            CUDA(cudaStreamSynchronize(cs));
            if (it >= 0) t += MPI_Wtime() - t0;
        }
        check(y, n, (long) e, names[k][0]);
        report(names[k][0], grid, t, iters);

        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < iters; ++it) {
            ++e;
            CUDA(cudaEventRecord(fork, s));
            CUDA(cudaStreamWaitEvent(cs, fork, 0));
            colls[k]<<<blocks, THREADS, 0, cs>>>(w, grid, rank, size, e);
            CUDA(cudaEventRecord(join, cs));
            produce<<<grid, THREADS, 0, s>>>(x, ready, rank, e);
            CUDA(cudaStreamWaitEvent(s, join, 0));
        }
        CUDA(cudaStreamSynchronize(s));
        t = MPI_Wtime() - t0;
        check(y, n, (long) e, names[k][1]);
        report(names[k][1], grid, t, iters);
    }
    CUDA(cudaEventDestroy(fork));
    CUDA(cudaEventDestroy(join));
    MPI_Barrier(MPI_COMM_WORLD); /* no peer reads our window any more */
    for (int r = 0; r < size; ++r) {
        if (r != rank) CUDA(cudaIpcCloseMemHandle(base[r]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CUDA(cudaFree(win));
    CUDA(cudaFree(scratch));
}

int main(int argc, char **argv)
{
    (void) example_select_gpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || size > MAX_RANKS) {
        if (0 == rank) fprintf(stderr, "usage: mpirun -np 2..%d b_coll_oneshot GRIDS\n", MAX_RANKS);
        MPI_Finalize();
        return 2;
    }
    cudaStream_t s, cs;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    /* every kernel loaded before a kernel waits for another (lazy loading) */
    cudaFuncAttributes fa;
    CUDA(cudaFuncGetAttributes(&fa, produce));
    CUDA(cudaFuncGetAttributes(&fa, produce_plain));
    CUDA(cudaFuncGetAttributes(&fa, oneshot));
    CUDA(cudaFuncGetAttributes(&fa, twoshot));
    for (char *g = strtok(argv[1], ","); g; g = strtok(NULL, ",")) run(atoi(g), s, cs);
    CUDA(cudaStreamDestroy(s));
    CUDA(cudaStreamDestroy(cs));
    MPI_Finalize();
    return 0;
}
