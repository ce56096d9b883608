/* What the node allows, for the report beside our numbers:
 *   kernel launch + cudaStreamSynchronize (empty kernel), GPU memory copy
 *   bandwidth on one GPU, and peer copy bandwidth GPU 0 -> GPU 1 (NVLink
 *   where present) when there are two GPUs with peer access.
 * Output: CSV rows limits,WHAT,-,-,VALUE,UNIT. No MPI. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <chrono>

#define CUDA(call)                                                                       \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (cudaSuccess != e_) {                                                         \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));  \
            exit(3);                                                                     \
        }                                                                                \
    } while (0)

__global__ void empty(void) {}

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
    printf("limits,gpus,-,-,%d,count\n", ndev);
    return 0;
}
