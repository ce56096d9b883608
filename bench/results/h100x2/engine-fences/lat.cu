// Latencies the GPU engine's words pay, one thread, N dependent operations
// each, on GPU 0 (peer: GPU 1 where there are two): ns an operation.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdint.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)
enum { N = 2000 };
__device__ static inline unsigned long long now(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
// mode 0: read p; 1: store p + fence.sc.sys; 2: store p + fence.acq_rel.sys;
// 3: store p + fence.sc.gpu; 4: store local + fence.sc.sys after a store to p;
// 5: st.release.sys to p; 6: atomicAdd_system on p (returned)
__global__ void k(volatile unsigned long long *p, volatile unsigned long long *loc, int mode,
                  unsigned long long *out)
{
    unsigned long long s = 0, t0 = now();
    for (int i = 0; i < N; ++i) {
        switch (mode) {
        case 0: s += p[i & 7]; break;
        case 1: p[0] = i; __threadfence_system(); break;
        case 2: p[0] = i; asm volatile("fence.acq_rel.sys;" ::: "memory"); break;
        case 3: p[0] = i; __threadfence(); break;
        case 4: loc[0] = i; __threadfence_system(); break;
        case 5: asm volatile("st.release.sys.global.u64 [%0], %1;" :: "l"(p), "l"((unsigned long long) i) : "memory"); break;
        case 6: s += atomicAdd_system((unsigned long long *) p, 1ull); break;
        case 7: asm volatile("fence.acq_rel.sys;" ::: "memory"); break;
        case 8: { unsigned long long v; asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p + (i & 7)) : "memory"); s += v; } break;
        case 9: { unsigned long long v; asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p + (i & 7)) : "memory"); s += v; } break;
        case 10: asm volatile("fence.acq_rel.gpu;" ::: "memory"); break;
        case 11: p[0] = i; asm volatile("fence.acq_rel.gpu;" ::: "memory"); break;
        }
    }
    out[0] = now() - t0;
    out[1] = s;
}
// ping-pong: GPU a writes flag[peer side], the other echoes; `remote`: each
// side polls its own memory and stores into the other's
__global__ void pp(volatile unsigned long long *mine, volatile unsigned long long *theirs, int first,
                   int fence, unsigned long long *out)
{
    unsigned long long t0 = now();
    for (unsigned long long i = 1; i <= N; ++i) {
        if (first) {
            if (fence) __threadfence_system();
            theirs[0] = i;
            while (mine[0] < i) {}
        } else {
            while (mine[0] < i) {}
            if (fence) __threadfence_system();
            theirs[0] = i;
        }
    }
    out[0] = now() - t0;
}
static int measure(const char *what, volatile unsigned long long *p, volatile unsigned long long *loc,
                   int mode, unsigned long long *out)
{
    unsigned long long h[2];
    k<<<1, 1>>>(p, loc, mode, out);
    CK(cudaDeviceSynchronize());
    k<<<1, 1>>>(p, loc, mode, out);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
    printf("lat,%s,%.0f,ns\n", what, (double) h[0] / N);
    return 0;
}
int main(void)
{
    int n = 0;
    unsigned long long *out, *dev, *peer = NULL, *host;
    CK(cudaGetDeviceCount(&n));
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&out, 64));
    CK(cudaMalloc(&dev, 4096));
    CK(cudaMemset(dev, 0, 4096));
    CK(cudaHostAlloc((void **) &host, 4096, cudaHostAllocMapped));
    if (n > 1) {
        CK(cudaDeviceEnablePeerAccess(1, 0));
        CK(cudaSetDevice(1));
        CK(cudaDeviceEnablePeerAccess(0, 0));
        CK(cudaMalloc(&peer, 4096));
        CK(cudaMemset(peer, 0, 4096));
        CK(cudaSetDevice(0));
    }
    measure("read_local", dev, dev, 0, out);
    measure("read_host", host, dev, 0, out);
    measure("store_local_fence_sc_sys", dev, dev, 1, out);
    measure("store_local_fence_sc_gpu", dev, dev, 3, out);
    measure("store_host_fence_sc_sys", host, dev, 1, out);
    measure("store_host_fence_acq_rel_sys", host, dev, 2, out);
    measure("store_host_st_release_sys", host, dev, 5, out);
    measure("atomic_sys_local", dev, dev, 6, out);
    measure("fence_acq_rel_sys_alone", dev, dev, 7, out);
    measure("fence_acq_rel_gpu_alone", dev, dev, 10, out);
    measure("store_local_fence_acq_rel_gpu", dev, dev, 11, out);
    measure("ld_acquire_sys_local", dev, dev, 8, out);
    measure("ld_acquire_gpu_local", dev, dev, 9, out);
    measure("ld_acquire_sys_host", host, dev, 8, out);
    if (peer) {
        measure("read_peer", peer, dev, 0, out);
        measure("store_peer_fence_sc_sys", peer, dev, 1, out);
        measure("store_peer_fence_acq_rel_sys", peer, dev, 2, out);
        measure("store_peer_fence_sc_gpu", peer, dev, 3, out);
        measure("store_peer_st_release_sys", peer, dev, 5, out);
        measure("atomic_sys_peer", peer, dev, 6, out);
        measure("ld_acquire_sys_peer", peer, dev, 8, out);
        for (int fence = 0; fence < 2; ++fence) {
            unsigned long long h, *out1;
            cudaStream_t s0, s1;
            CK(cudaMemset(dev, 0, 64));
            CK(cudaSetDevice(1));
            CK(cudaMemset(peer, 0, 64));
            CK(cudaMalloc(&out1, 64));
            CK(cudaStreamCreate(&s1));
            pp<<<1, 1, 0, s1>>>(peer, dev, 0, fence, out1);
            CK(cudaSetDevice(0));
            CK(cudaStreamCreate(&s0));
            pp<<<1, 1, 0, s0>>>(dev, peer, 1, fence, out);
            CK(cudaDeviceSynchronize());
            CK(cudaSetDevice(1));
            CK(cudaDeviceSynchronize());
            CK(cudaSetDevice(0));
            CK(cudaMemcpy(&h, out, sizeof(h), cudaMemcpyDeviceToHost));
            printf("lat,pingpong_half%s,%.0f,ns\n", fence ? "_fence_sys" : "", (double) h / N / 2);
        }
    }
    return 0;
}
