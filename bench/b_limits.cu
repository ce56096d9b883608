/* What the node allows, for the report beside our numbers:
 *   kernel launch + cudaStreamSynchronize (empty kernel), GPU memory copy
 *   bandwidth on one GPU, and peer copy bandwidth GPU 0 -> GPU 1 (NVLink
 *   where present) when there are two GPUs with peer access; and what one
 *   partition's mark costs a kernel of 1024 blocks (every block's first
 *   thread: a store into pinned host memory, with a release or a
 *   sequentially consistent fence at system scope before it, or a read of
 *   pinned host memory, as device MPIX_Pready does), as kernel time; and
 *   the progress engine's floor on one GPU: from a kernel's launch until an
 *   8 KiB copy after its mark is seen complete, the host polling the mark
 *   and issuing the copy (mark_copy_host), or the copy queued beforehand
 *   behind cuStreamWaitValue64 on the mark (mark_copy_gated).
 * Output: CSV rows limits,WHAT,-,-,VALUE,UNIT. No MPI. */
#include <cuda.h> /* types of cuStreamWaitValue64, reached through the runtime */
#include <stdio.h>
#include <stdlib.h>
#include <chrono>

#include "cuda_check.h"

__global__ void empty(void) {}

enum { MARK_NONE, MARK_STORE, MARK_RELEASE, MARK_SC, MARK_READ, MARK_MODES };
static const char *mark_name[MARK_MODES] = {"none", "store", "fence_acq_rel_sys_store",
                                            "threadfence_system_store", "host_read"};

__global__ void mark(int mode, volatile unsigned long long *host, unsigned long long *dev)
{
    __syncthreads();
    if (0 != threadIdx.x) return;
    switch (mode) {
    case MARK_STORE: host[blockIdx.x] = 1; break;
    case MARK_RELEASE:
        asm volatile("fence.acq_rel.sys;" ::: "memory");
        host[blockIdx.x] = 1;
        break;
    case MARK_SC:
        __threadfence_system();
        host[blockIdx.x] = 1;
        break;
    case MARK_READ: dev[blockIdx.x] = host[0]; break;
    default: dev[blockIdx.x] = 1; break;
    }
}

__global__ void mark_one(volatile unsigned long long *ready, unsigned long long e)
{
    __threadfence_system();
    *ready = e;
}

typedef CUresult (*wait_value_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);

static double now(void)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static double copy_gbs(void *dst, const void *src, size_t bytes, cudaStream_t s)
{
    CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s)); /* warm-up */
    CUDA(cudaStreamSynchronize(s));
    const int reps = 20;
    double t0 = now();
    for (int i = 0; i < reps; ++i) CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s));
    CUDA(cudaStreamSynchronize(s));
    return (double) bytes * reps / (now() - t0) / 1e9;
}

int main(void)
{
    int ndev = 0, access = 0;
    const size_t bytes = (size_t) 256 << 20;
    cudaStream_t s;
    void *a, *b;
    CUDA(cudaGetDeviceCount(&ndev));
    CUDA(cudaSetDevice(0));
    CUDA(cudaStreamCreate(&s));
    empty<<<1, 1, 0, s>>>();
    CUDA(cudaStreamSynchronize(s));
    const int reps = 2000;
    double t0 = now();
    for (int i = 0; i < reps; ++i) {
        empty<<<1, 1, 0, s>>>();
        CUDA(cudaStreamSynchronize(s));
    }
    printf("limits,launch_sync,-,-,%.3f,us\n", 1e6 * (now() - t0) / reps);
    CUDA(cudaMalloc(&a, bytes));
    CUDA(cudaMalloc(&b, bytes));
    printf("limits,d2d_copy,-,-,%.1f,GB/s\n", copy_gbs(b, a, bytes, s));
    if (ndev >= 2) {
        CUDA(cudaDeviceCanAccessPeer(&access, 0, 1));
        if (access) {
            void *c;
            CUDA(cudaDeviceEnablePeerAccess(1, 0));
            CUDA(cudaSetDevice(1));
            CUDA(cudaMalloc(&c, bytes));
            CUDA(cudaSetDevice(0));
            printf("limits,peer_copy,-,-,%.1f,GB/s\n", copy_gbs(c, a, bytes, s));
        }
    }
    {
        enum { BLOCKS = 1024, REPS = 20 };
        unsigned long long *host, *dev;
        cudaEvent_t e0, e1;
        float ms;
        CUDA(cudaHostAlloc((void **) &host, BLOCKS * sizeof(*host), cudaHostAllocMapped));
        CUDA(cudaMalloc(&dev, BLOCKS * sizeof(*dev)));
        CUDA(cudaEventCreate(&e0));
        CUDA(cudaEventCreate(&e1));
        for (int m = 0; m < MARK_MODES; ++m) {
            mark<<<BLOCKS, 1024, 0, s>>>(m, host, dev); /* warm-up */
            CUDA(cudaEventRecord(e0, s));
            for (int i = 0; i < REPS; ++i) mark<<<BLOCKS, 1024, 0, s>>>(m, host, dev);
            CUDA(cudaEventRecord(e1, s));
            CUDA(cudaEventSynchronize(e1));
            CUDA(cudaEventElapsedTime(&ms, e0, e1));
            printf("limits,mark_%s,%d,-,%.3f,us\n", mark_name[m], BLOCKS, 1e3 * ms / REPS);
        }
    }
    {
        enum { BYTES = 8192, REPS = 2000 };
        unsigned long long *ready, e = 0;
        void *fn = NULL, *src, *dst;
        cudaDriverEntryPointQueryResult found;
        cudaStream_t cs;
        cudaEvent_t ev;
        CUDA(cudaHostAlloc((void **) &ready, sizeof(*ready), cudaHostAllocMapped));
        *ready = 0;
        CUDA(cudaMalloc(&src, BYTES));
        CUDA(cudaMalloc(&dst, BYTES));
        CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
        CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        CUDA(cudaGetDriverEntryPointByVersion("cuStreamWaitValue64", &fn, 12000,
                                              cudaEnableDefault, &found));
        for (int gated = 0; gated < 2; ++gated) {
            double t = 0;
            for (int i = -50; i < REPS; ++i) {
                ++e;
                if (gated && 0 != ((wait_value_fn) fn)((CUstream) cs, (CUdeviceptr) ready, e,
                                                      CU_STREAM_WAIT_VALUE_GEQ)) {
                    exit(3);
                }
                if (gated) CUDA(cudaMemcpyAsync(dst, src, BYTES, cudaMemcpyDefault, cs));
                if (gated) CUDA(cudaEventRecord(ev, cs));
                double t1 = now();
                mark_one<<<1, 1, 0, s>>>(ready, e);
                if (!gated) {
                    while (*(volatile unsigned long long *) ready < e) {
                    }
                    CUDA(cudaMemcpyAsync(dst, src, BYTES, cudaMemcpyDefault, cs));
                    CUDA(cudaEventRecord(ev, cs));
                }
                while (cudaErrorNotReady == cudaEventQuery(ev)) {
                }
                if (i >= 0) t += now() - t1;
            }
            CUDA(cudaDeviceSynchronize());
            printf("limits,mark_copy_%s,%d,-,%.3f,us\n", gated ? "gated" : "host", BYTES,
                   1e6 * t / REPS);
        }
    }
    printf("limits,gpus,-,-,%d,count\n", ndev);
    return 0;
}
