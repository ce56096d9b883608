// What the smallest block-level readiness mark costs a short producer
// kernel (b_coll_gpu's compute: one store a thread), one process, no MPI:
// issue 22's after mode at 4-64 MiB. Two kernels run at once on two
// streams (the two ranks under MPS), 50 epochs back to back; us an epoch.
//   plain      the kernel alone
//   store      barrier, then the leader stores 1 into word blockIdx of an
//              array named by a kernel argument (no load, no fence)
//   ld+store   barrier, the leader loads the epoch (L1-cacheable) and
//              stores it
//   vld+store  the same with a volatile load (what the unchecked
//              experiment's leader did after its barrier)
//   fence+st   barrier, fence.acq_rel.gpu, store 1
//   fence+atom barrier, fence.acq_rel.gpu, atomicAdd on the group's counter
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)
struct req { unsigned long long epoch; unsigned long long pad[15]; };

template <int V>
__global__ void __launch_bounds__(1024, 2) k(float *x, int it, unsigned long long *words, struct req *rq, int bpp)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x[i] = (float) ((i % 7) * 0.5f + it);
    if (V == 0) return;
    __syncthreads();
    if (threadIdx.x != 0) return;
    switch (V) {
    case 1: words[blockIdx.x] = 1; break;
    case 2: words[blockIdx.x] = rq->epoch; break;
    case 3: words[blockIdx.x] = *(volatile unsigned long long *) &rq->epoch; break;
    case 4: asm volatile("fence.acq_rel.gpu;" ::: "memory"); words[blockIdx.x] = 1; break;
    case 5: asm volatile("fence.acq_rel.gpu;" ::: "memory"); atomicAdd(&words[blockIdx.x / bpp], 1ull); break;
    }
}
template <int V> float run(float **x, int grid, unsigned long long **w, struct req *rq, cudaStream_t *s, cudaEvent_t a, cudaEvent_t b)
{
    int bpp = grid < 32 ? 1 : grid / 32;
    for (int it = 0; it < 53; ++it) {
        if (3 == it) { cudaStreamSynchronize(s[1]); cudaEventRecord(a, s[0]); cudaStreamWaitEvent(s[1], a, 0); }
        for (int r = 0; r < 2; ++r) k<V><<<grid, 1024, 0, s[r]>>>(x[r], it, w[r], rq, bpp);
    }
    cudaEventRecord(b, s[1]);
    cudaStreamWaitEvent(s[0], b, 0);
    cudaEventRecord(b, s[0]);
    cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b);
    return ms * 1000 / 50;
}
int main()
{
    float *x[2]; unsigned long long *w[2]; struct req *rq; cudaEvent_t a, b; cudaStream_t s[2];
    for (int r = 0; r < 2; ++r) {
        CK(cudaMalloc(&x[r], (size_t) 65536 * 1024 * 4));
        CK(cudaMalloc(&w[r], (size_t) 65536 * 8));
        CK(cudaMemset(w[r], 0, (size_t) 65536 * 8));
        CK(cudaStreamCreateWithFlags(&s[r], cudaStreamNonBlocking));
    }
    CK(cudaMalloc(&rq, sizeof *rq)); CK(cudaMemset(rq, 0, sizeof *rq));
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    printf("grid,plain,store,ld+store,vld+store,fence+st,fence+atom [us an epoch of two kernels at once]\n");
    int grids[] = {1, 64, 1024, 4096, 16384, 65536};
    for (int rep = 0; rep < 2; ++rep)
        for (int grid : grids)
            printf("%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", grid, run<0>(x, grid, w, rq, s, a, b), run<1>(x, grid, w, rq, s, a, b),
                   run<2>(x, grid, w, rq, s, a, b), run<3>(x, grid, w, rq, s, a, b), run<4>(x, grid, w, rq, s, a, b),
                   run<5>(x, grid, w, rq, s, a, b));
    CK(cudaGetLastError());
    return 0;
}
