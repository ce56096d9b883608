# Adds %globaltimer stamps to copies of part_ucx_device.cu (the plugin's
# waits and starts), mpix_part_device.h (block-level MPIX_Pready with a
# kernel copy) and bench/b_stream.cu (ping, pong, the dump):
#   mktrace.py SRCDIR OUTDIR [HEADERDIR]  (mpix_part_device.h from HEADERDIR)
# Stamps are stored, never counted with atomics: slot (epoch % 1024) * 32 +
# tag of a buffer the benchmark allocates (PART_UCX_TRACE_PTR hands it to
# the plugin), each kernel writing its stamps at its end.
import sys, os
src, dst = sys.argv[1], sys.argv[2]
hdr = sys.argv[3] if len(sys.argv) > 3 else src
os.makedirs(dst, exist_ok=True)

def patch(name, subs, outname=None, base=None):
    s = open(os.path.join(base or src, name)).read()
    for old, new in subs:
        if isinstance(old, tuple):  # the first alternative the source has
            old = [o for o in old if s.count(o) == 1][0]
        assert s.count(old) == 1, (name, old[:70])
        s = s.replace(old, new)
    open(os.path.join(dst, outname or os.path.basename(name)), 'w').write(s)

NOW = r'''
#include <stdlib.h>
__constant__ unsigned long long *TRBUF;
__device__ static inline unsigned long long tr_now(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
/* a stamp taken once v is known (waits for the load that gives v) */
__device__ static inline unsigned long long tr_after(unsigned long long v)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : "l"(v));
    return t;
}
__device__ static inline void tr_put(unsigned tag, unsigned long long e, unsigned long long t)
{
    unsigned long long *b = TRBUF;
    if (b) b[(e & 1023) * 32 + tag] = t;
}
'''

patch('part_ucx_device.cu', [
    ('#include "part_ucx_device.h"\n',
     '#include "part_ucx_device.h"\n' + NOW.replace('TRBUF', 'ptr_buf') + r'''
static void ptrace_init(void)
{
    const char *s = getenv("PART_UCX_TRACE_PTR");
    if (s) {
        unsigned long long *p = (unsigned long long *) strtoull(s, NULL, 16);
        cudaMemcpyToSymbol(ptr_buf, &p, sizeof(p));
    }
}
'''),
    ('''    uint64_t e = (NULL != epoch) ? epoch[1] : value, v[PART_STARTS_MAX];
    unsigned i;
''', '''    unsigned long long t0 = tr_now(), t1, t2, t3;
    uint64_t e = (NULL != epoch) ? epoch[1] : value, v[PART_STARTS_MAX];
    unsigned i;
'''),
    ('''    while (*done < e) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(128);
#endif
    }
''', '''    t1 = tr_after(e + v[0] + v[1]);
    while (*done < e) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(128);
#endif
    }
    t2 = tr_now();
'''),
    ('''#pragma unroll
    for (i = 0; i < PART_STARTS_MAX; ++i) {
        if (i < st.n) {
            *st.addr[i] = v[i];
        }
    }
''', '''#pragma unroll
    for (i = 0; i < PART_STARTS_MAX; ++i) {
        if (i < st.n) {
            *st.addr[i] = v[i];
        }
    }
    t3 = tr_now();
'''),
    ('''            st.epoch[i][0] = v[i];
        }
    }
}''', '''            st.epoch[i][0] = v[i];
        }
    }
    {
        unsigned b = st.n ? 6 : 1;
        tr_put(b, e, t0);
        tr_put(b + 1, e, t1);
        tr_put(b + 2, e, t2);
        tr_put(b + 3, e, t3);
        tr_put(b + 4, e, tr_now());
    }
}'''),
    ('''    uint64_t e = epoch[1];
    unsigned i;

    epoch[0] = e;''', '''    unsigned long long t0 = tr_now();
    uint64_t e = epoch[1];
    unsigned i;

    epoch[0] = e;'''),
    ('''        *st.addr[i] = e;
    }
    __threadfence_system();
}''', '''        *st.addr[i] = e;
    }
    __threadfence_system();
    tr_put(11, e, t0);
    tr_put(12, e, tr_now());
}'''),
    ('''    if (!loaded) {
        loaded =''', '''    if (!loaded) {
        ptrace_init();
        loaded ='''),
])

patch('mpix_part_device.h', [
    (('''    uint64_t e;
    struct mpix_part_count_s c;
''', '''    uint64_t e, rtr = 0;
    struct mpix_part_count_s c;
'''), '''    uint64_t e, rtr = 0;
    struct mpix_part_count_s c;
    unsigned long long t0 = tr_now(), t1 = 0, t2 = 0;
'''),
    ('''        mpix_part_epoch = e;
    }
    __syncthreads();
    e = mpix_part_epoch;
    if (0 == e) {
        return 0;
    }
    if (0 == (e & MPIX_PREQUEST_MARK_HOST)) {
        mpix_part_store(preq, partition, rank, size);
    }
    __syncthreads();
    if (0 == rank) {
        mpix_part_mark(preq, partition, e);
    }
    return 0;''', '''        mpix_part_epoch = e;
        t1 = tr_after(e);
    }
    __syncthreads();
    e = mpix_part_epoch;
    if (0 == e) {
        return 0;
    }
    if (0 == (e & MPIX_PREQUEST_MARK_HOST)) {
        mpix_part_store(preq, partition, rank, size);
    }
    __syncthreads();
    if (0 == rank) {
        t2 = tr_now();
        mpix_part_mark(preq, partition, e);
        tr_put(19, e, t0);
        tr_put(20, e, t1);
        tr_put(21, e, t2);
        tr_put(22, e, tr_now());
    }
    return 0;'''),
], 'mpix_part_device.h', hdr)

patch('bench/b_stream.cu', [
    ('#include <mpix_part_device.h>\n', NOW.replace('TRBUF', 'btr_buf') + '#include <mpix_part_device.h>\n'),
    ('''{
    sbuf[threadIdx.x] = (double) epoch_at(e, ebase) + threadIdx.x;
    if (NULL != preq) MPIX_Pready(0, preq);
}''', '''{
    unsigned long long t0 = tr_now();
    int ee = epoch_at(e, ebase);
    sbuf[threadIdx.x] = (double) ee + threadIdx.x;
    if (NULL != preq) MPIX_Pready(0, preq);
    if (0 == threadIdx.x) { tr_put(24, ee, t0); tr_put(25, ee, tr_now()); }
}'''),
    ('''{
    sbuf[threadIdx.x] = rbuf[threadIdx.x] + 1.0;
    if (NULL != preq) MPIX_Pready(0, preq);
}''', '''{
    unsigned long long t0 = tr_now();
    double r = rbuf[threadIdx.x];
    sbuf[threadIdx.x] = r + 1.0;
    if (NULL != preq) MPIX_Pready(0, preq);
    if (0 == threadIdx.x) { tr_put(26, (unsigned long long) r, t0); tr_put(27, (unsigned long long) r, tr_now()); }
}'''),
    ('''    CUDA(cudaMalloc(&sbuf, N * sizeof(double)));
    CUDA(cudaMalloc(&rbuf, N * sizeof(double)));
    CUDA(cudaMalloc(&dw, sizeof(*dw)));''', '''    CUDA(cudaMalloc(&sbuf, N * sizeof(double)));
    CUDA(cudaMalloc(&rbuf, N * sizeof(double)));
    CUDA(cudaMalloc(&dw, sizeof(*dw)));
    unsigned long long *trb;
    CUDA(cudaMalloc(&trb, 1024 * 32 * 8));
    CUDA(cudaMemset(trb, 0, 1024 * 32 * 8));
    CUDA(cudaMemcpyToSymbol(btr_buf, &trb, sizeof(trb)));
    { char hx[32]; snprintf(hx, sizeof(hx), "%llx", (unsigned long long) (uintptr_t) trb);
      setenv("PART_UCX_TRACE_PTR", hx, 1); }'''),
    ('''    if (H_SENDRECV != v) {
        CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        CHECK_MPI(MPIX_Prequest_free(&preq));''', '''    {
        static unsigned long long h[1024 * 32];
        char fn[256];
        CUDA(cudaMemcpy(h, trb, sizeof(h), cudaMemcpyDeviceToHost));
        snprintf(fn, sizeof(fn), "%s/trace-%s-r%d.txt", getenv("TRACE_OUT") ? getenv("TRACE_OUT") : ".",
                 hrtt_names[v], rank);
        FILE *f = fopen(fn, "w");
        for (int i = 0; i < 1024 * 32; ++i)
            if (h[i]) fprintf(f, "%d %d %llu\\n", i / 32, i % 32, h[i]);
        fclose(f);
    }
    if (H_SENDRECV != v) {
        CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        CHECK_MPI(MPIX_Prequest_free(&preq));'''),
], 'b_stream.cu')
print("ok")
