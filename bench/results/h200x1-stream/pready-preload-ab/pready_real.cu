// Block-level MPIX_Pready of a GPU-engine collective (ready words in GPU
// memory, no copy), real header vs variants, in a vector-add kernel of
// GRID x 1024 threads, 32 partitions; one process, no MPI. Each epoch: a
// one-thread kernel stands for the stream's start (epoch_seen = e), then
// the kernel. us per epoch, back to back.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "mpix_part_device.h"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void start(struct mpix_prequest_s *p, unsigned long long e) { p->epoch_seen = e; }

// variant: the leader's loads of the request's fixed fields and of
// epoch_seen before the barrier, fence + atomic after it
__device__ static inline void pready_pre(int partition, struct mpix_prequest_s *preq)
{
    preq = mpix_prequest_ptr(preq);
    unsigned long long *ctr = NULL, e = 0;
    unsigned shift = 0, t1 = 0, parts = 0;
    if (0 == threadIdx.x) {
        ctr = preq->counters; shift = preq->group_shift; t1 = preq->threshold; parts = preq->pready_parts;
        e = *(volatile unsigned long long *) &preq->epoch_seen;
    }
    __syncthreads();
    if (0 != threadIdx.x) return;
    if ((unsigned) partition >= parts) { mpix_part_error(preq, MPIX_PREQUEST_ERR_PARTITION); return; }
    unsigned g = (unsigned) partition >> shift;
    unsigned long long t = (unsigned long long) t1 << shift; // full groups only here
    mpix_part_fence_gpu();
    unsigned long long old = atomicAdd(&ctr[g], (unsigned long long) blockDim.x);
    unsigned calls = (unsigned) old, done = (unsigned) (old >> 32);
    if (!mpix_part_after(e, done)) e = mpix_part_host_epoch(preq, done);
    if (calls >= t || !mpix_part_after(e, done)) { mpix_part_error(preq, MPIX_PREQUEST_ERR_THRESHOLD); return; }
    if (calls + blockDim.x < t) return;
    mpix_part_fence_gpu();
    atomicAdd(&ctr[g], ((unsigned long long) ((unsigned) e - done) << 32) - t);
    mpix_part_mark(preq, partition, e);
}
// variant: as pre, with a release atomic instead of fence + atomic
__device__ static inline void pready_prerel(int partition, struct mpix_prequest_s *preq)
{
    preq = mpix_prequest_ptr(preq);
    unsigned long long *ctr = NULL, e = 0;
    unsigned shift = 0, t1 = 0, parts = 0;
    if (0 == threadIdx.x) {
        ctr = preq->counters; shift = preq->group_shift; t1 = preq->threshold; parts = preq->pready_parts;
        e = *(volatile unsigned long long *) &preq->epoch_seen;
    }
    __syncthreads();
    if (0 != threadIdx.x) return;
    if ((unsigned) partition >= parts) { mpix_part_error(preq, MPIX_PREQUEST_ERR_PARTITION); return; }
    unsigned g = (unsigned) partition >> shift;
    unsigned long long t = (unsigned long long) t1 << shift, old, inc = blockDim.x;
    asm volatile("atom.release.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(ctr + g), "l"(inc) : "memory");
    unsigned calls = (unsigned) old, done = (unsigned) (old >> 32);
    if (!mpix_part_after(e, done)) e = mpix_part_host_epoch(preq, done);
    if (calls >= t || !mpix_part_after(e, done)) { mpix_part_error(preq, MPIX_PREQUEST_ERR_THRESHOLD); return; }
    if (calls + blockDim.x < t) return;
    mpix_part_fence_gpu();
    atomicAdd(&ctr[g], ((unsigned long long) ((unsigned) e - done) << 32) - t);
    mpix_part_mark(preq, partition, e);
}

template <int V>
__global__ void k(float *x, int it, int bpp, struct mpix_prequest_s *preq)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x[i] = (float) ((i % 7) + it);
    if (V == 1) MPIX_Pready(blockIdx.x / bpp, preq);
    if (V == 2) pready_pre(blockIdx.x / bpp, preq);
    if (V == 3) pready_prerel(blockIdx.x / bpp, preq);
    if (V == 4) MPIX_Pready_block(blockIdx.x / bpp, preq);
}

static int epoch = 0;
template <int V> float run(float *x, int grid, struct mpix_prequest_s *dp, cudaEvent_t a, cudaEvent_t b, uint64_t *ready)
{
    int parts = grid < 32 ? grid : 32, bpp = grid / parts;
    struct mpix_prequest_s *h = (struct mpix_prequest_s *) ((uintptr_t) dp | MPIX_PREQUEST_TAG_BLOCK);
    // the threshold: calls per partition
    unsigned thr = (unsigned) bpp * 1024u, z = 0;
    CK(cudaMemcpy(&dp->threshold, &thr, sizeof(thr), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(&dp->parts, &parts, sizeof(parts), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(&dp->pready_parts, &parts, sizeof(parts), cudaMemcpyHostToDevice));
    (void) z;
    for (int w = 0; w < 3; ++w) { ++epoch; start<<<1, 1>>>(dp, epoch); k<V><<<grid, 1024>>>(x, epoch, bpp, h); }
    cudaEventRecord(a);
    for (int it = 0; it < 50; ++it) { ++epoch; start<<<1, 1>>>(dp, epoch); k<V><<<grid, 1024>>>(x, epoch, bpp, h); }
    cudaEventRecord(b);
    CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b);
    if (V != 0) { // every partition marked with the last epoch, no error
        uint64_t r[32]; CK(cudaMemcpy(r, ready, sizeof(uint64_t) * parts, cudaMemcpyDeviceToHost));
        for (int p = 0; p < parts; ++p) if (r[p] != (uint64_t) epoch) { printf("variant %d grid %d: ready[%d] = %llu, not %d\n", V, grid, p, (unsigned long long) r[p], epoch); exit(1); }
    }
    return ms * 1000 / 50;
}
int main()
{
    float *x; cudaEvent_t a, b;
    struct mpix_prequest_s h; memset(&h, 0, sizeof(h));
    struct mpix_prequest_s *dp; unsigned long long *ctr; uint64_t *ready, *hostepoch; uint32_t *err;
    CK(cudaMalloc(&x, (size_t) 65536 * 1024 * 4));
    CK(cudaMalloc(&dp, sizeof(h)));
    CK(cudaMalloc(&ctr, 64 * 8)); CK(cudaMemset(ctr, 0, 64 * 8));
    CK(cudaMalloc(&ready, 64 * 8)); CK(cudaMemset(ready, 0, 64 * 8));
    CK(cudaMalloc(&hostepoch, 8)); CK(cudaMemset(hostepoch, 0, 8));
    CK(cudaMalloc(&err, 8)); CK(cudaMemset(err, 0, 8));
    h.magic = MPIX_PREQUEST_MAGIC; h.layout = MPIX_PART_DEVICE_LAYOUT; h.kind = MPIX_PREQUEST_COLL;
    h.mechanism = MPIX_PREQUEST_PROGRESS; h.counters = ctr; h.ready = ready; h.epoch = hostepoch;
    h.error = err; h.aggregate = MPIX_PREQUEST_AGGREGATE_BLOCK; h.group_shift = 0;
    CK(cudaMemcpy(dp, &h, sizeof(h), cudaMemcpyHostToDevice));
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    printf("grid,plain,MPIX_Pready_block,pre,pre+release_atomic,MPIX_Pready_block direct [us an epoch: start kernel + kernel]\n");
    int grids[] = {1, 64, 256, 1024, 4096, 16384, 65536};
    for (int grid : grids) {
        float p0 = run<0>(x, grid, dp, a, b, ready);
        // each variant starts from clean counters
        CK(cudaMemset(ctr, 0, 64 * 8)); epoch = 0; float p1 = run<1>(x, grid, dp, a, b, ready);
        CK(cudaMemset(ctr, 0, 64 * 8)); epoch = 0; float p2 = run<2>(x, grid, dp, a, b, ready);
        CK(cudaMemset(ctr, 0, 64 * 8)); epoch = 0; float p3 = run<3>(x, grid, dp, a, b, ready);
        CK(cudaMemset(ctr, 0, 64 * 8)); epoch = 0; float p4 = run<4>(x, grid, dp, a, b, ready);
        printf("%d,%.2f,%.2f,%.2f,%.2f,%.2f\n", grid, p0, p1, p2, p3, p4);
    }
    uint32_t e; CK(cudaMemcpy(&e, err, 4, cudaMemcpyDeviceToHost));
    printf("error word %u\n", e);
    return e != 0;
}
