/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The GPU engine's pushed protocols: each rank stores its data into the
 * peers' windows (part_ucx_device.h), with the epoch beside it or a flag
 * after it, and reduces what the peers stored into its own. CUDA code,
 * included by part_ucx_device_coll.h only (after the words, the steps,
 * gcoll_reduce, gcoll_copy and gcoll_cut).
 */

/* Push allreduce (small data). A rank stores its 8-byte lines into every
 * peer's window, each half beside the epoch's low 32 bits in one 16-byte
 * store (a half reaches the peer whole: NCCL's LL lines), waits for the
 * peers' lines, both flags of each, and reduces in rank order. No release
 * and no word saying the data was read: a flag travels with its data, and
 * the lines of epoch e are written again only in epoch e + 2 (e + 1 uses
 * the other half), whose kernel on the writer comes after its kernel of
 * e + 1, which waited for this rank's lines of e + 1, which this rank
 * wrote after its kernel of e, the one reading them, ended: each rank's
 * kernels run one after the other on the collective's stream. */
__device__ static inline uint4 *gcoll_lines(const mca_part_ucx_gcoll_args_t &a, int owner,
                                            int writer, uint64_t e)
{
    uint64_t lines = a.user_parts * a.user_bytes / 8;

    return (uint4 *) ((char *) a.win[owner] + a.push_off) + ((e & 1) * a.n + writer) * lines;
}

__device__ static inline void gcoll_line_store(uint4 *p, uint64_t v, unsigned flag)
{
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};"
                 :: "l"(p), "r"((unsigned) v), "r"(flag), "r"((unsigned) (v >> 32)), "r"(flag)
                 : "memory");
}

__device__ static inline uint64_t gcoll_line_wait(const uint4 *p, unsigned flag)
{
    unsigned lo, f0, hi, f1;

    do {
        asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(lo), "=r"(f0), "=r"(hi), "=r"(f1) : "l"(p) : "memory");
    } while (f0 != flag || f1 != flag);
    return (uint64_t) hi << 32 | lo;
}

/* The lines of [off, off + len) (a multiple of 8 bytes): this rank's to
 * the peers, then the sum over the ranks into the result. A thread takes
 * the same lines in both loops, so in place its own data is read before
 * its result overwrites it. */
template <typename T>
__device__ static __noinline__ void gcoll_push(const mca_part_ucx_gcoll_args_t &a, uint64_t off,
                                               uint64_t len, uint64_t e)
{
    const uint64_t *own = (const uint64_t *) (a.src[a.me] + off);
    uint64_t *dst = (uint64_t *) (a.dst[a.me] + off);
    uint64_t lines = len / 8, first = off / 8, i;
    unsigned flag = (unsigned) e;
    int r;

    for (i = threadIdx.x; i < lines; i += blockDim.x) {
        uint64_t v = __ldcg(own + i);
        for (r = 0; r < a.n; ++r) {
            if (r != a.me) {
                gcoll_line_store(gcoll_lines(a, r, a.me, e) + first + i, v, flag);
            }
        }
    }
    for (i = threadIdx.x; i < lines; i += blockDim.x) {
        uint64_t acc = 0, in;
        for (r = 0; r < a.n; ++r) {
            in = (r == a.me) ? __ldcg(own + i)
                             : gcoll_line_wait(gcoll_lines(a, a.me, r, e) + first + i, flag);
            acc = (0 == r) ? in : gcoll_apply8<T>(a.op, acc, in);
        }
        dst[i] = acc;
    }
}

/* The flag of the writer's unit k in the owner's window (a bulk push has
 * no consumed words: their place serves). */
__device__ static inline volatile uint64_t *gcoll_bulk_flag(const mca_part_ucx_gcoll_args_t &a,
                                                            int owner, int writer, uint64_t k)
{
    return gcoll_consumed(a, owner, writer, k);
}

/* After the caller's barrier, one thread a peer r: a release of the
 * block's stores into r's memory (cumulative after the barrier), this
 * rank's flag of unit k there (Word(a, r, me, k)), then the wait for r's
 * flag here (Word(a, me, r, k)). */
template <volatile uint64_t *(*Word)(const mca_part_ucx_gcoll_args_t &, int, int, uint64_t)>
__device__ static inline void gcoll_flags(const mca_part_ucx_gcoll_args_t &a, uint64_t k,
                                          uint64_t e)
{
    int r = (int) threadIdx.x;

    if (r < a.n && r != a.me) {
        gcoll_fence(a);
        *Word(a, r, a.me, k) = e;
        while (gcoll_acquire(a.gpu_scope, Word(a, a.me, r, k)) < e) {
            gcoll_nap();
        }
    }
}

/* Bulk push allreduce. A rank copies its unit k into every peer's window
 * (the copy of epoch e % 2 of this writer), then, after a release, sets
 * its flag of k there to e; it waits for every peer's flag of k in its own
 * window and reduces, in rank order, its own data and the peers' copies,
 * all in its GPU's memory. One release a unit instead of a 16-byte line
 * per 8 bytes (gcoll_push), and no word saying the data was read: the
 * copies of epoch e are written again only in epoch e + 2, whose kernel
 * on the writer comes after its kernel of e + 1, which waited for this
 * rank's flags of e + 1, which this rank set after its kernel of e (the
 * one reading the copies) ended. In place, the own data is copied out
 * before the barrier after which its result overwrites it. */
template <typename T>
__device__ static inline void gcoll_bulk(const mca_part_ucx_gcoll_args_t &a, uint64_t k,
                                         uint64_t off, uint64_t len, uint64_t e)
{
    int r;

    for (r = 0; r < a.n; ++r) {
        if (r != a.me) {
            gcoll_copy(gcoll_copy_of(a, r, a.me, e) + off, a.src[a.me] + off, len);
        }
    }
    __syncthreads();
    gcoll_flags<gcoll_bulk_flag>(a, k, e); /* the copies into r's window, then r's here */
    __syncthreads();
    gcoll_reduce<T, GCOLL_SRC_COPIES>(a, off, 0, len / sizeof(T), a.dst[a.me], false, e);
}

/* LL128 bulk push (a.ll128: every pair of the ranks' GPUs linked by
 * NVLink). A rank stores its unit k into every peer's window as 128-byte
 * lines of 15 data words and the epoch, each line by 8 threads of a warp
 * in one instruction, which NVLink delivers whole (NCCL's LL128), then
 * waits for the peers' lines of k, the flag of each, and reduces in rank
 * order: the bulk push's one trip, without its release (a system-scope
 * fence takes microseconds) or its flag's separate store and acquire, for
 * 1/15 more bytes. A line's words are read and written by the same
 * thread in both loops (in place: its own data is read before its result
 * overwrites it), and a warp's lanes run the same trips, so that
 * __any_sync sees all 32. The lines of epoch e are written again only in
 * epoch e + 2, as the bulk push's copies (gcoll_bulk). */
__device__ static inline volatile uint64_t *gcoll_lines128(const mca_part_ucx_gcoll_args_t &a,
                                                           int owner, int writer, uint64_t e,
                                                           uint64_t k)
{
    uint64_t per_unit = MCA_PART_UCX_LINES_OF(a.unit_bytes);

    return (volatile uint64_t *) ((char *) a.win[owner] + a.push_off) +
           (((e & 1) * a.n + writer) * a.units + k) * per_unit * 16;
}

/* Word w (8 bytes) of the `len` bytes at p, zero past them; a word that
 * `len` cuts holds whole elements, loaded one by one. */
template <typename T>
__device__ static inline uint64_t gcoll_word(const char *p, uint64_t len, uint64_t w)
{
    union {
        uint64_t v;
        T x[8 / sizeof(T)];
    } u;

    if (8 * (w + 1) <= len) {
        return __ldcg((const uint64_t *) p + w);
    }
    u.v = 0;
    for (uint64_t i = 0; 8 * w + i * sizeof(T) < len; ++i) {
        u.x[i] = __ldcg((const T *) (p + 8 * w) + i);
    }
    return u.v;
}

template <typename T>
__device__ static inline void gcoll_word_store(char *p, uint64_t len, uint64_t w, uint64_t v)
{
    union {
        uint64_t v;
        T x[8 / sizeof(T)];
    } u;

    if (8 * (w + 1) <= len) {
        ((uint64_t *) p)[w] = v;
        return;
    }
    u.v = v;
    for (uint64_t i = 0; 8 * w + i * sizeof(T) < len; ++i) {
        ((T *) (p + 8 * w))[i] = u.x[i];
    }
}

/* Lines of `len` bytes: 15 data words (8 bytes) and the flag each. Lane
 * `sub` (0-7) of a line holds its words 2 sub and 2 sub + 1 (lane 7: word
 * 14 and the flag). */
__device__ static inline uint64_t gcoll_lines_of(uint64_t len)
{
    return MCA_PART_UCX_LINES_OF(len);
}

/* The lane's 16 bytes of line `line` of the `len` bytes at src. */
template <typename T>
__device__ static inline void gcoll_line_words(const char *src, uint64_t len, uint64_t line,
                                               unsigned sub, uint64_t flag, uint64_t *v0,
                                               uint64_t *v1)
{
    uint64_t w = line * 15 + 2 * sub;

    *v0 = gcoll_word<T>(src, len, w);
    *v1 = (7 == sub) ? flag : gcoll_word<T>(src, len, w + 1);
}

/* The lane's data words of line `line` into the `len` bytes at dst. */
template <typename T>
__device__ static inline void gcoll_line_out(char *dst, uint64_t len, uint64_t line, unsigned sub,
                                             uint64_t v0, uint64_t v1)
{
    uint64_t w = line * 15 + 2 * sub;

    if (8 * w < len) {
        gcoll_word_store<T>(dst, len, w, v0);
        if (7 != sub && 8 * (w + 1) < len) {
            gcoll_word_store<T>(dst, len, w + 1, v1);
        }
    }
}

/* The lane's 16 bytes of line `line` at p (a peer's window). The caller
 * rejoins the warp first (__syncwarp): a line is whole only as one store
 * of its 8 lanes, and a lane that took a cut word's branch could store
 * apart from the others. */
__device__ static inline void gcoll_line_put(volatile uint64_t *p, uint64_t line, unsigned sub,
                                             uint64_t v0, uint64_t v1)
{
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};"
                 :: "l"(p + 16 * line + 2 * sub), "l"(v0), "l"(v1) : "memory");
}

/* The lane's 16 bytes of line `line` (of `lines`) at p (this rank's
 * window) once the line's flag shows e. Every lane of the warp calls it
 * with the same trips: the line's 8 loads as one (__syncwarp), and the
 * warp reloads until every flag it waits for shows e (__any_sync). */
__device__ static inline void gcoll_line_get(const volatile uint64_t *p, uint64_t line,
                                             uint64_t lines, unsigned sub, uint64_t e,
                                             uint64_t *v0, uint64_t *v1)
{
    uint64_t x0 = *v0, x1 = *v1;
    bool wait;

    do {
        __syncwarp();
        if (line < lines) {
            asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                         : "=l"(x0), "=l"(x1) : "l"(p + 16 * line + 2 * sub) : "memory");
        }
        wait = line < lines && 7 == sub && x1 != e;
    } while (__any_sync(0xffffffffu, wait));
    *v0 = x0;
    *v1 = x1;
}

/* The lane's 16 bytes of line `line` (of `lines`) reduced in rank order:
 * its own (mine0, mine1) and each peer r's from the lines at from(r) in
 * this rank's window, as they come (gcoll_line_get). */
template <typename T, typename From>
__device__ static inline void gcoll_line_reduce(const mca_part_ucx_gcoll_args_t &a, From from,
                                                uint64_t line, uint64_t lines, unsigned sub,
                                                uint64_t e, uint64_t mine0, uint64_t mine1,
                                                uint64_t *acc0, uint64_t *acc1)
{
    for (int r = 0; r < a.n; ++r) {
        uint64_t in0 = mine0, in1 = mine1;
        if (r != a.me) {
            gcoll_line_get(from(r), line, lines, sub, e, &in0, &in1);
        }
        *acc0 = (0 == r) ? in0 : gcoll_apply8<T>(a.op, *acc0, in0);
        *acc1 = (0 == r) ? in1 : gcoll_apply8<T>(a.op, *acc1, in1);
    }
}

template <typename T>
__device__ static __noinline__ void gcoll_bulk128(const mca_part_ucx_gcoll_args_t &a, uint64_t k,
                                                  uint64_t off, uint64_t len, uint64_t e)
{
    const char *own = a.src[a.me] + off;
    char *dst = a.dst[a.me] + off;
    uint64_t lines = gcoll_lines_of(len), warp = threadIdx.x / 32, warps = blockDim.x / 32, l;
    unsigned sub = threadIdx.x & 7;
    int r;

    for (l = warp * 4; l < lines; l += warps * 4) {
        uint64_t line = l + (threadIdx.x & 31) / 8, v0 = 0, v1 = e;
        if (line < lines) {
            gcoll_line_words<T>(own, len, line, sub, e, &v0, &v1);
        }
        __syncwarp();
        for (r = 0; r < a.n; ++r) {
            if (r != a.me && line < lines) {
                gcoll_line_put(gcoll_lines128(a, r, a.me, e, k), line, sub, v0, v1);
            }
        }
    }
    for (l = warp * 4; l < lines; l += warps * 4) {
        uint64_t line = l + (threadIdx.x & 31) / 8, mine0 = 0, mine1 = 0, acc0 = 0, acc1 = 0;
        if (line < lines) {
            gcoll_line_words<T>(own, len, line, sub, 0, &mine0, &mine1);
        }
        gcoll_line_reduce<T>(
            a, [&](int r) { return gcoll_lines128(a, a.me, r, e, k); }, line, lines, sub, e,
            mine0, mine1, &acc0, &acc1);
        if (line < lines) {
            gcoll_line_out<T>(dst, len, line, sub, acc0, acc1);
        }
    }
}

/* Two-shot in lines (a.ll128 with MCA_PART_UCX_GCOLL_ALLREDUCE2): NCCL's
 * reduce-scatter and allgather in LL128 lines, within a unit. Slice s of
 * the unit (bytes [gcoll_cut(s), gcoll_cut(s + 1)), 16-byte aligned) is
 * rank s's: every rank pushes its slice s to rank s as lines (phase 0),
 * rank s waits for them, reduces in rank order with its own, stores the
 * result and pushes it to every rank as lines (phase 1), and every rank
 * stores the peers' reduced slices as their lines come. Two one-way trips
 * and each rank's data once over the links, with no release, no slice or
 * consumed word and no read of a peer's memory. Windows: lines[2 phases]
 * [2 epochs][n writers][units][gcoll_slice_lines] at push_off, written
 * again in epoch e + 2 as the bulk push's. A (slice, line, lane) is the
 * same thread in every loop, so in place a slice is read before its
 * result overwrites it. */
__device__ static inline volatile uint64_t *gcoll_lines2(const mca_part_ucx_gcoll_args_t &a,
                                                         int phase, int owner, int writer,
                                                         uint64_t e, uint64_t k)
{
    uint64_t per_slice = MCA_PART_UCX_SLICE_LINES(a.unit_bytes, (uint64_t) a.n);

    return (volatile uint64_t *) ((char *) a.win[owner] + a.push_off) +
           ((((uint64_t) phase * 2 + (e & 1)) * a.n + writer) * a.units + k) * per_slice * 16;
}

template <typename T>
__device__ static __noinline__ void gcoll_twoshot128(const mca_part_ucx_gcoll_args_t &a,
                                                     uint64_t k, uint64_t off, uint64_t len,
                                                     uint64_t e)
{
    uint64_t warp = threadIdx.x / 32, warps = blockDim.x / 32, l, lo, slen, lines;
    unsigned sub = threadIdx.x & 7;
    int s;

    /* phase 0: this rank's slice s to rank s */
    for (s = 0; s < a.n; ++s) {
        lo = gcoll_cut(a, len, s);
        slen = gcoll_cut(a, len, s + 1) - lo;
        lines = gcoll_lines_of(slen);
        for (l = warp * 4; s != a.me && l < lines; l += warps * 4) {
            uint64_t line = l + (threadIdx.x & 31) / 8, v0 = 0, v1 = e;
            if (line < lines) {
                gcoll_line_words<T>(a.src[a.me] + off + lo, slen, line, sub, e, &v0, &v1);
            }
            __syncwarp();
            if (line < lines) {
                gcoll_line_put(gcoll_lines2(a, 0, s, a.me, e, k), line, sub, v0, v1);
            }
        }
    }
    /* this rank's slice: reduced, into the result and every peer's lines */
    lo = gcoll_cut(a, len, a.me);
    slen = gcoll_cut(a, len, a.me + 1) - lo;
    lines = gcoll_lines_of(slen);
    for (l = warp * 4; l < lines; l += warps * 4) {
        uint64_t line = l + (threadIdx.x & 31) / 8, mine0 = 0, mine1 = 0, acc0 = 0, acc1 = 0;
        if (line < lines) {
            gcoll_line_words<T>(a.src[a.me] + off + lo, slen, line, sub, 0, &mine0, &mine1);
        }
        gcoll_line_reduce<T>(
            a, [&](int r) { return gcoll_lines2(a, 0, a.me, r, e, k); }, line, lines, sub, e,
            mine0, mine1, &acc0, &acc1);
        acc1 = (7 == sub) ? e : acc1;
        __syncwarp();
        for (s = 0; s < a.n; ++s) {
            if (s != a.me && line < lines) {
                gcoll_line_put(gcoll_lines2(a, 1, s, a.me, e, k), line, sub, acc0, acc1);
            }
        }
        if (line < lines) {
            gcoll_line_out<T>(a.dst[a.me] + off + lo, slen, line, sub, acc0, acc1);
        }
    }
    /* phase 1: the peers' reduced slices */
    for (s = 0; s < a.n; ++s) {
        lo = gcoll_cut(a, len, s);
        slen = gcoll_cut(a, len, s + 1) - lo;
        lines = gcoll_lines_of(slen);
        for (l = warp * 4; s != a.me && l < lines; l += warps * 4) {
            uint64_t line = l + (threadIdx.x & 31) / 8, v0 = 0, v1 = 0;
            gcoll_line_get(gcoll_lines2(a, 1, a.me, s, e, k), line, lines, sub, e, &v0, &v1);
            if (line < lines) {
                gcoll_line_out<T>(a.dst[a.me] + off + lo, slen, line, sub, v0, v1);
            }
        }
    }
}

/* Bulk-pushed two-shot (MCA_PART_UCX_GCOLL_ALLREDUCE2_BULK): the flagged
 * two-shot's slices (gcoll_cut), moved by stores alone. Every rank copies
 * its slice s of unit k into rank s's slot for it and, after a release,
 * sets its flag (consumed); rank s waits for the peers' flags, reduces in
 * rank order its own slice and the slots (all in its GPU's memory),
 * stores the result into every rank's result and, after a release, sets
 * its slices flag there; every rank then waits for the peers' reduced
 * slices. Each rank's data crosses the links once each way, as in the
 * pulled two-shot, but no load waits on a peer's memory: stores over
 * NVLink stream where a thread's loads from it wait a round trip each.
 * The slots of epoch e are written again only in epoch e + 2, as the bulk
 * push's copies (gcoll_bulk). In place, a rank's slice s is copied out
 * before rank s, which waited for that copy, stores its result over it. */
template <typename T>
__device__ static inline void gcoll_twoshot_bulk(const mca_part_ucx_gcoll_args_t &a, uint64_t k,
                                                 uint64_t off, uint64_t len, uint64_t e)
{
    int r = (int) threadIdx.x, s;

    for (s = 0; s < a.n; ++s) {
        if (s != a.me) {
            uint64_t lo = gcoll_cut(a, len, s);
            gcoll_copy(gcoll_slot(a, s, a.me, e, k), a.src[a.me] + off + lo,
                       gcoll_cut(a, len, s + 1) - lo);
        }
    }
    __syncthreads();
    gcoll_flags<gcoll_bulk_flag>(a, k, e); /* the slices into r's slots, then r's here */
    if (r < a.n) {
        /* the slots hold this rank's slice from their start */
        uint64_t base = off + gcoll_cut(a, len, a.me);
        gcoll_src_table[r] = (r == a.me) ? a.src[r] : gcoll_slot(a, a.me, r, e, k) - base;
    }
    __syncthreads();
    gcoll_reduce<T, GCOLL_SRC_TABLE>(a, off, gcoll_cut(a, len, a.me) / sizeof(T),
                                     gcoll_cut(a, len, a.me + 1) / sizeof(T), NULL, true, e);
    __syncthreads();
    gcoll_flags<gcoll_slices>(a, k, e); /* the slice of r's result, then r's slice here */
}
