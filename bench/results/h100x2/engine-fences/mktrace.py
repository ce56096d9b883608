# Apply the globaltimer trace to part_ucx_device_coll.h: mktrace.py IN OUT
import sys
src, dst = sys.argv[1], sys.argv[2]
s = open(src).read()
def sub(old, new):
    global s
    assert s.count(old) == 1, old[:80]
    s = s.replace(old, new)
sub("#define GCOLL_THREADS 512\n", """#define GCOLL_THREADS 512
#include <stdio.h>
#include <stdlib.h>
__device__ unsigned long long gtr_lo = ~0ull, gtr_hi = 0;
__device__ static inline unsigned long long gnow(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
""")
sub("""    __shared__ uint64_t epoch;
    uint64_t e, k, off, u0, u1, len;
""", """    __shared__ uint64_t epoch;
    __shared__ unsigned long long ts[8];
    uint64_t e, k, off, u0, u1, len;
    if (0 == threadIdx.x) ts[0] = gnow();
""")
sub("""    e = epoch;
    for (k = blockIdx.x; k < a.units; k += gridDim.x) {
        len = gcoll_unit(a, k, &off, &u0, &u1);
        if (gcoll_readies(a)) {
            gcoll_own_ready(a, u0, u1, e);
        }
        gcoll_peers_ready(a, u0, u1, e);
        __syncthreads();
        gcoll_move<T>(a, off, len);
        __syncthreads();
        gcoll_tell(a, k, e);
        if (!gcoll_done_late(a)) {
            gcoll_done(a, k, e, true);
        }
        __syncthreads(); /* the unit's shared state before the next one */
    }
    for (k = blockIdx.x; k < a.units; k += gridDim.x) {
        gcoll_finish(a, k, e);
    }
    __syncthreads();
""", """    e = epoch;
    if (0 == threadIdx.x) ts[1] = gnow();
    for (k = blockIdx.x; k < a.units; k += gridDim.x) {
        len = gcoll_unit(a, k, &off, &u0, &u1);
        if (gcoll_readies(a)) {
            gcoll_own_ready(a, u0, u1, e);
        }
        __syncthreads();
        if (0 == threadIdx.x && k == blockIdx.x) ts[2] = gnow();
        gcoll_peers_ready(a, u0, u1, e);
        __syncthreads();
        if (0 == threadIdx.x && k == blockIdx.x) ts[3] = gnow();
        gcoll_move<T>(a, off, len);
        __syncthreads();
        if (0 == threadIdx.x && k == blockIdx.x) ts[4] = gnow();
        gcoll_tell(a, k, e);
        if (!gcoll_done_late(a)) {
            gcoll_done(a, k, e, true);
        }
        __syncthreads(); /* the unit's shared state before the next one */
        if (0 == threadIdx.x && k == blockIdx.x) ts[5] = gnow();
    }
    for (k = blockIdx.x; k < a.units; k += gridDim.x) {
        gcoll_finish(a, k, e);
    }
    __syncthreads();
    if (0 == threadIdx.x) ts[6] = gnow();
""")
sub("""            *a.finished = e;
""", """            *a.finished = e;
            if (e >= gtr_lo && e <= gtr_hi) printf("GL %d %llu %llu\\n", a.me, (unsigned long long) e, gnow());
""")
i = s.index("template <typename T>\nstatic int gcoll_launch")
k = s.rindex("    }\n}\n", 0, i)
s = s[:k] + """        if (e >= gtr_lo && e <= gtr_hi) {
            ts[7] = gnow();
            printf("GT %d %llu %d %llu %llu %llu %llu %llu %llu %llu %llu u%llu ub%llu\\n", a.me, (unsigned long long) e, blockIdx.x, ts[0], ts[1], ts[2], ts[3], ts[4], ts[5], ts[6], ts[7], (unsigned long long) a.units, (unsigned long long) a.unit_bytes);
        }
""" + s[k:]
sub("""    part_gcoll<T><<<blocks, GCOLL_THREADS, 0, (cudaStream_t) stream>>>(dev, epoch, epoch_word);""",
"""    static int tr_init;
    if (!tr_init) {
        tr_init = 1;
        if (getenv("GCOLL_TRACE_LO")) {
            unsigned long long lo = strtoull(getenv("GCOLL_TRACE_LO"), NULL, 0),
                               hi = strtoull(getenv("GCOLL_TRACE_HI"), NULL, 0);
            cudaMemcpyToSymbol(gtr_lo, &lo, sizeof(lo));
            cudaMemcpyToSymbol(gtr_hi, &hi, sizeof(hi));
        }
    }
    part_gcoll<T><<<blocks, GCOLL_THREADS, 0, (cudaStream_t) stream>>>(dev, epoch, epoch_word);""")
open(dst, 'w').write(s)
