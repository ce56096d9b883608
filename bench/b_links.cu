/* How fast kernels move large data between two GPUs, both directions at
 * once (as an allreduce's halves do), to choose how the GPU engine should
 * move 16-64 MiB, where its pulled two-shot runs the links at about 0.8x
 * the rate of NCCL's ring (bench/results/h100x4/NOTES.md):
 *   pull     dst[i] = peer_src[i]: loads over the link, as the pulled
 *            kinds read a peer's buffer
 *   push     peer_dst[i] = src[i]: stores over the link, as the pushed
 *            kinds and NCCL's ring write into a peer's memory
 *   pullsum  dst[i] = src[i] + peer_src[i] (float): a two-shot step pulled,
 *            the local load beside the remote one
 *   copy     cudaMemcpyPeerAsync both ways: the copy engines, the reference
 * Each side's kernel (`blocks` blocks of 512 threads) has `u` 16-byte
 * chunks a thread in flight (loaded before any is stored), the knob that
 * bounds the bytes a load-based move keeps on the links. Every element
 * moved is checked after the timed runs; a wrong one is reported on stderr
 * and makes the exit status 1.
 *   b_links [BYTES [BLOCKS,... [U,...]]]   (default 64 MiB; 8..132; 1,2,4)
 * Output: CSV rows links,MODE-uU,BLOCKS,2,GBPS,GB/s (GB/s a direction;
 * bench/label_table.py tabulates them after a header line), and
 * links,copy-u0,0,2,GBPS,GB/s. Compiled in CI (build:bench-compile); a
 * design probe, not part of a comparison with NCCL. */
#include "cuda_check.h" /* CUDA(): a failed call ends the program */
#include "list_arg.h"  /* bench_list_arg() */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <chrono>

enum { THREADS = 512, REPS = 10, WARM = 2, MAXU = 4 };
enum mode { PULL, PUSH, PULLSUM, NMODES };
static const char *const names[] = {"pull", "push", "pullsum"};

/* Side s's element i: small integers, exact in float and in their sums. */
__host__ __device__ static inline float pattern(int s, uint64_t i)
{
    return (float) ((i * 7 + (uint64_t) s * 3 + 1) % 1021);
}

__global__ void fill(float *p, uint64_t n, int s)
{
    for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
         i += (uint64_t) gridDim.x * blockDim.x) {
        p[i] = pattern(s, i);
    }
}

/* One side's move of n16 16-byte chunks, U of them a thread in flight. */
template <int M, int U>
__global__ void __launch_bounds__(THREADS) move(const uint4 *src, const uint4 *peer_src,
                                                uint4 *dst, uint4 *peer_dst, uint64_t n16)
{
    const uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

    for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n16;
         i += stride * U) {
        uint4 a[U], b[U];
#pragma unroll
        for (int j = 0; j < U; ++j) {
            uint64_t k = i + j * stride;
            if (k < n16) {
                a[j] = __ldcg((PUSH == M) ? src + k : peer_src + k);
                if (PULLSUM == M) {
                    b[j] = __ldcg(src + k);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < U; ++j) {
            uint64_t k = i + j * stride;
            if (k < n16) {
                if (PULLSUM == M) {
                    float4 x = *(float4 *) &a[j], y = *(float4 *) &b[j];
                    x.x += y.x;
                    x.y += y.y;
                    x.z += y.z;
                    x.w += y.w;
                    a[j] = *(uint4 *) &x;
                }
                if (PUSH == M) {
                    peer_dst[k] = a[j];
                } else {
                    dst[k] = a[j];
                }
            }
        }
    }
}

/* Elements of side s's result (in its own memory, `got`) that differ from
 * what the mode should have put there. */
__global__ void check(const float *got, uint64_t n, int s, int m, unsigned long long *bad)
{
    unsigned long long b = 0;

    for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
         i += (uint64_t) gridDim.x * blockDim.x) {
        float want = (PULLSUM == m) ? pattern(s, i) + pattern(1 - s, i) : pattern(1 - s, i);
        b += (got[i] != want);
    }
    if (0 != b) {
        atomicAdd(bad, b);
    }
}

struct gpu {
    int dev;
    cudaStream_t st;
    float *src, *dst;
    unsigned long long *bad;
};

template <int M>
static void launch_u(int u, const gpu &me, const gpu &peer, int blocks, uint64_t n16)
{
    const uint4 *s = (const uint4 *) me.src, *ps = (const uint4 *) peer.src;
    uint4 *d = (uint4 *) me.dst, *pd = (uint4 *) peer.dst;

    switch (u) {
    case 1: move<M, 1><<<blocks, THREADS, 0, me.st>>>(s, ps, d, pd, n16); break;
    case 2: move<M, 2><<<blocks, THREADS, 0, me.st>>>(s, ps, d, pd, n16); break;
    default: move<M, 4><<<blocks, THREADS, 0, me.st>>>(s, ps, d, pd, n16); break;
    }
}

/* Seconds for `reps` moves of both sides at once (mode m, or the copy
 * engines where m < 0). */
static double both(int m, int u, gpu *g, int blocks, uint64_t bytes, int reps)
{
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) {
        for (int s = 0; s < 2; ++s) {
            CUDA(cudaSetDevice(g[s].dev));
            if (m < 0) {
                CUDA(cudaMemcpyPeerAsync(g[s].dst, g[s].dev, g[1 - s].src, g[1 - s].dev, bytes,
                                         g[s].st));
            } else if (PULL == m) {
                launch_u<PULL>(u, g[s], g[1 - s], blocks, bytes / 16);
            } else if (PUSH == m) {
                launch_u<PUSH>(u, g[s], g[1 - s], blocks, bytes / 16);
            } else {
                launch_u<PULLSUM>(u, g[s], g[1 - s], blocks, bytes / 16);
            }
            CUDA(cudaGetLastError());
        }
    }
    for (int s = 0; s < 2; ++s) {
        CUDA(cudaSetDevice(g[s].dev));
        CUDA(cudaStreamSynchronize(g[s].st));
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/* Wrong elements of the last move of mode m (copy: m < 0), both sides;
 * the results are cleared for the next row. */
static unsigned long long verify(int m, gpu *g, uint64_t n)
{
    unsigned long long bad = 0, b;

    for (int s = 0; s < 2; ++s) {
        CUDA(cudaSetDevice(g[s].dev));
        CUDA(cudaMemset(g[s].bad, 0, sizeof(b)));
        check<<<264, THREADS, 0, g[s].st>>>(g[s].dst, n, s, (m < 0) ? PULL : m, g[s].bad);
        CUDA(cudaGetLastError());
        CUDA(cudaMemcpyAsync(&b, g[s].bad, sizeof(b), cudaMemcpyDeviceToHost, g[s].st));
        CUDA(cudaStreamSynchronize(g[s].st));
        CUDA(cudaMemsetAsync(g[s].dst, 0, n * sizeof(float), g[s].st));
        bad += b;
    }
    return bad;
}

static int row(int m, int u, gpu *g, int blocks, uint64_t bytes)
{
    unsigned long long bad;
    double sec;

    (void) both(m, u, g, blocks, bytes, WARM);
    sec = both(m, u, g, blocks, bytes, REPS);
    printf("links,%s-u%d,%d,2,%.1f,GB/s\n", (m < 0) ? "copy" : names[m], u, blocks,
           (double) bytes * REPS / sec / 1e9);
    fflush(stdout);
    if (0 != (bad = verify(m, g, bytes / sizeof(float)))) {
        fprintf(stderr, "b_links: %s, u %d, %d blocks: %llu elements wrong\n",
                (m < 0) ? "copy" : names[m], u, blocks, bad);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t bytes = 64ull << 20, blocks_v[32] = {8, 16, 32, 64, 132}, u_v[8] = {1, 2, 4};
    int nblocks = 5, nu = 3, ndev = 0, s, m, bi, ui, rc = 0;
    gpu g[2];

    if (argc > 1) bytes = strtoull(argv[1], NULL, 0);
    if (argc > 2) nblocks = bench_list_arg(argv[2], blocks_v, 32);
    if (argc > 3) nu = bench_list_arg(argv[3], u_v, 8);
    bytes = (bytes + 15) & ~(uint64_t) 15;
    CUDA(cudaGetDeviceCount(&ndev));
    if (ndev < 2) {
        fprintf(stderr, "b_links: needs two GPUs (found %d)\n", ndev);
        return 2;
    }
    for (s = 0; s < 2; ++s) {
        int can = 0;
        g[s].dev = s;
        CUDA(cudaSetDevice(s));
        CUDA(cudaDeviceCanAccessPeer(&can, s, 1 - s));
        if (!can) {
            fprintf(stderr, "b_links: GPU %d cannot map GPU %d\n", s, 1 - s);
            return 2;
        }
        CUDA(cudaDeviceEnablePeerAccess(1 - s, 0));
        CUDA(cudaStreamCreateWithFlags(&g[s].st, cudaStreamNonBlocking));
        CUDA(cudaMalloc(&g[s].src, bytes));
        CUDA(cudaMalloc(&g[s].dst, bytes));
        CUDA(cudaMalloc(&g[s].bad, sizeof(*g[s].bad)));
        CUDA(cudaMemset(g[s].dst, 0, bytes));
        fill<<<264, THREADS, 0, g[s].st>>>(g[s].src, bytes / sizeof(float), s);
        CUDA(cudaGetLastError());
        CUDA(cudaStreamSynchronize(g[s].st));
    }
    printf("# b_links: GPUs 0 and 1, both directions at once, %llu bytes a direction, %d "
           "threads a block, %d moves a row\n", (unsigned long long) bytes, THREADS, REPS);
    rc |= row(-1, 0, g, 0, bytes);
    for (m = 0; m < NMODES; ++m) {
        for (bi = 0; bi < nblocks; ++bi) {
            for (ui = 0; ui < nu; ++ui) {
                int u = (int) u_v[ui];
                if (blocks_v[bi] < 1 || blocks_v[bi] > 1024 || (1 != u && 2 != u && MAXU != u)) {
                    continue;
                }
                rc |= row(m, u, g, (int) blocks_v[bi], bytes);
            }
        }
    }
    return rc;
}
