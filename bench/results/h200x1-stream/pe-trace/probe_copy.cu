/* How fast can a host thread move a GPU partition and see it done? One
 * process, medians of 2000: issue time and issue-to-seen time of
 *   memcpy+event   cudaMemcpyAsync (Default) + cudaEventRecord, cudaEventQuery
 *   memcpyD2D+event  the same with cudaMemcpyDeviceToDevice
 *   memcpy+memop   cuMemcpyDtoDAsync + cuStreamWriteValue64 into a host word
 *   kernel+flag    one launch: a copy kernel whose last block writes a host word
 * and kernel-to-kernel: the gap the host sees between two dependent
 * one-thread kernels' host-word writes.
 *   nvcc -O2 -arch=sm_90 probe_copy.cu -lcuda -o probe_copy */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <algorithm>
#include <vector>

static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec * 1e-3; }
#define CK(x) do { if ((x) != 0) { printf("fail %s line %d\n", #x, __LINE__); exit(1); } } while (0)

__global__ void copy_flag(const uint4 *s, uint4 *d, size_t n16, unsigned *count, volatile unsigned long long *flag, unsigned long long v)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += gridDim.x * blockDim.x) d[i] = s[i];
    __syncthreads();
    if (0 == threadIdx.x) {
        __threadfence_system();
        if (atomicAdd(count, 1) == gridDim.x - 1) { *count = 0; *flag = v; __threadfence_system(); }
    }
}
__global__ void mark(volatile unsigned long long *flag, unsigned long long v) { __threadfence_system(); *flag = v; __threadfence_system(); }

static void report(const char *name, size_t bytes, std::vector<double> &a, std::vector<double> &b)
{
    std::sort(a.begin(), a.end()); std::sort(b.begin(), b.end());
    printf("%-18s %8zu B  issue %6.2f us  issue-to-seen %6.2f us  (p90 %6.2f)\n", name, bytes,
           a[a.size() / 2], b[b.size() / 2], b[b.size() * 9 / 10]);
}

int main()
{
    const int N = 2000;
    size_t sizes[] = {8192, 524288};
    char *src, *dst; unsigned *count;
    volatile unsigned long long *flag, *flag2;
    cudaStream_t s; cudaEvent_t ev;
    CK(cudaMalloc(&src, 1 << 20)); CK(cudaMalloc(&dst, 1 << 20)); CK(cudaMalloc(&count, 4));
    CK(cudaMemset(count, 0, 4));
    CK(cudaHostAlloc((void **) &flag, 64, cudaHostAllocMapped)); CK(cudaHostAlloc((void **) &flag2, 64, cudaHostAllocMapped));
    *flag = 0; *flag2 = 0;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    unsigned long long v = 0;
    for (size_t bytes : sizes) {
        for (int m = 0; m < 4; ++m) {
            std::vector<double> a, b;
            for (int i = -50; i < N; ++i) {
                double t0 = now(), t1;
                ++v;
                if (m <= 1) {
                    CK(cudaMemcpyAsync(dst, src, bytes, m ? cudaMemcpyDeviceToDevice : cudaMemcpyDefault, s));
                    CK(cudaEventRecord(ev, s));
                    t1 = now();
                    while (cudaEventQuery(ev) == cudaErrorNotReady) {}
                } else if (m == 2) {
                    CK(cuMemcpyDtoDAsync((CUdeviceptr) dst, (CUdeviceptr) src, bytes, (CUstream) s));
                    CK(cuStreamWriteValue64((CUstream) s, (CUdeviceptr) flag, v, 0));
                    t1 = now();
                    while (*flag != v) {}
                } else {
                    size_t n16 = bytes / 16; unsigned blocks = (unsigned) ((n16 + 8191) / 8192);
                    copy_flag<<<blocks, 1024, 0, s>>>((const uint4 *) src, (uint4 *) dst, n16, count, flag, v);
                    t1 = now();
                    while (*flag != v) {}
                }
                double t2 = now();
                if (i >= 0) { a.push_back(t1 - t0); b.push_back(t2 - t0); }
            }
            const char *names[] = {"memcpy+event", "memcpyD2D+event", "memcpy+memop", "kernel+flag"};
            report(names[m], bytes, a, b);
        }
    }
    std::vector<double> gap, dummy;
    for (int i = -50; i < N; ++i) {
        ++v;
        mark<<<1, 1, 0, s>>>(flag, v);
        mark<<<1, 1, 0, s>>>(flag2, v);
        while (*flag != v) {}
        double t0 = now();
        while (*flag2 != v) {}
        if (i >= 0) { gap.push_back(now() - t0); dummy.push_back(0); }
    }
    report("kernel-to-kernel", 0, dummy, gap);
    CK(cudaStreamSynchronize(s));
    return 0;
}
