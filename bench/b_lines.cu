/* How the GPU engine could carry its flags across GPUs: three protocols
 * for an exchange of B bytes between two sides, measured alone (no MPI,
 * no launch per epoch), to choose how mid-size allreduces (64 KiB-1 MiB,
 * where the engine takes 1.3-1.4x NCCL's time across GPUs) should move:
 *   ll      the engine's push: 16-byte lines of 8 data bytes, the epoch's
 *           low 32 bits beside each 4 (NCCL's LL); relies only on 8-byte
 *           stores arriving whole
 *   ll128   128-byte lines of 120 data bytes and an 8-byte flag, stored by
 *           8 threads of one warp in one instruction (NCCL's LL128); relies
 *           on the link delivering the warp's 128-byte store whole, which
 *           no document promises (NCCL enables it by architecture): every
 *           element received is checked, so a torn line counts as an error
 *   bulk    the engine's bulk push: plain 16-byte stores of a block's
 *           chunk, a system-scope release, one flag a block
 * One persistent kernel a side (side 0 on GPU 0, side 1 on GPU 1, or both
 * on GPU 0 where there is one GPU), `blocks` blocks of 512 threads, runs
 * E epochs: store this side's B bytes of epoch e into the peer's buffer
 * of parity e % 2, wait for the peer's of e here, check every element.
 * Buffers of parity e % 2 are written again in e + 2, which the writer
 * reaches only after it saw the reader's e + 1, stored after the reader
 * checked e. The time an epoch is the exchange's: one trip each way,
 * overlapped, plus the checks.
 *   b_lines [BYTES,... [BLOCKS,...]]   (default 4096..1048576, 1..64)
 * Output: CSV rows lines,PROTO-bBLOCKS,BYTES,2,US,us (us an epoch;
 * bench/label_table.py tabulates them after a header line); a row whose
 * data arrived wrong also says so on stderr, and the exit status is 1.
 * Compiled in CI (build:bench-compile); a design probe, not part of a
 * comparison with NCCL. */
#include "cuda_check.h" /* CUDA(): a failed call ends the program */
#include "list_arg.h"  /* bench_list_arg() */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <chrono>

enum { THREADS = 512, EPOCHS = 2000, WARM = 100 };
enum proto { LL, LL128, BULK };
static const char *const names[] = {"ll", "ll128", "bulk"};

/* 64-bit element i of side s's data in epoch e (32-bit halves for ll) */
__device__ static inline uint64_t want(int s, uint64_t e, uint64_t i)
{
    uint64_t v = (i + 1) * 0x9E3779B97F4A7C15ull ^ (e << 20) ^ ((uint64_t) s << 62);
    return v ^ (v >> 29);
}

struct side {
    char *mine;          /* where the peer stores (this side's GPU), two parities */
    char *peer;          /* the peer's, mapped */
    uint64_t bytes;      /* data bytes an epoch */
    uint64_t span;       /* bytes of one parity in the buffers */
    int s;               /* 0 or 1 */
    unsigned long long *errors;
};

/* Each proto's buffer bytes for `bytes` of data, one parity. */
static uint64_t span_of(int p, uint64_t bytes, int blocks)
{
    uint64_t lines128 = (bytes / 8 + 14) / 15;
    switch (p) {
    case LL: return 2 * bytes;
    case LL128: return 128 * lines128;
    default: return bytes + 128 * (uint64_t) blocks; /* data, then a flag line a block */
    }
}

__device__ static inline void st_v4(volatile uint32_t *p, uint32_t a, uint32_t b, uint32_t c,
                                    uint32_t d)
{
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(a), "r"(b),
                 "r"(c), "r"(d)
                 : "memory");
}

__device__ static inline void ld_v4(const volatile uint32_t *p, uint32_t *v)
{
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                 : "l"(p)
                 : "memory");
}

__device__ static inline void st_v2(volatile uint64_t *p, uint64_t a, uint64_t b)
{
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}

__device__ static inline void ld_v2(const volatile uint64_t *p, uint64_t *a, uint64_t *b)
{
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                 : "=l"(*a), "=l"(*b)
                 : "l"(p)
                 : "memory");
}

/* ll: 8 data bytes a 16-byte line, {lo, e, hi, e}. */
__device__ static void run_ll(const side &x, uint64_t e, unsigned long long &bad)
{
    uint64_t n = x.bytes / 8, par = (e & 1) * x.span, i;
    uint32_t tag = (uint32_t) e;
    volatile uint32_t *out = (volatile uint32_t *) (x.peer + par);
    const volatile uint32_t *in = (const volatile uint32_t *) (x.mine + par);

    for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uint64_t v = want(x.s, e, i);
        st_v4(out + 4 * i, (uint32_t) v, tag, (uint32_t) (v >> 32), tag);
    }
    for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uint32_t v[4];
        do {
            ld_v4(in + 4 * i, v);
        } while (v[1] != tag || v[3] != tag);
        bad += ((((uint64_t) v[2] << 32) | v[0]) != want(1 - x.s, e, i));
    }
}

/* ll128: lines of 16 words, word 15 the flag; 8 threads a line, 4 lines a
 * warp; a warp reloads all its lines until every flag shows the epoch. */
__device__ static void run_ll128(const side &x, uint64_t e, unsigned long long &bad)
{
    uint64_t n = x.bytes / 8, lines = (n + 14) / 15, par = (e & 1) * x.span;
    unsigned lane = threadIdx.x & 31, sub = lane & 7;
    uint64_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    uint64_t warps = (uint64_t) gridDim.x * blockDim.x / 32, l;
    volatile uint64_t *out = (volatile uint64_t *) (x.peer + par);
    const volatile uint64_t *in = (const volatile uint64_t *) (x.mine + par);

    /* every lane of a warp runs the same trips (the loop's bound is the
     * warp's), so that __any_sync sees all 32 */
    for (l = warp * 4; l < lines; l += warps * 4) {
        uint64_t line = l + lane / 8, w = line * 15 + 2 * sub;
        if (line < lines) {
            uint64_t a = (w < n) ? want(x.s, e, w) : 0;
            uint64_t b = (7 == sub) ? e : ((w + 1 < n) ? want(x.s, e, w + 1) : 0);
            st_v2(out + 16 * line + 2 * sub, a, b);
        }
    }
    for (l = warp * 4; l < lines; l += warps * 4) {
        uint64_t line = l + lane / 8, w = line * 15 + 2 * sub, a = 0, b = e;
        bool wait;
        do {
            if (line < lines) {
                ld_v2(in + 16 * line + 2 * sub, &a, &b);
            }
            wait = line < lines && 7 == sub && b != e;
        } while (__any_sync(0xffffffffu, wait));
        if (line < lines) {
            bad += (w < n && a != want(1 - x.s, e, w));
            bad += (7 != sub && w + 1 < n && b != want(1 - x.s, e, w + 1));
        }
    }
}

/* bulk: block k stores its chunk, releases, sets its flag (the first word
 * of its line after the data); the peer's block k waits for that flag. */
__device__ static void run_bulk(const side &x, uint64_t e, unsigned long long &bad)
{
    uint64_t n = x.bytes / 8, per = (n + gridDim.x - 1) / gridDim.x, par = (e & 1) * x.span;
    uint64_t lo = blockIdx.x * per, hi = (lo + per < n) ? lo + per : n, i;
    uint64_t *out = (uint64_t *) (x.peer + par);
    const uint64_t *in = (const uint64_t *) (x.mine + par);
    volatile uint64_t *flag_out = (volatile uint64_t *) (x.peer + par + x.bytes) + 16 * blockIdx.x;
    const volatile uint64_t *flag_in =
        (const volatile uint64_t *) (x.mine + par + x.bytes) + 16 * blockIdx.x;

    for (i = lo + threadIdx.x; i < hi; i += blockDim.x) {
        out[i] = want(x.s, e, i);
    }
    __syncthreads();
    if (0 == threadIdx.x) {
        __threadfence_system(); /* the block's stores (cumulative after the barrier) */
        *flag_out = e;
        while (*flag_in != e) {
        }
        __threadfence_system();
    }
    __syncthreads();
    for (i = lo + threadIdx.x; i < hi; i += blockDim.x) {
        bad += (__ldcg(in + i) != want(1 - x.s, e, i));
    }
}

template <int P>
__global__ void __launch_bounds__(THREADS) exchange(side x, uint64_t first, int epochs)
{
    unsigned long long bad = 0;
    for (uint64_t e = first; e < first + (uint64_t) epochs; ++e) {
        if (P == LL) run_ll(x, e, bad);
        else if (P == LL128) run_ll128(x, e, bad);
        else run_bulk(x, e, bad);
        __syncthreads(); /* the block's checks of e before its stores of e + 1 */
    }
    if (0 != bad) atomicAdd(x.errors, bad);
}

/* Runs both sides for `epochs` from `first`; returns the seconds. */
static double both(int p, side x[2], int dev[2], cudaStream_t st[2], int blocks, uint64_t first,
                   int epochs)
{
    auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < 2; ++s) {
        CUDA(cudaSetDevice(dev[s]));
        if (LL == p) exchange<LL><<<blocks, THREADS, 0, st[s]>>>(x[s], first, epochs);
        else if (LL128 == p) exchange<LL128><<<blocks, THREADS, 0, st[s]>>>(x[s], first, epochs);
        else exchange<BULK><<<blocks, THREADS, 0, st[s]>>>(x[s], first, epochs);
        CUDA(cudaGetLastError());
    }
    for (int s = 0; s < 2; ++s) {
        CUDA(cudaSetDevice(dev[s]));
        CUDA(cudaStreamSynchronize(st[s]));
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char **argv)
{
    uint64_t sizes[32] = {4096, 16384, 65536, 262144, 1048576}, blocks_v[32] = {1, 4, 16, 32, 64};
    int nsizes = 5, nblocks = 5, ndev = 0, dev[2], s, p, si, bi, rc = 0;
    cudaStream_t st[2];
    side x[2];
    char *buf[2];
    unsigned long long *err[2];
    uint64_t epoch = 1, maxspan = 0;

    if (argc > 1) nsizes = bench_list_arg(argv[1], sizes, 32);
    if (argc > 2) nblocks = bench_list_arg(argv[2], blocks_v, 32);
    CUDA(cudaGetDeviceCount(&ndev));
    dev[0] = 0;
    dev[1] = (ndev > 1) ? 1 : 0;
    for (si = 0; si < nsizes; ++si) {
        sizes[si] = (sizes[si] + 15) & ~(uint64_t) 15;
        for (p = 0; p < 3; ++p) {
            uint64_t sp = span_of(p, sizes[si], 64);
            maxspan = (sp > maxspan) ? sp : maxspan;
        }
    }
    for (s = 0; s < 2; ++s) {
        CUDA(cudaSetDevice(dev[s]));
        if (dev[0] != dev[1]) {
            int can = 0;
            CUDA(cudaDeviceCanAccessPeer(&can, dev[s], dev[1 - s]));
            if (!can) {
                fprintf(stderr, "b_lines: GPU %d cannot map GPU %d\n", dev[s], dev[1 - s]);
                return 2;
            }
            CUDA(cudaDeviceEnablePeerAccess(dev[1 - s], 0));
        }
        CUDA(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
        CUDA(cudaMalloc(&buf[s], 2 * maxspan));
        CUDA(cudaMemset(buf[s], 0, 2 * maxspan));
        CUDA(cudaMalloc(&err[s], sizeof(**err)));
        CUDA(cudaMemset(err[s], 0, sizeof(**err)));
    }
    printf("# b_lines: sides on GPU %d and GPU %d, %d threads a block, %d epochs a row\n", dev[0],
           dev[1], THREADS, EPOCHS);
    for (si = 0; si < nsizes; ++si) {
        for (bi = 0; bi < nblocks; ++bi) {
            int blocks = (int) blocks_v[bi];
            if (blocks < 1 || blocks > 64) continue;
            for (p = 0; p < 3; ++p) {
                unsigned long long bad[2] = {0, 0};
                for (s = 0; s < 2; ++s) {
                    x[s].mine = buf[s];
                    x[s].peer = buf[1 - s];
                    x[s].bytes = (LL128 == p) ? sizes[si] / 8 * 8 : sizes[si];
                    x[s].span = span_of(p, sizes[si], 64);
                    x[s].s = s;
                    x[s].errors = err[s];
                }
                /* epochs keep counting across rows: a buffer's old flags
                 * never show a later epoch */
                both(p, x, dev, st, blocks, epoch, WARM);
                epoch += WARM;
                double sec = both(p, x, dev, st, blocks, epoch, EPOCHS);
                epoch += EPOCHS;
                for (s = 0; s < 2; ++s) {
                    CUDA(cudaSetDevice(dev[s]));
                    CUDA(cudaMemcpy(&bad[s], err[s], sizeof(bad[s]), cudaMemcpyDeviceToHost));
                    CUDA(cudaMemset(err[s], 0, sizeof(**err)));
                }
                printf("lines,%s-b%d,%llu,2,%.3f,us\n", names[p], blocks,
                       (unsigned long long) sizes[si], sec * 1e6 / EPOCHS);
                fflush(stdout);
                if (0 != bad[0] + bad[1]) {
                    fprintf(stderr, "b_lines: %s, %d blocks, %llu bytes: %llu elements wrong\n",
                            names[p], blocks, (unsigned long long) sizes[si], bad[0] + bad[1]);
                    rc = 1;
                }
            }
        }
    }
    return rc;
}
