/* What a fence costs a block's leader after the block stored 8 KiB (one
 * H200; %globaltimer around the fence, median of 2000 rounds), and with
 * nothing stored before it. An experiment for the half round trip.
 *   nvcc -O3 -arch=sm_90 -o fence fence.cu */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>

__device__ static inline unsigned long long now(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) :: "memory");
    return t;
}

template <int F>
__global__ void k(double *dst, unsigned long long *out, int rounds, int store)
{
    for (int r = 0; r < rounds; ++r) {
        if (store) dst[threadIdx.x] = r + threadIdx.x;
        __syncthreads();
        if (0 == threadIdx.x) {
            unsigned long long t0 = now();
            if (1 == F) asm volatile("fence.acq_rel.gpu;" ::: "memory");
            if (2 == F) asm volatile("fence.acq_rel.sys;" ::: "memory");
            if (3 == F) asm volatile("fence.sc.sys;" ::: "memory");
            if (4 == F) asm volatile("fence.sc.gpu;" ::: "memory");
            unsigned long long t1 = now();
            out[r] = t1 - t0;
        }
        __syncthreads();
    }
}

int main(void)
{
    enum { R = 2000 };
    double *d, *h;
    unsigned long long *o, ho[R];
    cudaMalloc(&d, 8192);
    cudaHostAlloc(&h, 8192, cudaHostAllocMapped);
    cudaMalloc(&o, sizeof(ho));
    const char *fn[] = {"none", "fence.acq_rel.gpu", "fence.acq_rel.sys", "fence.sc.sys", "fence.sc.gpu"};
    void (*ks[])(double *, unsigned long long *, int, int) = {k<0>, k<1>, k<2>, k<3>, k<4>};
    for (int where = 0; where < 2; ++where)
        for (int store = 1; store >= 0; --store)
            for (int f = 0; f < 5; ++f) {
                ks[f]<<<1, 1024>>>(where ? h : d, o, R, store);
                cudaMemcpy(ho, o, sizeof(ho), cudaMemcpyDeviceToHost);
                std::sort(ho, ho + R);
                printf("%-18s after %-22s: median %5llu ns, p90 %5llu ns\n", fn[f],
                       store ? (where ? "8 KiB to host memory" : "8 KiB to GPU memory") : "no stores",
                       ho[R / 2], ho[R * 9 / 10]);
                if (!store && where) break;
            }
    return cudaGetLastError() != cudaSuccess;
}
