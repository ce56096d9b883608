/* Programmatic dependent launch (PDL) and the kernel-to-kernel latency of
 * stream-ordered epochs, MPI-free, one process (an experiment).
 *
 * chain: one stream, K epochs a graph: A (1 block of 1024 threads writes
 * 8 KiB, then a flag) and W (one thread spins until the flag holds the
 * epoch), as a kernel-copy sender's producer and our wait kernel.
 * pingpong: two streams standing for two ranks: s0 runs ping, W; s1 runs W,
 * pong; a half round trip is half a ping-pong.
 * Modes (bits): 1 W launched with PDL (griddepcontrol.wait before it ends),
 * 2 W triggers its dependents at its start and A is launched with PDL
 * (griddepcontrol.wait at its start); 4 not in a graph (stream launches).
 *   nvcc -O3 -arch=sm_90 -o pdl pdl.cu -lcuda */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__device__ static inline void dep_wait(void) { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ static inline void dep_launch(void) { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

/* writes 8 KiB for epoch base+k and publishes the epoch in *flag; checks
 * the 8 KiB it was sent (in) where given */
__global__ void A(double *out, const double *in, volatile unsigned long long *flag,
                  const int *ebase, int k, int pdl, unsigned long long *bad, int off)
{
    if (pdl) dep_wait();
    int e = *(const volatile int *) ebase + k;
    if (in && ((const volatile double *) in)[threadIdx.x] != (double) (e + off) + threadIdx.x) atomicAdd(bad, 1ull);
    out[threadIdx.x] = (double) e + threadIdx.x;
    __syncthreads();
    if (0 == threadIdx.x) {
        __threadfence();
        *flag = e;
    }
}

__global__ void W(const volatile unsigned long long *flag, const int *ebase, int k, int mode)
{
    if (mode & 2) dep_launch();
    unsigned long long e = *(const volatile int *) ebase + k;
    while (*flag < e) __nanosleep(64);
    __threadfence();
    if (mode & 1) dep_wait();
}

__global__ void advance(int *ebase, int k) { *ebase += k; }

static void launch(void (*f)(), bool pdl, cudaStream_t s, unsigned grid, unsigned block, void **args)
{
    cudaLaunchConfig_t c = {};
    cudaLaunchAttribute at[1];
    c.gridDim = dim3(grid);
    c.blockDim = dim3(block);
    c.stream = s;
    if (pdl) {
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        c.attrs = at;
        c.numAttrs = 1;
    }
    CK(cudaLaunchKernelExC(&c, (const void *) f, args));
}

static void launch_A(double *out, const double *in, unsigned long long *flag, int *ebase, int k,
                     int mode, unsigned long long *bad, int off, cudaStream_t s)
{
    int pdl = (mode & 2) ? 1 : 0;
    void *args[] = {&out, &in, &flag, &ebase, &k, &pdl, &bad, &off};
    launch((void (*)()) A, pdl, s, 1, 1024, args);
}

static void launch_W(unsigned long long *flag, int *ebase, int k, int mode, cudaStream_t s)
{
    void *args[] = {&flag, &ebase, &k, &mode};
    launch((void (*)()) W, mode & 1, s, 1, 1, args);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

enum { K = 32, REPS = 200 };

int main(void)
{
    double *b0, *b1;
    unsigned long long *flags, *bad, hbad = 0;
    int *eb;
    cudaStream_t s0, s1;
    CK(cudaMalloc(&b0, 8192));
    CK(cudaMalloc(&b1, 8192));
    CK(cudaMalloc(&flags, 4 * sizeof(*flags)));
    CK(cudaMalloc(&bad, sizeof(*bad)));
    CK(cudaMalloc(&eb, 2 * sizeof(int)));
    CK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    const char *names[] = {"plain", "W pdl", "W trigger + A pdl", "W pdl + trigger + A pdl"};
    for (int test = 0; test < 2; ++test) {
        for (int graphed = 1; graphed >= 0; --graphed) {
            for (int mode = 0; mode < 4; ++mode) {
                if (2 == mode) continue; /* trigger without W's wait: not order-preserving */
                CK(cudaMemset(flags, 0, 4 * sizeof(*flags)));
                CK(cudaMemset(eb, 0, 2 * sizeof(int)));
                CK(cudaMemset(bad, 0, sizeof(*bad)));
                CK(cudaDeviceSynchronize());
                cudaGraphExec_t g[2] = {NULL, NULL};
                auto epochs = [&](int side, cudaStream_t s, int k0, int n) {
                    for (int k = k0; k < k0 + n; ++k) {
                        if (0 == test) {
                            launch_A(b0, NULL, flags, eb, k, mode, bad, 0, s);
                            launch_W(flags, eb, k, mode, s);
                        } else if (0 == side) { /* ping: b0 -> "peer" b1 stands for the copy */
                            /* checks the pong of the epoch before */
                            launch_A(b1, k > 1 ? b0 : NULL, flags, eb, k, mode, bad, -1, s);
                            launch_W(flags + 1, eb + 0, k, mode, s);
                        } else {
                            launch_W(flags, eb + 1, k, mode, s);
                            launch_A(b0, b1, flags + 1, eb + 1, k, mode, bad, 0, s);
                        }
                    }
                };
                int sides = test ? 2 : 1;
                cudaStream_t ss[2] = {s0, s1};
                if (graphed) {
                    for (int side = 0; side < sides; ++side) {
                        cudaGraph_t gr;
                        CK(cudaStreamBeginCapture(ss[side], cudaStreamCaptureModeThreadLocal));
                        epochs(side, ss[side], 1, K);
                        advance<<<1, 1, 0, ss[side]>>>(eb + side, K);
                        CK(cudaStreamEndCapture(ss[side], &gr));
                        CK(cudaGraphInstantiate(&g[side], gr, 0));
                        CK(cudaGraphDestroy(gr));
                    }
                }
                double t0 = 0;
                int ep = 0;
                for (int r = -3; r < REPS; ++r) {
                    if (0 == r) {
                        CK(cudaDeviceSynchronize());
                        t0 = now();
                        ep = 0;
                    }
                    for (int side = 0; side < sides; ++side) {
                        if (graphed) {
                            CK(cudaGraphLaunch(g[side], ss[side]));
                        } else {
                            epochs(side, ss[side], (r + 3) * K + 1, K);
                        }
                    }
                    ep += K;
                }
                CK(cudaDeviceSynchronize());
                double t = (now() - t0) / ep * 1e6;
                CK(cudaMemcpy(&hbad, bad, sizeof(hbad), cudaMemcpyDeviceToHost));
                printf("%-9s %-8s %-26s %8.2f us %s%s\n", test ? "pingpong" : "chain",
                       graphed ? "graph" : "stream", names[mode], test ? t / 2 : t,
                       test ? "(half round trip)" : "(an epoch)", hbad ? "  DATA WRONG" : "");
                for (int side = 0; side < 2; ++side)
                    if (g[side]) CK(cudaGraphExecDestroy(g[side]));
            }
        }
    }
    return 0;
}
