/* Session 25-26 experiment (not part of the build): what one mark a block
 * costs a short producer (b_coll_gpu's compute: 1024 threads a block, one
 * float a thread, two blocks an SM), alone on the GPU, 16384 and 4096
 * blocks, 32 partitions. Variants of the mark, by thread 0 unless said:
 *   none     no mark
 *   st       st.global of 1 at the block's end (mpix_part_pready_ordered)
 *   first    the same store before the block's data store (diagnostic)
 *   red      red.global.add (a reduction, no value back)
 *   cs       st.global.cs (streaming)
 *   last     lane 0 of the block's last warp
 *   own      one word (128 bytes apart) a block, no partition (diagnostic)
 *   div      st, the partition from a division by a constant power of two
 *   sync     st after __syncthreads (what a counted path does)
 *   nodiv    st to marks[0] (no division at all)
 *   redor    red.global.or.b64 of 1
 *   atomor   atomicOr of 1, the value unused (what the compiler makes of it)
 *   allst    every thread stores the mark (the thread-level ordered path)
 *   allred   every thread's red.global.or
 *   warpred  lane 0 of each warp, red.global.or
 *   divred   red.global.or, the partition by a constant division
 *   ldgst    as mpix_part_pready_ordered: the request's two fields through
 *            the read-only cache, a range check, the store
 *   ldgred   the same with red.global.or
 *   strong   st.relaxed.gpu (a strong store, as the reduction is)
 *   vol      a volatile store (st.volatile)
 *   ldgstrg  ldgst with st.relaxed.gpu (session 25's copy never stored)
 * Session 26: the partition's cost, not the mark's
 *   shift    st, the partition by a shift of a runtime count (bpp = 2^k)
 *   ldgsh    ldgst with the shift
 *   pre      st, the division computed before the block's data store
 *   ldgpre   ldgst, the loads and the division before the data store
 *   umul     st, the division by __umulhi with a magic passed in (any bpp)
 * MARKCOST_ONLY=a,b,...: only those variants (the others print 0).
 * nvcc -O3 -arch=sm_90 -o markcost markcost.cu && ./markcost */
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__device__ static inline float val(long i, int r, long it) { return (float) ((i % 7) + r + it % 3); }

enum { NONE, ST, FIRST, RED, CS, LAST, OWN, DIV, SYNC, NODIV, REDOR, ATOMOR, ALLST, ALLRED, WARPRED, DIVRED, LDGST, LDGRED, STRONG, VOL, LDGSTRONG, SHIFT, LDGSH, PRE, LDGPRE, UMUL, NV };
static const char *names[NV] = {"none", "st", "first", "red", "cs", "last", "own", "div", "sync", "nodiv",
                                "redor", "atomor", "allst", "allred", "warpred", "divred", "ldgst", "ldgred", "strong", "vol", "ldgstrg",
                                "shift", "ldgsh", "pre", "ldgpre", "umul"};

struct req { unsigned parts; uint64_t *ready; };

template <int V>
__global__ void __launch_bounds__(1024, 2) produce(float *x, int it, int bpp, uint64_t *marks, const req *q, int sh, unsigned magic)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    unsigned pp = 0, pparts = 0;
    uint64_t *pm = nullptr;
    if (V == PRE || V == LDGPRE) pp = blockIdx.x / bpp;
    if (V == LDGPRE && 0 == threadIdx.x) {
        pparts = __ldg(&q->parts);
        pm = (uint64_t *) __ldg((const unsigned long long *) &q->ready);
    }
    if (V == FIRST && 0 == threadIdx.x) marks[blockIdx.x / bpp] = 1;
    x[i] = val(i, 0, it);
    if (V == SYNC) __syncthreads();
    if (0 == threadIdx.x) {
        if (V == ST || V == SYNC) marks[blockIdx.x / bpp] = 1;
        if (V == RED) asm volatile("red.global.add.u64 [%0], 1;" ::"l"(marks + blockIdx.x / bpp) : "memory");
        if (V == CS) __stcs((unsigned long long *) marks + blockIdx.x / bpp, 1ull);
        if (V == OWN) marks[16 * blockIdx.x] = 1;
        if (V == DIV) marks[blockIdx.x / 512] = 1;
        if (V == NODIV) marks[0] = 1;
        if (V == REDOR) asm volatile("red.global.or.b64 [%0], 1;" ::"l"(marks + blockIdx.x / bpp) : "memory");
        if (V == ATOMOR) atomicOr((unsigned long long *) marks + blockIdx.x / bpp, 1ull);
        if (V == SHIFT) marks[blockIdx.x >> sh] = 1;
        if (V == PRE) marks[pp] = 1;
        if (V == UMUL) marks[__umulhi(blockIdx.x, magic)] = 1;
        if (V == LDGPRE && pp < pparts) pm[pp] = 1;
        if (V == LDGSH) {
            unsigned parts = __ldg(&q->parts), p = blockIdx.x >> sh;
            uint64_t *m = (uint64_t *) __ldg((const unsigned long long *) &q->ready);
            if (p < parts) m[p] = 1;
        }
        if (V == LDGST || V == LDGRED || V == LDGSTRONG) {
            unsigned parts = __ldg(&q->parts), p = blockIdx.x / bpp;
            uint64_t *m = (uint64_t *) __ldg((const unsigned long long *) &q->ready);
            if (p < parts) {
                if (V == LDGST) m[p] = 1;
                else if (V == LDGSTRONG) asm volatile("st.relaxed.gpu.global.u64 [%0], 1;" ::"l"(m + p) : "memory");
                else asm volatile("red.global.or.b64 [%0], 1;" ::"l"(m + p) : "memory");
            }
        }
        if (V == STRONG) asm volatile("st.relaxed.gpu.global.u64 [%0], 1;" ::"l"(marks + blockIdx.x / bpp) : "memory");
        if (V == VOL) ((volatile uint64_t *) marks)[blockIdx.x / bpp] = 1;
        if (V == DIVRED) asm volatile("red.global.or.b64 [%0], 1;" ::"l"(marks + blockIdx.x / 512) : "memory");
    }
    if (V == LAST && 1023 == threadIdx.x) marks[blockIdx.x / bpp] = 1;
    if (V == ALLST) marks[blockIdx.x / bpp] = 1;
    if (V == ALLRED) asm volatile("red.global.or.b64 [%0], 1;" ::"l"(marks + blockIdx.x / bpp) : "memory");
    if (V == WARPRED && 0 == threadIdx.x % 32)
        asm volatile("red.global.or.b64 [%0], 1;" ::"l"(marks + blockIdx.x / bpp) : "memory");
}

template <int V>
static float timeit_q(int grid, float *x, uint64_t *marks, cudaStream_t s, const req *q)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    int bpp = grid / 32, n = 200, sh = __builtin_ctz(bpp);
    /* blockIdx.x / bpp == __umulhi(blockIdx.x, magic) for blockIdx.x < 2^31, bpp a power of two */
    unsigned magic = (unsigned) ((1ull << 32) / bpp);
    for (int it = 0; it < 10; ++it) produce<V><<<grid, 1024, 0, s>>>(x, it, bpp, marks, q, sh, magic);
    cudaEventRecord(a, s);
    for (int it = 0; it < n; ++it) produce<V><<<grid, 1024, 0, s>>>(x, it, bpp, marks, q, sh, magic);
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    return 1e3f * ms / n;
}

static bool wanted(int v)
{
    const char *only = getenv("MARKCOST_ONLY");
    if (NULL == only) return true;
    char buf[256];
    snprintf(buf, sizeof(buf), ",%s,", only);
    char name[32];
    snprintf(name, sizeof(name), ",%s,", names[v]);
    return NULL != strstr(buf, name);
}

template <int V>
static float timeit(int grid, float *x, uint64_t *marks, cudaStream_t s)
{
    if (!wanted(V)) return 0;
    static req *q = nullptr;
    if (!q) {
        req h = {32, marks};
        cudaMalloc(&q, sizeof(h));
        cudaMemcpy(q, &h, sizeof(h), cudaMemcpyHostToDevice);
    }
    return timeit_q<V>(grid, x, marks, s, q);
}
int main()
{
    float *x;
    uint64_t *marks;
    cudaStream_t s;
    cudaMalloc(&x, 16384L * 1024 * 4);
    cudaMalloc(&marks, 16384L * 128 + 4096);
    cudaStreamCreate(&s);
    float t[NV][2];
    for (int round = 0; round < 2; ++round) {
        for (int g = 0; g < 2; ++g) {
            int grid = g ? 16384 : 4096;
            t[NONE][g] = timeit<NONE>(grid, x, marks, s);
            t[ST][g] = timeit<ST>(grid, x, marks, s);
            t[FIRST][g] = timeit<FIRST>(grid, x, marks, s);
            t[RED][g] = timeit<RED>(grid, x, marks, s);
            t[CS][g] = timeit<CS>(grid, x, marks, s);
            t[LAST][g] = timeit<LAST>(grid, x, marks, s);
            t[OWN][g] = timeit<OWN>(grid, x, marks, s);
            t[DIV][g] = timeit<DIV>(grid, x, marks, s);
            t[SYNC][g] = timeit<SYNC>(grid, x, marks, s);
            t[NODIV][g] = timeit<NODIV>(grid, x, marks, s);
            t[REDOR][g] = timeit<REDOR>(grid, x, marks, s);
            t[ATOMOR][g] = timeit<ATOMOR>(grid, x, marks, s);
            t[ALLST][g] = timeit<ALLST>(grid, x, marks, s);
            t[ALLRED][g] = timeit<ALLRED>(grid, x, marks, s);
            t[WARPRED][g] = timeit<WARPRED>(grid, x, marks, s);
            t[DIVRED][g] = timeit<DIVRED>(grid, x, marks, s);
            t[LDGST][g] = timeit<LDGST>(grid, x, marks, s);
            t[LDGRED][g] = timeit<LDGRED>(grid, x, marks, s);
            t[STRONG][g] = timeit<STRONG>(grid, x, marks, s);
            t[VOL][g] = timeit<VOL>(grid, x, marks, s);
            t[LDGSTRONG][g] = timeit<LDGSTRONG>(grid, x, marks, s);
            t[SHIFT][g] = timeit<SHIFT>(grid, x, marks, s);
            t[LDGSH][g] = timeit<LDGSH>(grid, x, marks, s);
            t[PRE][g] = timeit<PRE>(grid, x, marks, s);
            t[LDGPRE][g] = timeit<LDGPRE>(grid, x, marks, s);
            t[UMUL][g] = timeit<UMUL>(grid, x, marks, s);
        }
        printf("round %d (us a kernel, back to back)\n%-6s %8s %8s\n", round, "mark", "4096", "16384");
        for (int v = 0; v < NV; ++v) printf("%-6s %8.2f %8.2f\n", names[v], t[v][0], t[v][1]);
    }
    printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
