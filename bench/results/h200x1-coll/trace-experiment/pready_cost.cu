// What a block-level MPIX_Pready costs a vector-add kernel (one process, no MPI).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)
__device__ unsigned long long counters[4096];
__device__ unsigned long long eword = 5;

template <int V>
__global__ void k(float *x, int it, int bpp)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x[i] = (float) ((i % 7) + it);
    if (V == 0) return;
    __syncthreads();
    if (threadIdx.x != 0) return;
    if (V == 1 || V == 2 || V == 3 || V == 6 || V == 7) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    if (V == 8) asm volatile("fence.acq_rel.sys;" ::: "memory");
    unsigned g = blockIdx.x / bpp;
    if (V == 2 || V == 3 || V == 5 || V == 8) {
        unsigned long long old = atomicAdd(&counters[g], 1ull);
        if (V == 3 || V == 8) {
            unsigned long long e = *(volatile unsigned long long *) &eword;
            if (old == ~0ull - e) counters[g + 1] = 0; // never; keeps the load
        }
    }
    if (V == 6) asm volatile("red.relaxed.gpu.global.add.u64 [%0], 1;" :: "l"(&counters[g]) : "memory");
    if (V == 7) { // release atomic with return, no separate fence... (fence above too, to compare) 
        unsigned long long old;
        asm volatile("atom.release.gpu.global.add.u64 %0, [%1], 1;" : "=l"(old) : "l"(&counters[g]) : "memory");
        if (old == 12345678901ull) counters[g + 1] = 0;
    }
}
template <int V> float run(float *x, int grid, int bpp, cudaEvent_t a, cudaEvent_t b)
{
    for (int w = 0; w < 3; ++w) k<V><<<grid, 1024>>>(x, w, bpp);
    cudaEventRecord(a);
    for (int it = 0; it < 50; ++it) k<V><<<grid, 1024>>>(x, it, bpp);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b);
    return ms * 1000 / 50;
}
int main()
{
    float *x; cudaEvent_t a, b;
    CK(cudaMalloc(&x, (size_t) 131072 * 1024 * 4));
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    printf("grid,plain,sync_fence_gpu,+atomic,+atomic+load,atomic_nofence,fence+red,fence+atom_release,fence_sys+atomic+load [us a kernel, back to back]\n");
    int grids[] = {1, 64, 256, 1024, 4096, 16384, 65536};
    for (int grid : grids) {
        int bpp = grid < 32 ? 1 : grid / 32;
        printf("%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", grid, run<0>(x, grid, bpp, a, b), run<1>(x, grid, bpp, a, b),
               run<2>(x, grid, bpp, a, b), run<3>(x, grid, bpp, a, b), run<5>(x, grid, bpp, a, b),
               run<6>(x, grid, bpp, a, b), run<7>(x, grid, bpp, a, b), run<8>(x, grid, bpp, a, b));
    }
    CK(cudaGetLastError());
    return 0;
}
