/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The device plugin of part/ucx (see part_ucx_device.h): streams, events,
 * copies and the reduction kernels of partitioned collectives on GPU
 * buffers. The CUDA runtime is linked statically, so the plugin needs only
 * the driver on the node.
 */

#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <cuda_runtime.h>
#include <string.h>
#include <stdint.h>
#include <type_traits>

#include "part_ucx_device.h"

static cudaError_t last = cudaSuccess;

static int check(cudaError_t err)
{
    if (cudaSuccess != err) {
        last = err;
        return -1;
    }
    return 0;
}

/* System-scope fence, acquire and release, for the plugin's kernels (the
 * GPU engine's too): orders data before words another GPU or the host
 * reads; lighter than __threadfence_system's sequentially consistent
 * fence. The plugin does not include mpix_part_device.h (the application's
 * header, with its mpix_part_fence_sys). */
__device__ static inline void part_fence_sys(void)
{
#if __CUDA_ARCH__ >= 700
    asm volatile("fence.acq_rel.sys;" ::: "memory");
#else
    __threadfence_system();
#endif
}

/* A waiting thread's pause between two looks at host or peer words. */
__device__ static inline void part_nap(void)
{
#if __CUDA_ARCH__ >= 700
    __nanosleep(128);
#endif
}

/* The same at GPU scope where `gpu_scope`: every thread that writes or
 * reads what the fence orders runs on this GPU, and the data is in its
 * memory (the GPU engine's ranks sharing the GPU; a wait with
 * MCA_PART_UCX_WAIT_GPU_SCOPE). */
__device__ static inline void part_fence(bool gpu_scope)
{
#if __CUDA_ARCH__ >= 700
    if (gpu_scope) {
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        return;
    }
#endif
    part_fence_sys();
}

template <typename T, int OP> struct part_op;
template <typename T> struct part_op<T, MCA_PART_UCX_OP_MAX> {
    __device__ static T f(T a, T b) { return a > b ? a : b; }
};
template <typename T> struct part_op<T, MCA_PART_UCX_OP_MIN> {
    __device__ static T f(T a, T b) { return a < b ? a : b; }
};
template <typename T> struct part_op<T, MCA_PART_UCX_OP_SUM> {
    __device__ static T f(T a, T b) { return a + b; }
};
template <typename T> struct part_op<T, MCA_PART_UCX_OP_PROD> {
    __device__ static T f(T a, T b) { return a * b; }
};
template <typename T> struct part_op<T, MCA_PART_UCX_OP_LAND> {
    __device__ static T f(T a, T b) { return (T) (a && b); }
};
template <typename T> struct part_op<T, MCA_PART_UCX_OP_LOR> {
    __device__ static T f(T a, T b) { return (T) (a || b); }
};
template <typename T> struct part_op<T, MCA_PART_UCX_OP_LXOR> {
    __device__ static T f(T a, T b) { return (T) (!a != !b); }
};
template <typename T> struct part_op<T, MCA_PART_UCX_OP_BAND> {
    __device__ static T f(T a, T b) { return a & b; }
};
template <typename T> struct part_op<T, MCA_PART_UCX_OP_BOR> {
    __device__ static T f(T a, T b) { return a | b; }
};
template <typename T> struct part_op<T, MCA_PART_UCX_OP_BXOR> {
    __device__ static T f(T a, T b) { return a ^ b; }
};

/* out[i] = a[i] op b[i]; out may be a (two-buffer form). */
template <typename T, int OP>
__global__ void part_reduce(const T *a, const T *__restrict__ b, T *out, size_t n)
{
    size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
    size_t stride = (size_t) gridDim.x * blockDim.x;

    for (; i < n; i += stride) {
        out[i] = part_op<T, OP>::f(a[i], b[i]);
    }
}

struct part_args {
    const void *a, *b;
    void *out;
    size_t n;
    cudaStream_t s;
    bool load; /* only load the kernel (dev_reduce_load) */
};

template <typename T, int OP> static int launch(const part_args &x)
{
    unsigned threads = 256;
    size_t blocks = (x.n + threads - 1) / threads;
    cudaFuncAttributes a;

    if (x.load) {
        return check(cudaFuncGetAttributes(&a, part_reduce<T, OP>));
    }

    if (blocks > 2048) {
        blocks = 2048; /* grid-stride beyond: enough to fill an H200 */
    }
    part_reduce<T, OP><<<(unsigned) blocks, threads, 0, x.s>>>((const T *) x.a, (const T *) x.b,
                                                               (T *) x.out, x.n);
    return check(cudaGetLastError());
}

/* MPI defines the logical and bitwise ops on integers only. */
template <typename T> static int reduce_t(int op, const part_args &x)
{
    switch (op) {
    case MCA_PART_UCX_OP_MAX: return launch<T, MCA_PART_UCX_OP_MAX>(x);
    case MCA_PART_UCX_OP_MIN: return launch<T, MCA_PART_UCX_OP_MIN>(x);
    case MCA_PART_UCX_OP_SUM: return launch<T, MCA_PART_UCX_OP_SUM>(x);
    case MCA_PART_UCX_OP_PROD: return launch<T, MCA_PART_UCX_OP_PROD>(x);
    }
    if constexpr (std::is_integral<T>::value) {
        switch (op) {
        case MCA_PART_UCX_OP_LAND: return launch<T, MCA_PART_UCX_OP_LAND>(x);
        case MCA_PART_UCX_OP_LOR: return launch<T, MCA_PART_UCX_OP_LOR>(x);
        case MCA_PART_UCX_OP_LXOR: return launch<T, MCA_PART_UCX_OP_LXOR>(x);
        case MCA_PART_UCX_OP_BAND: return launch<T, MCA_PART_UCX_OP_BAND>(x);
        case MCA_PART_UCX_OP_BOR: return launch<T, MCA_PART_UCX_OP_BOR>(x);
        case MCA_PART_UCX_OP_BXOR: return launch<T, MCA_PART_UCX_OP_BXOR>(x);
        }
    }
    return -2;
}

static int reduce_dt(int op, int dt, const part_args &x)
{
    switch (dt) {
    case MCA_PART_UCX_DT_INT8: return reduce_t<int8_t>(op, x);
    case MCA_PART_UCX_DT_INT16: return reduce_t<int16_t>(op, x);
    case MCA_PART_UCX_DT_INT32: return reduce_t<int32_t>(op, x);
    case MCA_PART_UCX_DT_INT64: return reduce_t<int64_t>(op, x);
    case MCA_PART_UCX_DT_UINT8: return reduce_t<uint8_t>(op, x);
    case MCA_PART_UCX_DT_UINT16: return reduce_t<uint16_t>(op, x);
    case MCA_PART_UCX_DT_UINT32: return reduce_t<uint32_t>(op, x);
    case MCA_PART_UCX_DT_UINT64: return reduce_t<uint64_t>(op, x);
    case MCA_PART_UCX_DT_FLOAT: return reduce_t<float>(op, x);
    case MCA_PART_UCX_DT_DOUBLE: return reduce_t<double>(op, x);
    }
    return -2;
}

static int dev_reduce3(int op, int dt, const void *a, const void *b, void *out, size_t n,
                       void *stream)
{
    part_args x = {a, b, out, n, (cudaStream_t) stream, false};

    return (0 == n) ? 0 : reduce_dt(op, dt, x);
}

/* With CUDA's lazy loading, a kernel's first launch may wait for the whole
 * context to go idle: the first reduction of a collective whose epoch a
 * stream waits for (or a kernel polls) would wait for that very wait. So
 * a collective loads its reduction kernel when it is created. */
static int dev_reduce_load(int op, int dt)
{
    part_args x = {NULL, NULL, NULL, 0, 0, true};

    return reduce_dt(op, dt, x);
}

static int dev_reduce(int op, int dt, const void *in, void *inout, size_t n, void *stream)
{
    return dev_reduce3(op, dt, inout, in, inout, n, stream);
}

/* this GPU's SMs (0: not known); the copy after the kernels sizes its grid by it */
static int dev_sm_count(void)
{
    int dev, n = 0;

    if (0 != check(cudaGetDevice(&dev)) ||
        0 != check(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev))) {
        return 0;
    }
    return n;
}

#include "part_ucx_device_coll.h"
#include "part_ucx_device_after.h"

/* Stamps of the stream-ordered epochs' own kernels (bench/trace/README.md,
 * "Stream-ordered epochs"), in a plugin built with -DPART_UCX_STREAM_TRACE
 * only: a stream copy's wait (entry, every mark seen, the ready-to-receive
 * seen) and finishing kernel (entry, end), and a counted wait's kernel
 * (entry, the done word seen, end), each epoch's in its record. */
#ifdef PART_UCX_STREAM_TRACE
#include "part_ucx_device_trace.h"
enum {
    STREAM_TRACE_COPY_WAIT, STREAM_TRACE_MARKS, STREAM_TRACE_RTR, STREAM_TRACE_FINISH,
    STREAM_TRACE_FINISHED, STREAM_TRACE_WAIT, STREAM_TRACE_DONE, STREAM_TRACE_WAITED
};
#define STREAM_STAMP(e, i)                 \
    do {                                   \
        if (0 == threadIdx.x) {            \
            part_trace_stamp((e), (i));    \
        }                                  \
    } while (0)
#else
#define STREAM_STAMP(e, i) \
    do {                   \
    } while (0)
#endif

static int dev_stream_create(void **stream)
{
    cudaStream_t s = NULL;
    int rc = check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    *stream = s;
    return rc;
}

static void dev_stream_destroy(void *stream)
{
    (void) cudaStreamDestroy((cudaStream_t) stream);
}

static int dev_event_create(void **event)
{
    cudaEvent_t e = NULL;
    int rc = check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

    *event = e;
    return rc;
}

static void dev_event_destroy(void *event)
{
    (void) cudaEventDestroy((cudaEvent_t) event);
}

static int dev_event_record(void *event, void *stream)
{
    return check(cudaEventRecord((cudaEvent_t) event, (cudaStream_t) stream));
}

static int dev_event_query(void *event)
{
    cudaError_t err = cudaEventQuery((cudaEvent_t) event);

    if (cudaErrorNotReady == err) {
        return 0;
    }
    return (0 == check(err)) ? 1 : -1;
}

static int dev_copy(void *dst, const void *src, size_t bytes, void *stream)
{
    if (0 == bytes || dst == src) {
        return 0;
    }
    return check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t) stream));
}

/* One block: a copy issued and seen done takes one launch and the host's
 * read of a word, against a copy, an event record and event queries (a
 * few microseconds less a copy, where the host runs the epoch). One block
 * keeps the word's release simple; four loads in flight a thread move
 * 64 KiB a memory round trip, so the bound keeps it to a few. */
#define PART_COPY_SIGNAL_MAX (256 << 10)

__global__ void __launch_bounds__(1024) part_copy_signal(const char *src, char *dst,
                                                         size_t bytes, volatile uint64_t *word,
                                                         uint64_t value)
{
    gcoll_copy(dst, src, bytes); /* the GPU engine's block copy (part_ucx_device_coll.h) */
    __syncthreads();
    if (0 == threadIdx.x) {
        part_fence(false); /* the block's stores (cumulative) before the word */
        *word = value;
    }
}

static int dev_copy_signal(void *dst, const void *src, size_t bytes, void *stream,
                           volatile uint64_t *word, uint64_t value)
{
    if (NULL == word) {
        cudaFuncAttributes attr;

        return check(cudaFuncGetAttributes(&attr, part_copy_signal));
    }
    if (bytes > PART_COPY_SIGNAL_MAX) {
        return -1;
    }
    part_copy_signal<<<1, 1024, 0, (cudaStream_t) stream>>>((const char *) src, (char *) dst,
                                                            bytes, word, value);
    return check(cudaGetLastError());
}

static int dev_host_mapped(const void *ptr)
{
    unsigned int flags = 0;

    if (cudaSuccess != cudaHostGetFlags(&flags, (void *) ptr)) {
        (void) cudaGetLastError(); /* not registered: not an error to keep */
        return 0;
    }
    return (flags & cudaHostAllocMapped) ? 1 : 0;
}

/* Stream memory operations are driver calls: taken from the driver the
 * runtime uses, so that the plugin links no libcuda. */
typedef CUresult (*part_batch_memop_fn)(CUstream, unsigned int, CUstreamBatchMemOpParams *,
                                        unsigned int);
typedef CUresult (*part_wait_value_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
typedef CUresult (*part_write_value_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
static part_batch_memop_fn batch_memop;
static part_wait_value_fn wait_value;
static part_write_value_fn write_value;

static int driver_calls(void)
{
    cudaDriverEntryPointQueryResult q;

    if (NULL != batch_memop && NULL != wait_value && NULL != write_value) {
        return 0;
    }
    if (0 != check(cudaGetDriverEntryPointByVersion("cuStreamBatchMemOp", (void **) &batch_memop,
                                                    12000, cudaEnableDefault, &q)) ||
        cudaDriverEntryPointSuccess != q ||
        0 != check(cudaGetDriverEntryPointByVersion("cuStreamWaitValue64", (void **) &wait_value,
                                                    12000, cudaEnableDefault, &q)) ||
        cudaDriverEntryPointSuccess != q ||
        0 != check(cudaGetDriverEntryPointByVersion("cuStreamWriteValue64",
                                                    (void **) &write_value, 12000,
                                                    cudaEnableDefault, &q)) ||
        cudaDriverEntryPointSuccess != q) {
        batch_memop = NULL;
        wait_value = NULL;
        write_value = NULL;
        last = (cudaSuccess == last) ? cudaErrorNotSupported : last;
        return -1;
    }
    return 0;
}

static int driver_check(CUresult r)
{
    if (CUDA_SUCCESS != r) {
        last = cudaErrorNotSupported; /* closest runtime error to report */
        return -1;
    }
    return 0;
}

static void preload_kernels(void);

static int dev_stream_capturing(void *stream)
{
    cudaStreamCaptureStatus status;

    if (0 != check(cudaStreamIsCapturing((cudaStream_t) stream, &status))) {
        return -1;
    }
    if (cudaStreamCaptureStatusNone != status) {
        return 1;
    }
    preload_kernels(); /* not while capturing: a capture may forbid loading modules */
    return 0;
}

struct part_words {
    volatile uint64_t *addr[4];
};

struct part_values {
    uint64_t v[4];
};

__global__ void part_write(unsigned n, part_words w, part_values values)
{
    unsigned i;

    __threadfence_system(); /* the stream's earlier work before the start shows */
    for (i = 0; i < n; ++i) {
        *w.addr[i] = values.v[i];
    }
    __threadfence_system();
}

static int dev_stream_write(void *stream, unsigned n, volatile uint64_t *const *addrs,
                            const uint64_t *values, int kernel)
{
    CUstreamBatchMemOpParams ops[4];
    unsigned i;

    if (n > 4) {
        return -1;
    }
    if (kernel) {
        part_words w = {};
        part_values v = {};

        for (i = 0; i < n; ++i) {
            w.addr[i] = addrs[i];
            v.v[i] = values[i];
        }
        part_write<<<1, 1, 0, (cudaStream_t) stream>>>(n, w, v);
        return check(cudaGetLastError());
    }
    if (0 != driver_calls()) {
        return -1;
    }
    if (1 == n) {
        /* one word (a receiver's start): the single operation, which the
         * driver submits with less work than a batch */
        return driver_check(write_value((CUstream) stream, (CUdeviceptr) (uintptr_t) addrs[0],
                                        values[0], 0));
    }
    memset(ops, 0, sizeof(ops));
    for (i = 0; i < n; ++i) {
        ops[i].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
        ops[i].writeValue.address = (CUdeviceptr) (uintptr_t) addrs[i];
        ops[i].writeValue.value64 = values[i];
        /* ordered after the stream's earlier work (CUDA 12's batch
         * operations take no CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER) */
        ops[i].writeValue.flags = 0;
    }
    return driver_check(batch_memop((CUstream) stream, n, ops, 0));
}

/* Counted starts (dev_stream_start_counted), word by word: *addr[i] =
 * epoch[i][1], epoch[i][0] too (a request's pair, see stream_start_counted;
 * a start of two words names its pair twice). Starts joined to one wait may
 * be of several requests; a start of its own has one pair. */
#define PART_STARTS_MAX 8
struct part_starts {
    unsigned n;
    volatile uint64_t *epoch[PART_STARTS_MAX];
    volatile uint64_t *addr[PART_STARTS_MAX];
};

/* The epochs of starts joined to a kernel that completes epoch e of the
 * request whose pair is `pair` (part_wait, part_copy_finish), read before
 * that kernel waits or writes, as a read of host memory takes about a
 * microsecond: this request's is the one after e, another's its pair's
 * (its own wait, earlier on the stream, advanced it). */
__device__ static inline void part_starts_epochs(const part_starts &st,
                                                 const volatile uint64_t *pair, uint64_t e,
                                                 uint64_t v[PART_STARTS_MAX])
{
    unsigned i;

#pragma unroll
    for (i = 0; i < PART_STARTS_MAX; ++i) {
        v[i] = (i >= st.n) ? 0 : (st.epoch[i] == pair) ? e + 1 : st.epoch[i][1];
    }
}

/* Then the starts' words (a peer or this stream's kernels wait for them),
 * and the pairs' bookkeeping, for this stream's later work and the host
 * after a synchronisation: `pair` (where counted) past e, and each joined
 * start's. */
__device__ static inline void part_starts_write(const part_starts &st, volatile uint64_t *pair,
                                                uint64_t e, const uint64_t v[PART_STARTS_MAX])
{
    unsigned i;

#pragma unroll
    for (i = 0; i < PART_STARTS_MAX; ++i) {
        if (i < st.n) {
            *st.addr[i] = v[i];
        }
    }
    if (NULL != pair) {
        pair[0] = e;
        pair[1] = e + 1;
    }
#pragma unroll
    for (i = 0; i < PART_STARTS_MAX; ++i) {
        if (i < st.n) {
            st.epoch[i][0] = v[i];
        }
    }
}

/* The stream goes on once *done >= the epoch: `value`, or where a graph
 * counts the epochs, epoch[1], the last start's (dev_stream_start_counted);
 * then epoch[0] is that epoch and the next start takes the one after.
 * The starts captured right after this wait, joined to it
 * (start_join_wait), are written first, the moment the wait ends: the peer
 * waits for them, and nothing of this stream comes between the wait and
 * them that a fence would have to order first (the stream's earlier
 * kernels have ended); their epochs are read before waiting
 * (part_starts_epochs). gpu_scope: MCA_PART_UCX_WAIT_GPU_SCOPE. */
__global__ void part_wait(const volatile uint64_t *done, volatile uint64_t *epoch,
                          uint64_t value, part_starts st, int gpu_scope)
{
    uint64_t e = (NULL != epoch) ? epoch[1] : value, v[PART_STARTS_MAX];

    STREAM_STAMP(e, STREAM_TRACE_WAIT);
    part_starts_epochs(st, epoch, e, v);
    while (*done < e) {
        part_nap();
    }
    STREAM_STAMP(e, STREAM_TRACE_DONE);
    /* The peer's data before what follows the wait (its writer released
     * it before the done word). Before the starts' stores, so that it
     * need not wait for them: the kernel's end orders them before the
     * stream's later work, and the bookkeeping below is this process's. */
    part_fence(0 != gpu_scope);
    part_starts_write(st, epoch, e, v);
    STREAM_STAMP(e, STREAM_TRACE_WAITED);
}

/* Where the driver refuses stream waits on 64-bit words (a driver without
 * 64-bit stream memory operations), a one-thread kernel waits instead. */
static bool wait_memop = true;

static int dev_stream_wait(void *stream, const volatile uint64_t *addr, uint64_t value,
                           int flags)
{
    bool kernel = 0 != (flags & MCA_PART_UCX_WAIT_KERNEL);

    /* No CU_STREAM_WAIT_VALUE_FLUSH (not every platform has it): writers
     * release their data with a system-scope fence before the word. */
    if (!kernel && wait_memop && 0 == driver_calls() &&
        CUDA_SUCCESS == wait_value((CUstream) stream, (CUdeviceptr) (uintptr_t) addr, value,
                                   CU_STREAM_WAIT_VALUE_GEQ)) {
        return 0;
    }
    if (!kernel) {
        wait_memop = false; /* the driver refused it */
    }
    part_wait<<<1, 1, 0, (cudaStream_t) stream>>>(addr, NULL, value, part_starts{},
                                                  0 != (flags & MCA_PART_UCX_WAIT_GPU_SCOPE));
    return check(cudaGetLastError());
}

/* The counted wait (or stream copy) this thread captured last, for the
 * starts captured right after it to join (start_join_wait): per thread, as
 * a capture is (a stream captured from several threads in relaxed mode
 * only joins fewer starts). */
static __thread struct {
    unsigned long long capture; /* the capture's id */
    cudaGraphNode_t node;       /* NULL: none */
    const volatile uint64_t *done;
    volatile uint64_t *epoch;
    int gpu_scope;
    part_starts st;             /* the starts joined so far */
    /* a stream copy's finishing kernel (part_copy_finish) rather than a
     * wait's, with its copy and pair (then `epoch`) */
    bool copy;
    mca_part_ucx_stream_copy_t c;
} last_wait;

/* The capture stream s is in and the node its next work would follow,
 * where that is one node with an ordinary edge (else false: edge data is
 * not asked for, and where an edge has any, the query fails). */
static bool capture_tail(cudaStream_t s, unsigned long long *id, cudaGraphNode_t *node)
{
    cudaStreamCaptureStatus status;
    const cudaGraphNode_t *deps = NULL;
    size_t ndeps = 0;

    if (cudaSuccess != cudaStreamGetCaptureInfo(s, &status, id, NULL, &deps, NULL, &ndeps)) {
        (void) cudaGetLastError(); /* not an error of ours: the start does without */
        return false;
    }
    if (cudaStreamCaptureStatusActive != status || 1 != ndeps) {
        return false;
    }
    *node = deps[0];
    return true;
}

/* The end of a stream-copied epoch (dev_stream_copy): the receiver's
 * arrival flags, each thread's released before the done words: the
 * receiver's (its stream's first), then the one that tells this side's
 * host the epoch left the send buffer. Counted (a graph's), it advances
 * the pair as part_wait does, and makes the starts captured right after
 * it (start_join_wait), so that the next epoch's start is no node of its
 * own between this one and the application's next kernel. */
__global__ void part_copy_finish(mca_part_ucx_stream_copy_t c, uint64_t epoch,
                                 volatile uint64_t *count, part_starts st)
{
    uint64_t v[PART_STARTS_MAX];
    size_t i;

    if (NULL != count) {
        epoch = *c.epoch;
    }
    STREAM_STAMP(epoch, STREAM_TRACE_FINISH);
    for (i = threadIdx.x; i < c.nflags; i += blockDim.x) {
        c.flags[i] = epoch;
    }
    __threadfence_system();
    __syncthreads();
    if (0 != threadIdx.x) {
        return;
    }
    part_starts_epochs(st, count, epoch, v);
    /* The receiver's stream word first, then the next epoch's starts:
     * stores to host memory take about a microsecond to get there, and the
     * kernel's end waits for them all at once. */
    if (NULL != c.remote_done_dev) {
        *c.remote_done_dev = epoch;
    }
    part_starts_write(st, count, epoch, v);
    if (NULL != c.remote_done_dev) {
        *c.remote_done = epoch;
    }
    *c.done = epoch;
    STREAM_STAMP(epoch, STREAM_TRACE_FINISHED);
}

/* A counted epoch's waits (dev_stream_copy), for the epoch this side's
 * start wrote. The kernels ran earlier on this stream: their count of
 * complete groups (GPU memory) shows the epoch at once, unless an epoch
 * whose partitions the host readied left it behind (starts in a graph do
 * not reset it); then every group's mark, in host memory. Then the
 * receiver's ready-to-receive: its stream's in GPU memory, read first, or
 * its host's (epochs its host starts write only that one). The kernel's
 * end orders what it read before the copy. */
__global__ void part_copy_wait(mca_part_ucx_stream_copy_t c)
{
    __shared__ bool counted;
    uint64_t e = *c.epoch;
    uint32_t g;

    STREAM_STAMP(e, STREAM_TRACE_COPY_WAIT);
    if (0 == threadIdx.x) {
        counted = *c.marked >= e;
    }
    __syncthreads();
    for (g = threadIdx.x; !counted && g < c.groups; g += blockDim.x) {
        while ((c.ready[(size_t) g << c.group_shift] & ~((uint64_t) 1 << 63)) < e) {
            part_nap();
        }
    }
    __syncthreads();
    STREAM_STAMP(e, STREAM_TRACE_MARKS);
    if (0 != threadIdx.x) {
        return;
    }
    while ((NULL == c.rtr_dev || *c.rtr_dev < e) && *c.rtr < e) {
        part_nap();
    }
    STREAM_STAMP(e, STREAM_TRACE_RTR);
}

static int dev_stream_copy(void *stream, const mca_part_ucx_stream_copy_t *c, uint64_t epoch,
                           volatile uint64_t *count)
{
    cudaStream_t s = (cudaStream_t) stream;

    if (NULL != count) {
        part_copy_wait<<<1, 128, 0, s>>>(*c);
        if (0 != check(cudaGetLastError())) {
            return -1;
        }
    } else if (0 != dev_stream_wait(stream, c->marked, epoch, c->wait_flags) ||
               0 != dev_stream_wait(stream, c->rtr, epoch, c->wait_flags)) {
        return -1;
    }
    if (0 != check(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s))) {
        return -1;
    }
    last_wait.node = NULL;
    part_copy_finish<<<1, 256, 0, s>>>(*c, epoch, count, part_starts{});
    if (0 != check(cudaGetLastError())) {
        return -1;
    }
    if (NULL != count && capture_tail(s, &last_wait.capture, &last_wait.node)) {
        last_wait.epoch = count; /* the copy just captured, which starts may join */
        last_wait.copy = true;
        last_wait.c = *c;
        last_wait.st = part_starts{};
    } else {
        last_wait.node = NULL;
    }
    return 0;
}

/* A start of its own: one pair, epoch, for every word of st; the epoch
 * from `next` (GPU memory) where given, no earlier than `floor`. */
__global__ void part_start_counted(volatile uint64_t *epoch, part_starts st, int local,
                                   const volatile uint64_t *next, uint64_t floor)
{
    uint64_t e = (NULL != next) ? *next : epoch[1];
    unsigned i;

    e = (e > floor) ? e : floor;
    epoch[0] = e;
    if (!local) {
        __threadfence_system(); /* the stream's earlier work before the start shows */
    }
    for (i = 0; i < st.n; ++i) {
        *st.addr[i] = e;
    }
    if (!local) {
        __threadfence_system();
    }
}

/* A counted start captured right after a counted wait (nothing on the
 * stream since) is made by the wait's kernel once it has waited: one node
 * an epoch less between the wait and the peer the start releases, and no
 * SM of its own (the wait's kernel is running before the kernels that wait
 * for this start, a peer's on a GPU the ranks share, can fill the GPU).
 * The start comes after everything before the wait, as it would as a node
 * of its own after it. A graph under capture may have its nodes'
 * parameters set (cudaStreamGetCaptureInfo). 1: joined, 0: not here. */
static int start_join_wait(cudaStream_t s, const part_starts &st)
{
    part_starts joined = last_wait.st;
    cudaKernelNodeParams p = {};
    unsigned long long id;
    cudaGraphNode_t tail;
    uint64_t value = 0;
    void *args[5];
    unsigned i;

    if (NULL == last_wait.node || joined.n + st.n > PART_STARTS_MAX ||
        !capture_tail(s, &id, &tail) || id != last_wait.capture || tail != last_wait.node) {
        return 0;
    }
    for (i = 0; i < st.n; ++i, ++joined.n) {
        joined.epoch[joined.n] = st.epoch[i];
        joined.addr[joined.n] = st.addr[i];
    }
    if (last_wait.copy) {
        args[0] = &last_wait.c;
        args[1] = &value;
        args[2] = (void *) &last_wait.epoch;
        args[3] = &joined;
        p.func = (void *) part_copy_finish;
        p.blockDim = dim3(256);
    } else {
        args[0] = (void *) &last_wait.done;
        args[1] = (void *) &last_wait.epoch;
        args[2] = &value;
        args[3] = &joined;
        args[4] = &last_wait.gpu_scope;
        p.func = (void *) part_wait;
        p.blockDim = dim3(1);
    }
    p.gridDim = dim3(1);
    p.kernelParams = args;
    if (cudaSuccess != cudaGraphKernelNodeSetParams(tail, &p)) {
        (void) cudaGetLastError();
        return 0;
    }
    last_wait.st = joined;
    return 1;
}

/* With CUDA's lazy loading, a kernel's first launch may wait for the
 * context to go idle, holding a lock that other CUDA calls of the process
 * need: behind a stream that waits for this process's progress thread (an
 * epoch the host runs, whose UCX transfers call CUDA), it would never
 * return. The plugin's own kernels are therefore loaded at the first
 * enqueue outside a capture, before any wait of ours exists; the
 * application's are its own to load (docs: MPIX_Start_enqueue). */
static void preload_kernels(void)
{
    static bool loaded = false;
    cudaFuncAttributes a;

    if (!loaded) {
        loaded = (cudaSuccess == cudaFuncGetAttributes(&a, part_wait) &&
                  cudaSuccess == cudaFuncGetAttributes(&a, part_write) &&
                  cudaSuccess == cudaFuncGetAttributes(&a, part_start_counted) &&
                  cudaSuccess == cudaFuncGetAttributes(&a, part_copy_finish) &&
                  cudaSuccess == cudaFuncGetAttributes(&a, part_copy_wait));
        (void) cudaGetLastError(); /* tried again at the next start */
#ifdef PART_UCX_STREAM_TRACE
        part_trace_setup();
#endif
    }
}

/* Copies of epoch[1] into the words: a copy into GPU memory from host
 * memory is a copy engine's, no SM (between two words of GPU memory CUDA
 * would use a kernel). A copy's source is read when the copy runs, after
 * the stream's earlier work, the wait that advanced epoch[1] included.
 * epoch[0] follows at the wait: one copy less, and only this process
 * reads it, once the stream has passed the wait. */
static int dev_stream_start_counted(void *stream, volatile uint64_t *epoch, unsigned n,
                                    volatile uint64_t *const *addrs, int how,
                                    const volatile uint64_t *next)
{
    cudaStream_t s = (cudaStream_t) stream;
    part_starts st = {};
    unsigned i;

    if (n > 4) {
        return -1;
    }
    for (i = 0; i < n; ++i) {
        st.epoch[i] = epoch;
        st.addr[i] = addrs[i];
    }
    st.n = n;
    if (0 != n && (how & MCA_PART_UCX_START_JOIN) && 1 == start_join_wait(s, st)) {
        return 0;
    }
    if (how & MCA_PART_UCX_START_KERNEL) {
        /* the host's epoch[1] now: where `next` was never written, or
         * is behind epochs whose kernels it does not see */
        part_start_counted<<<1, 1, 0, s>>>(epoch, st, 0 != (how & MCA_PART_UCX_START_LOCAL), next,
                                           (NULL != next) ? epoch[1] : 0);
        return check(cudaGetLastError());
    }
    for (i = 0; i < n; ++i) {
        if (0 != check(cudaMemcpyAsync((void *) addrs[i], (const void *) &epoch[1],
                                       sizeof(uint64_t), cudaMemcpyDefault, s))) {
            return -1;
        }
    }
    return 0;
}

static int dev_stream_wait_counted(void *stream, const volatile uint64_t *done,
                                   volatile uint64_t *epoch, int flags)
{
    cudaStream_t s = (cudaStream_t) stream;
    int gpu_scope = 0 != (flags & MCA_PART_UCX_WAIT_GPU_SCOPE);

    last_wait.node = NULL;
    part_wait<<<1, 1, 0, s>>>(done, epoch, 0, part_starts{}, gpu_scope);
    if (0 != check(cudaGetLastError())) {
        return -1;
    }
    if (capture_tail(s, &last_wait.capture, &last_wait.node)) {
        last_wait.done = done; /* the wait just captured, which starts may join */
        last_wait.epoch = epoch;
        last_wait.gpu_scope = gpu_scope;
        last_wait.copy = false;
        last_wait.st = part_starts{};
    } else {
        last_wait.node = NULL;
    }
    return 0;
}

static int dev_set_device(int device)
{
    return check(cudaSetDevice(device));
}

static int dev_stream_sync(void *stream)
{
    return check(cudaStreamSynchronize((cudaStream_t) stream));
}

/* NVML, loaded here on first use (the driver installs it with CUDA): a
 * link between two GPUs is a property of the node, which NVML sees whole,
 * whatever CUDA_VISIBLE_DEVICES hides from this process. Its few entry
 * points are declared here: NVML's header is not part of every CUDA
 * toolkit. */
typedef struct part_nvml_device *part_nvml_device_t;
enum { PART_NVML_P2P_CAPS_INDEX_NVLINK = 2, PART_NVML_P2P_STATUS_OK = 0 };

struct part_nvml {
    int (*get_by_bus_id)(const char *bus_id, part_nvml_device_t *dev);
    int (*p2p_status)(part_nvml_device_t a, part_nvml_device_t b, int index, int *status);
    bool ok;

    part_nvml() : get_by_bus_id(NULL), p2p_status(NULL), ok(false)
    {
        void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        int (*init)(void) = NULL;

        if (NULL == lib) {
            return;
        }
        init = (int (*)(void)) dlsym(lib, "nvmlInit_v2");
        get_by_bus_id = (int (*)(const char *, part_nvml_device_t *)) dlsym(
            lib, "nvmlDeviceGetHandleByPciBusId_v2");
        p2p_status = (int (*)(part_nvml_device_t, part_nvml_device_t, int, int *)) dlsym(
            lib, "nvmlDeviceGetP2PStatus");
        /* kept loaded and initialized for the process's life, as CUDA's */
        ok = NULL != init && NULL != get_by_bus_id && NULL != p2p_status && 0 == init();
    }
};

/* NVML's handle of the GPU of PCI id `id` (mca_part_ucx_gpu_id: domain,
 * bus, device and function, plus one). */
static bool nvml_device(const part_nvml &nvml, uint64_t id, part_nvml_device_t *dev)
{
    char bus_id[32];

    if (0 == id--) {
        return false;
    }
    snprintf(bus_id, sizeof(bus_id), "%08x:%02x:%02x.%x", (unsigned) (id >> 24),
             (unsigned) (id >> 16) & 0xff, (unsigned) (id >> 8) & 0xff, (unsigned) id & 0xff);
    return 0 == nvml.get_by_bus_id(bus_id, dev);
}

static int dev_nvlink(uint64_t a, uint64_t b)
{
    static const part_nvml nvml; /* once, thread-safe (C++11) */
    part_nvml_device_t da, db;
    int status = -1;

    return nvml.ok && nvml_device(nvml, a, &da) && nvml_device(nvml, b, &db) &&
           0 == nvml.p2p_status(da, db, PART_NVML_P2P_CAPS_INDEX_NVLINK, &status) &&
           PART_NVML_P2P_STATUS_OK == status;
}

static const char *dev_last_error(void)
{
    return cudaGetErrorString(last);
}

static const mca_part_ucx_device_ops_t ops = {
    MCA_PART_UCX_DEVICE_ABI, dev_stream_create, dev_stream_destroy, dev_event_create,
    dev_event_destroy,       dev_event_record,  dev_event_query,    dev_copy,
    dev_stream_sync,         dev_reduce,        dev_reduce3,        dev_last_error,
    dev_host_mapped,         dev_stream_capturing, dev_stream_write,   dev_stream_wait,
    dev_stream_start_counted, dev_stream_wait_counted, dev_set_device, dev_reduce_load,
    dev_gcoll,               dev_stream_wait_event, dev_sm_count, dev_copy_signal,
    PART_COPY_SIGNAL_MAX,    dev_nvlink,   dev_stream_copy,    dev_stream_copy_after};

extern "C" __attribute__((visibility("default"))) const mca_part_ucx_device_ops_t *
mca_part_ucx_device_ops(void)
{
    return &ops;
}
