/* What the tail of a block-aggregated device MPIX_Pready costs a large
 * kernel: every block of 1024 threads stores its data, synchronises, and
 * its first thread then runs one of the tails below for one of 32
 * partitions (consecutive blocks share one). A block keeps its SM slot
 * until that thread is done, so a tail that waits (a fence, an atomic
 * whose result is used) costs once per wave of resident blocks.
 *   store           no tail
 *   current         fence.acq_rel.gpu, atomicAdd with its result used (the
 *                   completing block then marks host memory): MPIX_Pready
 *   fence_red       fence.acq_rel.gpu, then a reduction nobody waits for
 *   red_release     red.release.gpu (the same instructions: MEMBAR + RED)
 *   atomic_nofence  atomicAdd with its result used, no fence (not correct:
 *                   a bound)
 *   fence           the fence alone
 * Output: CSV rows tail,VARIANT,BLOCKS,-,MEAN_US,us (40 launches after 5).
 * No MPI: nvcc -O2 -arch=sm_90 -o b_tail bench/b_tail.cu */

#include "cuda_check.h"

enum { STORE, CURRENT, FENCE_RED, RED_RELEASE, ATOMIC_NOFENCE, FENCE, VARIANTS };
static const char *names[VARIANTS] = {"store", "current", "fence_red", "red_release",
                                      "atomic_nofence", "fence"};

template <int V>
__global__ void tail(float *x, unsigned long long *ctr, volatile unsigned long long *host,
                     int bpp, unsigned long long threshold)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    unsigned long long old;
    int p = blockIdx.x / bpp;

    x[i] = (float) (i * 3 + 1);
    if (STORE == V) return;
    __syncthreads();
    if (0 != threadIdx.x) return;
    switch (V) {
    case CURRENT:
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        old = atomicAdd(&ctr[p], (unsigned long long) blockDim.x);
        if (old + blockDim.x == threshold) {
            asm volatile("fence.acq_rel.sys;" ::: "memory");
            host[p] = 1;
        }
        break;
    case FENCE_RED:
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" ::"l"(&ctr[p]),
                     "l"((unsigned long long) blockDim.x) : "memory");
        break;
    case RED_RELEASE:
        asm volatile("red.release.gpu.global.add.u64 [%0], %1;" ::"l"(&ctr[p]),
                     "l"((unsigned long long) blockDim.x) : "memory");
        break;
    case ATOMIC_NOFENCE:
        old = atomicAdd(&ctr[p], (unsigned long long) blockDim.x);
        if (old + blockDim.x == threshold) host[p] = 1;
        break;
    case FENCE:
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        break;
    }
}

template <int V>
static float mean_us(int grid, float *x, unsigned long long *ctr, unsigned long long *host,
                     cudaStream_t s)
{
    int bpp = grid / 32;
    unsigned long long threshold = 1024ull * bpp;
    cudaEvent_t a, b;
    float total = 0, ms;

    CUDA(cudaEventCreate(&a));
    CUDA(cudaEventCreate(&b));
    for (int r = -5; r < 40; ++r) {
        CUDA(cudaMemsetAsync(ctr, 0, 32 * sizeof(*ctr), s));
        CUDA(cudaEventRecord(a, s));
        tail<V><<<grid, 1024, 0, s>>>(x, ctr, host, bpp, threshold);
        CUDA(cudaEventRecord(b, s));
        CUDA(cudaEventSynchronize(b));
        CUDA(cudaEventElapsedTime(&ms, a, b));
        total += r >= 0 ? ms : 0;
    }
    CUDA(cudaGetLastError());
    CUDA(cudaEventDestroy(a));
    CUDA(cudaEventDestroy(b));
    return total / 40 * 1000;
}

int main(void)
{
    static const int grids[] = {1024, 4096, 16384, 65536};
    float *x, r[VARIANTS];
    unsigned long long *ctr, *host;
    cudaStream_t s;

    CUDA(cudaMalloc(&x, 65536L * 1024 * sizeof(float)));
    CUDA(cudaMalloc(&ctr, 32 * sizeof(*ctr)));
    CUDA(cudaHostAlloc(&host, 32 * sizeof(*host), cudaHostAllocMapped));
    CUDA(cudaStreamCreate(&s));
    for (int grid : grids) {
        r[STORE] = mean_us<STORE>(grid, x, ctr, host, s);
        r[CURRENT] = mean_us<CURRENT>(grid, x, ctr, host, s);
        r[FENCE_RED] = mean_us<FENCE_RED>(grid, x, ctr, host, s);
        r[RED_RELEASE] = mean_us<RED_RELEASE>(grid, x, ctr, host, s);
        r[ATOMIC_NOFENCE] = mean_us<ATOMIC_NOFENCE>(grid, x, ctr, host, s);
        r[FENCE] = mean_us<FENCE>(grid, x, ctr, host, s);
        for (int v = 0; v < VARIANTS; ++v) {
            printf("tail,%s,%d,-,%.2f,us\n", names[v], grid, r[v]);
        }
    }
    CUDA(cudaFreeHost(host));
    CUDA(cudaFree(ctr));
    CUDA(cudaFree(x));
    return 0;
}
