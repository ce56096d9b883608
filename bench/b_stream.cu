/* Stream-ordered partitioned epochs (issue 21) against the host-driven
 * paths and the node's limit, two ranks on one node, rank 0 sends to
 * rank 1. One variant per run (bench/run-stream.sh runs them all):
 *   b_stream goodput VARIANT GRIDS   vector add c = a + b + epoch over
 *       doubles, 1024 threads per block (8 KiB per block), one partition
 *       per block, c sent to rank 1; goodput = bytes of c / time per epoch
 *       (warm-up epochs excluded), timed on rank 1 from a barrier until
 *       the last epoch has arrived. VARIANT:
 *     traditional         kernel, cudaStreamSynchronize, MPI_Send/MPI_Recv
 *     kernel_copy_host    MPI_Start, MPIX_Pbuf_prepare, kernel with
 *                         MPIX_Pready, MPI_Wait (as bench/b_device.cu)
 *     kernel_copy_stream  MPIX_Start_enqueue, kernel with MPIX_Pready,
 *                         MPIX_Wait_enqueue, epochs back to back, one
 *                         cudaStreamSynchronize at the end
 *     kernel_copy_kernels the same with info "mpix_stream_kernels" "true" on
 *                         the send: its kernels count the epochs, no stream
 *                         work of the sender's own each epoch
 *     progress_stream     the same with info "mpix_device_copy" "progress"
 *                         (MPI_THREAD_MULTIPLE; within a node the
 *                         sender's stream copies, the receiver's host
 *                         sees its flags: part_ucx_stream_copy_engine)
 *     progress_kernels    progress_stream with info "mpix_stream_kernels"
 *                         "true" on both: the receiver's stream waits for
 *                         the sender's stream's copy, no host on either side
 *     progress_graph      progress_kernels with BENCH_GRAPH_EPOCHS epochs
 *                         replayed from a CUDA graph, as kernel_copy_graph
 *     ipc_limit           the same kernel, then cudaMemcpyAsync into the
 *                         receiver's buffer mapped by CUDA IPC, on the same
 *                         stream, with the handshake of ipc_epoch(); no
 *                         host synchronisation per epoch
 *     kernel_copy_graph   kernel_copy_kernels with BENCH_GRAPH_EPOCHS (32)
 *                         epochs, each its start, kernel and wait, captured
 *                         into one CUDA graph on each rank, which the host
 *                         launches: no host call per epoch
 *     ipc_limit_graph     ipc_limit captured the same way
 *     ipc_after_graph     a prototype, outside MPI's data path, of kernel
 *                         copy after the producer: ipc_limit_graph's
 *                         kernel also stores one mark a block (the epoch:
 *                         what MPIX_Pready's stream-ordered marks cost),
 *                         and a copy kernel launched behind it as its
 *                         programmatic dependent (griddepcontrol.wait)
 *                         waits for the receiver's ready-to-receive
 *                         itself, checks every mark and copies c into the
 *                         receiver's mapped buffer with SM stores, instead
 *                         of the stream's wait and copy-engine copy
 *     ipc_after_nomark_graph   the same without the marks
 *     ipc_marks_graph     the other shape of it: ipc_limit_graph's kernel
 *                         with the marks, and a one-block kernel behind it
 *                         (a programmatic dependent) that checks them
 *                         before the stream's wait and copy-engine copy,
 *                         as the progress engine's stream copy would with
 *                         stream-ordered marks
 *     nccl                the same kernel, then ncclSend (rank 0) /
 *                         ncclRecv (rank 1) of c on the same stream, no
 *                         host synchronisation per epoch: NCCL's
 *                         stream-ordered point-to-point (built with
 *                         -DHAVE_NCCL, one GPU per rank)
 *     VARIANT_kstart, VARIANT_nojoin, VARIANT_kstart_nojoin   a graph
 *                         variant with the captured starts made kernels
 *                         (part_ucx_stream_graph_start kernel), or none of
 *                         them joined to the wait before it
 *                         (part_ucx_stream_graph_join 0), or both
 *     kernel_copy_kernels_inkernel, kernel_copy_graph_inkernel   the
 *                         kernels copy each group as it completes, at
 *                         every size (part_ucx_stream_copy_after_bytes 0;
 *                         by default, from 1 MiB, they only mark and
 *                         MPIX_Wait_enqueue copies the epoch after them)
 *     kernel_copy_kernels_after, kernel_copy_graph_after   the kernels only
 *                         mark and MPIX_Wait_enqueue copies the epoch at
 *                         every size (part_ucx_stream_copy_after_bytes 1)
 *   b_stream hrtt VARIANT            half round trip of a one-block epoch
 *       (8 KiB), ping-pong: rank 0's kernel writes the block, rank 1's
 *       kernel adds one to what arrived and sends it back. VARIANT:
 *     stream              partitioned, MPIX_Startall_enqueue, kernels with
 *                         MPIX_Pready, MPIX_Wait(all)_enqueue, kernel copy
 *     host                partitioned, MPI_Startall, MPIX_Pbuf_prepare,
 *                         kernels with MPIX_Pready, MPI_Wait, kernel copy
 *     sendrecv            kernel, cudaStreamSynchronize, MPI_Send/MPI_Recv
 *     kernels             stream, with info "mpix_stream_kernels" "true" on
 *                         both sends
 *     parrived            kernels, but each kernel is on the GPU before its
 *                         data: rank 1's waits for the block with device
 *                         MPIX_Parrived, rank 0's for the answer, so that no
 *                         launch lies between an arrival and the reply
 *     kernels_graph, parrived_graph   kernels and parrived, with
 *                         BENCH_GRAPH_EPOCHS epochs captured into one graph
 *     nccl                ping, ncclSend, ncclRecv on rank 0's stream;
 *                         ncclRecv, pong, ncclSend on rank 1's: no host
 *                         synchronisation per epoch (-DHAVE_NCCL)
 * The receiver checks the last epoch's data; a variant whose data is wrong
 * prints no row and exits with 1.
 * Environment: BENCH_LABEL (nvlink) names the path in the component
 * column; BENCH_PARTS_MAX caps the partitions (blocks per partition then
 * grid / cap); BENCH_THREAD_MULTIPLE=1: MPI_THREAD_MULTIPLE for every
 * variant (otherwise only for progress_stream); BENCH_HRTT_ITERS (2000).
 * Output: CSV rows bench,component,param1,param2,value,unit on rank 0:
 *   stream_goodput,VARIANT-LABEL,GRID,BYTES,GB/s,GB/s
 *   stream_hrtt,VARIANT-LABEL,8192,ITERATIONS,US,us
 *   stream_calls,VARIANT-LABEL,GRID,RANK,S/L/W,us   stream-ordered variants:
 *                  the host's time an epoch in MPIX_Start_enqueue, the
 *                  kernel's launch and MPIX_Wait_enqueue
 *   stream_issue,VARIANT-LABEL,GRID,RANK,US,us   the host's time an epoch to
 *                  issue the epochs (before the final synchronisation): where
 *                  it reaches the epoch's time, the host, not the GPU, sets
 *                  the pace */
#include <cuda_runtime.h>
#include <mpi.h>
#include <mpi-ext.h>
#include <mpix_part_device.h>
#include "../examples/common.h" /* CUDA() checks */
#include "stream_ops.h"
#include "graph_epochs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, failed;
static const char *label = "nvlink";
static char vname[64]; /* the variant in the rows */

enum { V_TRADITIONAL, V_KCOPY_HOST, V_KCOPY_STREAM, V_PROGRESS_STREAM, V_IPC_LIMIT,
       V_KCOPY_KERNELS, V_KCOPY_GRAPH, V_IPC_LIMIT_GRAPH, V_NCCL, V_PROGRESS_KERNELS,
       V_PROGRESS_GRAPH, V_IPC_AFTER_GRAPH, V_IPC_AFTER_NOMARK_GRAPH,
       V_IPC_MARKS_GRAPH, V_COUNT };
static const char *goodput_names[V_COUNT] = {
    "traditional", "kernel_copy_host",    "kernel_copy_stream", "progress_stream",
    "ipc_limit",   "kernel_copy_kernels", "kernel_copy_graph",  "ipc_limit_graph",
    "nccl",        "progress_kernels",    "progress_graph",     "ipc_after_graph",
    "ipc_after_nomark_graph", "ipc_marks_graph"};
enum { H_STREAM, H_HOST, H_SENDRECV, H_KERNELS, H_PARRIVED, H_KERNELS_GRAPH, H_PARRIVED_GRAPH,
       H_NCCL, H_COUNT };
static const char *hrtt_names[H_COUNT] = {"stream",   "host",          "sendrecv",
                                          "kernels",  "parrived",      "kernels_graph",
                                          "parrived_graph", "nccl"};

/* NCCL's communicator (the nccl variants), or NULL */
static void *nccl_comm;

/* The nccl variants' transfer of n doubles on stream s: rank `from` sends
 * sbuf, the other receives into rbuf. */
static void nccl_move(const double *sbuf, double *rbuf, size_t n, int from, cudaStream_t s)
{
#ifdef HAVE_NCCL
    ncclResult_t r = rank == from
                         ? ncclSend(sbuf, n, ncclDouble, 1 - rank, (ncclComm_t) nccl_comm, s)
                         : ncclRecv(rbuf, n, ncclDouble, 1 - rank, (ncclComm_t) nccl_comm, s);
    if (ncclSuccess != r) {
        fprintf(stderr, "b_stream: nccl: %s\n", ncclGetErrorString(r));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
#else
    (void) sbuf, (void) rbuf, (void) n, (void) from, (void) s;
    MPI_Abort(MPI_COMM_WORLD, 2); /* main() refuses the variant without NCCL */
#endif
}

#define CHECK_MPI(call)                                                                  \
    do {                                                                                 \
        int rc_ = (call);                                                                \
        if (MPI_SUCCESS != rc_) {                                                        \
            char s_[MPI_MAX_ERROR_STRING];                                               \
            int l_;                                                                      \
            MPI_Error_string(rc_, s_, &l_);                                              \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_);           \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                \
        }                                                                                \
    } while (0)

__host__ __device__ static inline double expected(long i, int epoch)
{
    return (double) (i & 1023) + (double) (i >> 10) + (double) epoch;
}

__global__ void init_ab(double *a, double *b)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    a[i] = (double) (i & 1023);
    b[i] = (double) (i >> 10);
}

/* The compute of every variant; with a device request, every thread then
 * marks its block's partition (info "mpix_pready_aggregate" "block"). */
__global__ void vadd(const double *a, const double *b, double *c, int epoch, const int *ebase,
                     int bpp, MPIX_Prequest preq)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i] + (double) epoch_at(epoch, ebase);
    if (NULL != preq) MPIX_Pready(blockIdx.x / bpp, preq);
}

__global__ void count_wrong(const double *c, int epoch, unsigned long long *wrong)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    if (c[i] != expected(i, epoch)) atomicAdd(wrong, 1ull);
}

/* Rank 1: whether c holds `epoch`'s values (n = grid * 1024); on rank 0
 * the verdict. */
static bool data_ok(const double *c, int grid, int epoch, cudaStream_t s, const char *what)
{
    unsigned long long *dw, wrong = 0;
    int ok = 1;
    if (1 == rank) {
        CUDA(cudaMalloc(&dw, sizeof(*dw)));
        CUDA(cudaMemsetAsync(dw, 0, sizeof(*dw), s));
        count_wrong<<<grid, 1024, 0, s>>>(c, epoch, dw);
        CUDA(cudaMemcpyAsync(&wrong, dw, sizeof(wrong), cudaMemcpyDeviceToHost, s));
        CUDA(cudaStreamSynchronize(s));
        CUDA(cudaFree(dw));
        ok = 0 == wrong;
        if (!ok) {
            fprintf(stderr, "b_stream: %s grid %d: %llu of %ld values wrong after epoch %d\n",
                    what, grid, wrong, (long) grid * 1024, epoch);
        }
    }
    CHECK_MPI(MPI_Bcast(&ok, 1, MPI_INT, 1, MPI_COMM_WORLD));
    if (!ok) failed = 1;
    return ok;
}

static int iters_for(size_t bytes)
{
    size_t it = ((size_t) 1 << 30) / (bytes + 65536);
    return (int) (it < 20 ? 20 : it > 2000 ? 2000 : it);
}

/* The node's limit: what stream-ordered kernel copy must do at least, with
 * the copy engine instead of the kernel's stores. Each rank has a flag
 * word in GPU memory that the other maps by CUDA IPC:
 *   rank 1's stream: write rtr[e] into rank 0's flag (its buffer is free
 *                    for epoch e), wait until its own flag >= e (arrived)
 *   rank 0's stream: the kernel, wait until its own flag >= e (the
 *                    receiver is ready), cudaMemcpyAsync of c into rank
 *                    1's mapped buffer, write e into rank 1's flag
 * i.e. one ready-to-receive and one arrival per epoch, both stream memory
 * operations (a write into the peer's memory, a wait on local memory), as
 * the receiver must be allowed to reuse its buffer after its wait. */
struct ipc {
    uint64_t *flag;      /* this rank's flag (local GPU memory) */
    uint64_t *peer_flag; /* the other rank's, mapped */
    double *peer_c;      /* rank 0: rank 1's c, mapped */
    /* ipc_after (rank 0): the marks (one a block), the marks found
     * missing, the copy kernel's blocks */
    uint64_t *marks;
    unsigned long long *bad;
    int copy_blocks;
};

/* ipc_after's producer: vadd, then the block's first thread stores the
 * block's mark, the epoch (no fence, no count: the copy kernel runs after
 * this kernel has completed). */
__global__ void vadd_mark(const double *a, const double *b, double *c, int epoch,
                          const int *ebase, uint64_t *marks)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    int e = epoch_at(epoch, ebase);
    c[i] = a[i] + b[i] + (double) e;
    if (NULL != marks && 0 == threadIdx.x) marks[blockIdx.x] = (uint64_t) e;
}

/* The caller's share of the grid's marks, j = first, first + stride, ...:
 * those that do not show the epoch are added to *bad (counted in a
 * register, so that the loads overlap). */
__device__ static inline void count_unmarked(const uint64_t *marks, long first, long stride,
                                             int grid, int epoch, const int *ebase,
                                             unsigned long long *bad)
{
    uint64_t e = (uint64_t) epoch_at(epoch, ebase);
    unsigned long long missing = 0;
#pragma unroll 8
    for (long j = first; j < grid; j += stride) {
        missing += (marks[j] != e);
    }
    if (0 != missing) atomicAdd(bad, missing);
}

/* ipc_marks' check, the programmatic dependent of vadd_mark: one block
 * counts the marks that do not show the epoch into *bad. */
__global__ void marks_check(const uint64_t *marks, int grid, int epoch, const int *ebase,
                            unsigned long long *bad)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    count_unmarked(marks, threadIdx.x, blockDim.x, grid, epoch, ebase, bad);
}

/* Launches kernel<<<blocks, 1024>>>(args...) on s as a programmatic
 * dependent of the kernel before it. */
template <typename... P, typename... A>
static void launch_dependent(void (*kernel)(P...), int blocks, cudaStream_t s, A... args)
{
    cudaLaunchAttribute attr;
    cudaLaunchConfig_t cfg = {};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(1024);
    cfg.stream = s;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CUDA(cudaLaunchKernelEx(&cfg, kernel, args...));
}

/* ipc_after's copy, the programmatic dependent of vadd_mark: once that
 * kernel has completed (griddepcontrol.wait), each block waits for the
 * receiver's ready-to-receive (*rtr >= value), counts the marks of its
 * share that do not show the epoch into *bad, and copies its share of src
 * into dst, 16 bytes a thread, four loads in flight. */
__global__ void __launch_bounds__(1024)
    copy_after(const uint4 *src, uint4 *dst, long n16, const volatile uint64_t *rtr,
               uint64_t value, const uint64_t *marks, int grid, int epoch, const int *ebase,
               unsigned long long *bad)
{
    long stride = (long) gridDim.x * blockDim.x, i = blockIdx.x * (long) blockDim.x + threadIdx.x;
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    if (0 == threadIdx.x) {
        while (*rtr < value) __nanosleep(64);
    }
    __syncthreads();
    if (NULL != marks) {
        count_unmarked(marks, i, stride, grid, epoch, ebase, bad);
    }
    for (; i + 3 * stride < n16; i += 4 * stride) {
        uint4 v0 = src[i], v1 = src[i + stride], v2 = src[i + 2 * stride], v3 = src[i + 3 * stride];
        dst[i] = v0;
        dst[i + stride] = v1;
        dst[i + 2 * stride] = v2;
        dst[i + 3 * stride] = v3;
    }
    for (; i < n16; i += stride) dst[i] = src[i];
}

static void ipc_open(struct ipc *m, double *c)
{
    cudaIpcMemHandle_t mine[2], theirs[2];
    CUDA(cudaMalloc(&m->flag, 256));
    CUDA(cudaMemset(m->flag, 0, 256));
    CUDA(cudaDeviceSynchronize());
    CUDA(cudaIpcGetMemHandle(&mine[0], m->flag));
    CUDA(cudaIpcGetMemHandle(&mine[1], c));
    CHECK_MPI(MPI_Sendrecv(mine, sizeof(mine), MPI_BYTE, 1 - rank, 30, theirs, sizeof(theirs),
                     MPI_BYTE, 1 - rank, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CUDA(cudaIpcOpenMemHandle((void **) &m->peer_flag, theirs[0],
                              cudaIpcMemLazyEnablePeerAccess));
    m->peer_c = NULL;
    if (0 == rank) {
        CUDA(cudaIpcOpenMemHandle((void **) &m->peer_c, theirs[1],
                                  cudaIpcMemLazyEnablePeerAccess));
    }
    stream_ops_load();
}

static void ipc_close(struct ipc *m)
{
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* no peer writes into our memory any more */
    CUDA(cudaIpcCloseMemHandle(m->peer_flag));
    if (NULL != m->peer_c) CUDA(cudaIpcCloseMemHandle(m->peer_c));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CUDA(cudaFree(m->flag));
}

/* Epoch e (the kernel's: ebase's + e in a graph) with flag word w set to
 * `value`: word 0 counts the epochs of the host-issued limit; a graph
 * (ipc_limit_graph) replays constants, so its epochs count 1..K in a word
 * of their own, which each side clears at the end of the replay; two
 * graphs on words 2 and 3 take turns, so that a side clears its word
 * before the other can write it again (that needs the other graph's
 * whole replay in between). */
static void ipc_epoch(const struct ipc *m, const double *a, const double *b, double *c, int grid,
                      int w, uint64_t value, int e, const int *ebase, cudaStream_t s, int v)
{
    if (0 == rank && (V_IPC_AFTER_GRAPH == v || V_IPC_AFTER_NOMARK_GRAPH == v)) {
        uint64_t *marks = (V_IPC_AFTER_GRAPH == v) ? m->marks : NULL;
        vadd_mark<<<grid, 1024, 0, s>>>(a, b, c, e, ebase, marks);
        launch_dependent(copy_after, m->copy_blocks, s, (const uint4 *) c, (uint4 *) m->peer_c,
                         (long) grid * 1024 * (long) sizeof(double) / 16,
                         (const volatile uint64_t *) (m->flag + w), value,
                         (const uint64_t *) marks, grid, e, (const int *) ebase, m->bad);
        CU(write_value((CUstream) s, (CUdeviceptr) (m->peer_flag + w), value,
                       CU_STREAM_WRITE_VALUE_DEFAULT));
    } else if (0 == rank) {
        if (V_IPC_MARKS_GRAPH == v) {
            vadd_mark<<<grid, 1024, 0, s>>>(a, b, c, e, ebase, m->marks);
            launch_dependent(marks_check, 1, s, (const uint64_t *) m->marks, grid, e,
                             (const int *) ebase, m->bad);
        } else {
            vadd<<<grid, 1024, 0, s>>>(a, b, c, e, ebase, 1, NULL);
        }
        CU(wait_value((CUstream) s, (CUdeviceptr) (m->flag + w), value,
                      CU_STREAM_WAIT_VALUE_GEQ));
        CUDA(cudaMemcpyAsync(m->peer_c, c, (size_t) grid * 1024 * sizeof(double),
                             cudaMemcpyDeviceToDevice, s));
        CU(write_value((CUstream) s, (CUdeviceptr) (m->peer_flag + w), value,
                       CU_STREAM_WRITE_VALUE_DEFAULT));
    } else {
        CU(write_value((CUstream) s, (CUdeviceptr) (m->peer_flag + w), value,
                       CU_STREAM_WRITE_VALUE_DEFAULT));
        CU(wait_value((CUstream) s, (CUdeviceptr) (m->flag + w), value,
                      CU_STREAM_WAIT_VALUE_GEQ));
    }
}

/* A communicator bound to the CUDA stream s (the stream variants). */
static MPI_Comm stream_comm(cudaStream_t s, MPIX_Stream *ms)
{
    MPI_Info info;
    MPI_Comm comm;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "type", "cudaStream_t"));
    CHECK_MPI(MPIX_Info_set_hex(info, "value", &s, sizeof(s)));
    CHECK_MPI(MPIX_Stream_create(info, ms));
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_MPI(MPIX_Stream_comm_create(MPI_COMM_WORLD, *ms, &comm));
    return comm;
}

static MPI_Info part_info(const char *copy, int threads, bool kernels)
{
    MPI_Info info;
    char thr[32];
    snprintf(thr, sizeof(thr), "%d", threads);
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "mpix_pready_threads", thr));
    CHECK_MPI(MPI_Info_set(info, "mpix_device_copy", copy));
    CHECK_MPI(MPI_Info_set(info, "mpix_pready_aggregate", "block"));
    if (kernels) CHECK_MPI(MPI_Info_set(info, "mpix_stream_kernels", "true"));
    return info;
}

/* One stream-ordered epoch of kernel copy or the progress engine; `calls`
 * adds the host's time in the start, the launch and the wait. */
static void stream_epoch(MPI_Request *req, MPIX_Prequest preq, const double *a, const double *b,
                         double *c, int grid, int bpp, int e, const int *ebase, cudaStream_t s,
                         double calls[3])
{
    double c0 = MPI_Wtime();
    CHECK_MPI(MPIX_Start_enqueue(req));
    double c1 = MPI_Wtime();
    if (0 == rank) {
        vadd<<<grid, 1024, 0, s>>>(a, b, c, e, ebase, bpp, preq);
    }
    double c2 = MPI_Wtime();
    CHECK_MPI(MPIX_Wait_enqueue(req, MPI_STATUS_IGNORE));
    if (NULL != calls) {
        calls[0] += c1 - c0;
        calls[1] += c2 - c1;
        calls[2] += MPI_Wtime() - c2;
    }
}

/* The *_graph variants: K epochs from epoch e on captured into graph[0]
 * (ipc_limit_graph: graph[0] and graph[1] on flag words 2 and 3). The
 * epochs of a replay are ebase's + 1..K; the graph ends by advancing
 * ebase by K. */
/* Goodput variants whose epochs are partitioned and stream-ordered (on
 * the stream communicator). */
static bool stream_variant(int v)
{
    return V_KCOPY_STREAM == v || V_PROGRESS_STREAM == v || V_KCOPY_KERNELS == v ||
           V_KCOPY_GRAPH == v || V_PROGRESS_KERNELS == v || V_PROGRESS_GRAPH == v;
}

/* The graph variants of the IPC limit and its after-kernel prototype */
static bool ipc_graph(int v)
{
    return V_IPC_LIMIT_GRAPH == v || V_IPC_AFTER_GRAPH == v || V_IPC_AFTER_NOMARK_GRAPH == v ||
           V_IPC_MARKS_GRAPH == v;
}

static void graph_build(int v, int K, MPI_Request *req, MPIX_Prequest preq, const struct ipc *m,
                        const double *a, const double *b, double *c, int grid, int bpp, int e,
                        int *ebase, cudaStream_t s, cudaGraphExec_t graph[2])
{
    graph_base(ebase, e - 1, s);
    for (int gi = 0; gi < (ipc_graph(v) ? 2 : 1); ++gi) {
        graph[gi] = graph_capture(s, K, 0 == rank ? ebase : NULL, [&](int k) {
            if (!ipc_graph(v)) {
                stream_epoch(req, preq, a, b, c, grid, bpp, k, ebase, s, NULL);
                return;
            }
            ipc_epoch(m, a, b, c, grid, 2 + gi, (uint64_t) k, k, ebase, s, v);
            if (K == k) { /* this side's word, for the graph's next turn */
                CU(write_value((CUstream) s, (CUdeviceptr) (m->flag + 2 + gi), 0,
                               CU_STREAM_WRITE_VALUE_DEFAULT));
            }
        });
    }
}

/* Seconds per epoch of variant v at `grid` blocks, measured on rank 1;
 * *epoch counts the epochs of the whole run (c holds the last one's). */
static double goodput_run(int v, int grid, const double *a, const double *b, double *c,
                          cudaStream_t s, MPI_Comm scomm, const struct ipc *m, int *epoch,
                          double issue[8])
{
    size_t n = (size_t) grid * 1024;
    const char *env = getenv("BENCH_PARTS_MAX");
    int maxp = (NULL != env && atoi(env) > 0) ? atoi(env) : grid;
    int parts = grid < maxp ? grid : maxp, bpp = grid / parts, iters = iters_for(n * 8);
    bool stream = stream_variant(v);
    bool progress = V_PROGRESS_STREAM == v || V_PROGRESS_KERNELS == v || V_PROGRESS_GRAPH == v;
    bool graphed = V_KCOPY_GRAPH == v || ipc_graph(v) || V_PROGRESS_GRAPH == v;
    int K = graphed ? graph_epochs() : 1, *ebase = NULL;
    cudaGraphExec_t graph[2] = {NULL, NULL};
    MPI_Request req = MPI_REQUEST_NULL;
    MPIX_Prequest preq = NULL;
    double t0 = 0, calls[3] = {0, 0, 0}; /* host time in start, launch, wait */

    iters = (iters + K - 1) / K * K;
    if (graphed) CUDA(cudaMalloc(&ebase, sizeof(*ebase)));
    if (V_KCOPY_HOST == v || stream) {
        MPI_Info info = part_info(progress ? "progress" : "kernel", bpp * 1024,
                                  V_KCOPY_KERNELS == v || V_KCOPY_GRAPH == v ||
                                      V_PROGRESS_KERNELS == v || V_PROGRESS_GRAPH == v);
        MPI_Comm comm = stream ? scomm : MPI_COMM_WORLD;
        int count = (int) (n / parts);
        if (0 == rank) {
            CHECK_MPI(MPI_Psend_init(c, parts, count, MPI_DOUBLE, 1, 9, comm, info, &req));
        } else {
            CHECK_MPI(MPI_Precv_init(c, parts, count, MPI_DOUBLE, 0, 9, comm, info, &req));
        }
        CHECK_MPI(MPI_Info_free(&info));
    }
    /* three warm-up epochs, then the timed ones */
    for (int i = -3; i < iters; ++i) {
        int e = ++*epoch;
        if (0 == rank && NULL == preq && stream) {
            /* the device request before the first stream-ordered start */
            CHECK_MPI(MPIX_Prequest_create(req, &preq));
        }
        if (graphed && 0 == i) {
            graph_build(v, K, &req, preq, m, a, b, c, grid, bpp, e, ebase, s, graph);
        }
        if (0 == i) {
            CUDA(cudaStreamSynchronize(s));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            t0 = MPI_Wtime();
        }
        if (graphed && i >= 0) {
            CUDA(cudaGraphLaunch(graph[(NULL != graph[1]) ? (i / K) & 1 : 0], s));
            *epoch += K - 1;
            i += K - 1;
            continue;
        }
        switch (v) {
        case V_TRADITIONAL:
            if (0 == rank) {
                vadd<<<grid, 1024, 0, s>>>(a, b, c, e, NULL, 1, NULL);
                CUDA(cudaStreamSynchronize(s));
                CHECK_MPI(MPI_Send(c, (int) n, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD));
            } else {
                CHECK_MPI(MPI_Recv(c, (int) n, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
            }
            break;
        case V_KCOPY_HOST:
            CHECK_MPI(MPI_Start(&req));
            if (0 == rank) {
                if (NULL == preq) CHECK_MPI(MPIX_Prequest_create(req, &preq));
                CHECK_MPI(MPIX_Pbuf_prepare(&req));
                vadd<<<grid, 1024, 0, s>>>(a, b, c, e, NULL, bpp, preq);
            }
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            break;
        case V_NCCL:
            if (0 == rank) vadd<<<grid, 1024, 0, s>>>(a, b, c, e, NULL, 1, NULL);
            nccl_move(c, c, n, 0, s);
            break;
        case V_KCOPY_STREAM:
        case V_KCOPY_KERNELS:
        case V_KCOPY_GRAPH: /* its warm-up */
        case V_PROGRESS_GRAPH:
        case V_PROGRESS_STREAM:
        case V_PROGRESS_KERNELS:
            stream_epoch(&req, preq, a, b, c, grid, bpp, e, NULL, s, i >= 0 ? calls : NULL);
            break;
        default:
            ipc_epoch(m, a, b, c, grid, 0, (uint64_t) e, e, NULL, s, v);
            break;
        }
        if (0 == rank) CUDA(cudaGetLastError());
    }
    double ti = (MPI_Wtime() - t0) / iters;
    CUDA(cudaStreamSynchronize(s));
    double t = (MPI_Wtime() - t0) / iters;
    for (int gi = 0; gi < 2; ++gi) {
        if (NULL != graph[gi]) CUDA(cudaGraphExecDestroy(graph[gi]));
    }
    if (NULL != ebase) CUDA(cudaFree(ebase));
    CHECK_MPI(MPI_Gather(&ti, 1, MPI_DOUBLE, issue, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Gather(calls, 3, MPI_DOUBLE, issue + 2, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    for (int k = 2; k < 8; ++k) issue[k] /= iters;
    if (MPI_REQUEST_NULL != req) {
        /* the host sees the enqueued epochs complete */
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (NULL != preq) CHECK_MPI(MPIX_Prequest_free(&preq));
        CHECK_MPI(MPI_Request_free(&req));
    }
    CHECK_MPI(MPI_Bcast(&t, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD));
    return t;
}

/* Ping-pong of one block: rank 0's kernel writes epoch e, rank 1's adds
 * one to what arrived; each marks the block with MPIX_Pready when given a
 * device request. */
__global__ void ping(double *sbuf, int e, const int *ebase, MPIX_Prequest preq)
{
    sbuf[threadIdx.x] = (double) epoch_at(e, ebase) + threadIdx.x;
    if (NULL != preq) MPIX_Pready(0, preq);
}

__global__ void pong(const double *rbuf, double *sbuf, MPIX_Prequest preq)
{
    sbuf[threadIdx.x] = rbuf[threadIdx.x] + 1.0;
    if (NULL != preq) MPIX_Pready(0, preq);
}

/* H_PARRIVED: the kernels are on the GPU before the data: rank 0's writes
 * and marks its block, then waits for the answer; rank 1's waits for the
 * block (device MPIX_Parrived), then answers. The streams still start and
 * wait for every epoch; no launch lies between an arrival and the reply. */
__device__ static void await(MPIX_Prequest rpreq)
{
    __shared__ int flag;
    if (0 == threadIdx.x) {
        do {
            MPIX_Parrived(rpreq, 0, &flag);
        } while (!flag);
    }
    __syncthreads();
}

__global__ void ping_await(double *sbuf, int e, const int *ebase, MPIX_Prequest preq,
                           MPIX_Prequest rpreq)
{
    sbuf[threadIdx.x] = (double) epoch_at(e, ebase) + threadIdx.x;
    MPIX_Pready(0, preq);
    await(rpreq);
}

__global__ void pong_await(const double *rbuf, double *sbuf, MPIX_Prequest preq,
                           MPIX_Prequest rpreq)
{
    await(rpreq);
    sbuf[threadIdx.x] = ((const volatile double *) rbuf)[threadIdx.x] + 1.0;
    MPIX_Pready(0, preq);
}

__global__ void check_pong(const double *rbuf, int e, unsigned long long *wrong)
{
    if (rbuf[threadIdx.x] != (double) e + threadIdx.x + 1.0) atomicAdd(wrong, 1ull);
}

/* One stream-ordered ping-pong epoch (H_STREAM, H_KERNELS, H_PARRIVED and
 * their graphs: `awaits` for the kernels that poll MPIX_Parrived). */
static void hrtt_epoch(bool awaits, MPI_Request req[2], MPIX_Prequest preq, MPIX_Prequest rpreq,
                       double *sbuf, double *rbuf, int e, const int *ebase, cudaStream_t s)
{
    enum { N = 1024 };
    CHECK_MPI(MPIX_Startall_enqueue(2, req));
    if (awaits) {
        if (0 == rank) {
            ping_await<<<1, N, 0, s>>>(sbuf, e, ebase, preq, rpreq);
        } else {
            pong_await<<<1, N, 0, s>>>(rbuf, sbuf, preq, rpreq);
        }
        CHECK_MPI(MPIX_Waitall_enqueue(2, req, MPI_STATUSES_IGNORE));
    } else if (0 == rank) {
        ping<<<1, N, 0, s>>>(sbuf, e, ebase, preq);
        CHECK_MPI(MPIX_Waitall_enqueue(2, req, MPI_STATUSES_IGNORE));
    } else {
        CHECK_MPI(MPIX_Wait_enqueue(&req[1], MPI_STATUS_IGNORE));
        pong<<<1, N, 0, s>>>(rbuf, sbuf, preq);
        CHECK_MPI(MPIX_Wait_enqueue(&req[0], MPI_STATUS_IGNORE));
    }
}

static double hrtt_run(int v, cudaStream_t s, MPI_Comm scomm, int iters)
{
    enum { N = 1024 };
    double *sbuf, *rbuf, t0 = 0;
    unsigned long long *dw, wrong = 0;
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL}; /* [0] send, [1] receive */
    MPIX_Prequest preq = NULL, rpreq = NULL;
    int peer = 1 - rank, e = 0, *ebase = NULL;
    bool graphed = H_KERNELS_GRAPH == v || H_PARRIVED_GRAPH == v;
    bool awaits = H_PARRIVED == v || H_PARRIVED_GRAPH == v;
    bool streamed = H_STREAM == v || H_KERNELS == v || awaits || graphed;
    int K = graphed ? graph_epochs() : 1;
    cudaGraphExec_t graph = NULL;

    CUDA(cudaMalloc(&sbuf, N * sizeof(double)));
    CUDA(cudaMalloc(&rbuf, N * sizeof(double)));
    CUDA(cudaMalloc(&dw, sizeof(*dw)));
    CUDA(cudaMemset(rbuf, 0, N * sizeof(double)));
    CUDA(cudaMemset(dw, 0, sizeof(*dw)));
    CUDA(cudaDeviceSynchronize());
    if (H_SENDRECV != v && H_NCCL != v) {
        MPI_Comm comm = streamed ? scomm : MPI_COMM_WORLD;
        MPI_Info info = part_info("kernel", N, H_KERNELS == v || awaits || graphed);
        /* tag 21: rank 0 to rank 1, tag 22: back */
        CHECK_MPI(MPI_Psend_init(sbuf, 1, N, MPI_DOUBLE, peer, 21 + rank, comm, info, &req[0]));
        CHECK_MPI(MPI_Precv_init(rbuf, 1, N, MPI_DOUBLE, peer, 22 - rank, comm, info, &req[1]));
        CHECK_MPI(MPI_Info_free(&info));
    }
    iters = (iters + K - 1) / K * K;
    if (graphed) CUDA(cudaMalloc(&ebase, sizeof(*ebase)));
    for (int i = -100; i < iters; ++i) {
        e = i + 101;
        if (streamed && NULL == preq) {
            CHECK_MPI(MPIX_Prequest_create(req[0], &preq));
            if (awaits) CHECK_MPI(MPIX_Prequest_create(req[1], &rpreq));
        }
        if (graphed && 0 == i) {
            /* K epochs, e to e + K - 1 at the first replay (ebase + 1..K) */
            graph_base(ebase, e - 1, s);
            graph = graph_capture(s, K, 0 == rank ? ebase : NULL, [&](int k) {
                hrtt_epoch(awaits, req, preq, rpreq, sbuf, rbuf, k, ebase, s);
            });
        }
        if (0 == i) {
            CUDA(cudaStreamSynchronize(s));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            t0 = MPI_Wtime();
        }
        if (graphed && i >= 0) {
            CUDA(cudaGraphLaunch(graph, s));
            i += K - 1;
            e += K - 1;
        } else if (streamed) {
            hrtt_epoch(awaits, req, preq, rpreq, sbuf, rbuf, e, NULL, s);
        } else if (H_NCCL == v) {
            if (0 == rank) {
                ping<<<1, N, 0, s>>>(sbuf, e, NULL, NULL);
                nccl_move(sbuf, rbuf, N, 0, s);
                nccl_move(sbuf, rbuf, N, 1, s);
            } else {
                nccl_move(sbuf, rbuf, N, 0, s);
                pong<<<1, N, 0, s>>>(rbuf, sbuf, NULL);
                nccl_move(sbuf, rbuf, N, 1, s);
            }
        } else if (H_HOST == v) {
            CHECK_MPI(MPI_Startall(2, req));
            if (NULL == preq) CHECK_MPI(MPIX_Prequest_create(req[0], &preq));
            if (1 == rank) CHECK_MPI(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
            CHECK_MPI(MPIX_Pbuf_prepare(&req[0]));
            if (0 == rank) {
                ping<<<1, N, 0, s>>>(sbuf, e, NULL, preq);
            } else {
                pong<<<1, N, 0, s>>>(rbuf, sbuf, preq);
            }
            CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        } else if (0 == rank) {
            ping<<<1, N, 0, s>>>(sbuf, e, NULL, NULL);
            CUDA(cudaStreamSynchronize(s));
            CHECK_MPI(MPI_Send(sbuf, N, MPI_DOUBLE, peer, 21, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Recv(rbuf, N, MPI_DOUBLE, peer, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Recv(rbuf, N, MPI_DOUBLE, peer, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            pong<<<1, N, 0, s>>>(rbuf, sbuf, NULL);
            CUDA(cudaStreamSynchronize(s));
            CHECK_MPI(MPI_Send(sbuf, N, MPI_DOUBLE, peer, 22, MPI_COMM_WORLD));
        }
    }
    CUDA(cudaStreamSynchronize(s));
    double t = (MPI_Wtime() - t0) / iters / 2;
    if (NULL != graph) CUDA(cudaGraphExecDestroy(graph));
    if (NULL != ebase) CUDA(cudaFree(ebase));
    if (0 == rank) {
        check_pong<<<1, N, 0, s>>>(rbuf, e, dw);
        CUDA(cudaMemcpyAsync(&wrong, dw, sizeof(wrong), cudaMemcpyDeviceToHost, s));
        CUDA(cudaStreamSynchronize(s));
        if (0 != wrong) {
            fprintf(stderr, "b_stream: hrtt %s: %llu of %d values wrong after epoch %d\n",
                    hrtt_names[v], wrong, N, e);
            failed = 1;
        }
    }
    if (H_SENDRECV != v && H_NCCL != v) {
        CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        CHECK_MPI(MPIX_Prequest_free(&preq));
        if (NULL != rpreq) CHECK_MPI(MPIX_Prequest_free(&rpreq));
        CHECK_MPI(MPI_Request_free(&req[0]));
        CHECK_MPI(MPI_Request_free(&req[1]));
    }
    CUDA(cudaFree(sbuf));
    CUDA(cudaFree(rbuf));
    CUDA(cudaFree(dw));
    CHECK_MPI(MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD));
    return t;
}

/* Whether `grid` blocks of vadd all fit on the GPU at once with room for a
 * one-thread kernel: the sender's blocks wait for the receiver's start, so
 * where the ranks share the GPU and the start is a kernel, a grid that
 * fills it never ends. */
static bool fits(int grid)
{
    int dev, sms, per_sm;
    CUDA(cudaGetDevice(&dev));
    CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, vadd, 1024, 0));
    return grid < sms * per_sm;
}

/* Whether s ends with suffix, which is then cut off. */
static bool strip_suffix(char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n <= k || 0 != strcmp(s + n - k, suffix)) return false;
    s[n - k] = '\0';
    return true;
}

static int lookup(const char *name, const char **names, int count)
{
    for (int i = 0; i < count; ++i) {
        if (0 == strcmp(name, names[i])) return i;
    }
    return -1;
}

int main(int argc, char **argv)
{
    bool good = argc > 2 && 0 == strcmp(argv[1], "goodput");
    bool hrtt = argc > 2 && 0 == strcmp(argv[1], "hrtt");
    int size, provided, want = MPI_THREAD_SINGLE;
    /* VARIANT_kstart: a *_graph variant with the starts the graphs capture
     * made one-thread kernels (MCA part_ucx_stream_graph_start kernel),
     * where the ranks share a GPU only at grids whose blocks all fit on it
     * beside the start (fits()); VARIANT_nojoin (after _kstart where both):
     * every captured start a node of its own, none joined to the wait
     * before it (MCA part_ucx_stream_graph_join 0) */
    bool kstart = false, nojoin = false, copy_where = false; /* _inkernel or _after */
    if (argc > 2) snprintf(vname, sizeof(vname), "%s", argv[2]);
    if (argc > 2 && strip_suffix(argv[2], "_inkernel")) {
        copy_where = true;
        setenv("OMPI_MCA_part_ucx_stream_copy_after_bytes", "0", 1);
    } else if (argc > 2 && strip_suffix(argv[2], "_after")) {
        copy_where = true;
        setenv("OMPI_MCA_part_ucx_stream_copy_after_bytes", "1", 1);
    }
    if (argc > 2 && strip_suffix(argv[2], "_nojoin")) {
        nojoin = true;
        setenv("OMPI_MCA_part_ucx_stream_graph_join", "0", 1);
    }
    if (argc > 2 && strip_suffix(argv[2], "_kstart")) {
        kstart = true;
        setenv("OMPI_MCA_part_ucx_stream_graph_start", "kernel", 1);
    }
    int v = good ? lookup(argv[2], goodput_names, V_COUNT)
                 : hrtt ? lookup(argv[2], hrtt_names, H_COUNT) : -1;

    if ((good && (V_PROGRESS_STREAM == v)) || NULL != getenv("BENCH_THREAD_MULTIPLE")) {
        want = MPI_THREAD_MULTIPLE;
    }
    (void) example_select_gpu();
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (getenv("BENCH_LABEL")) label = getenv("BENCH_LABEL");
    /* the goodput and half-round-trip variants number apart */
    bool graph_variant = good ? V_KCOPY_GRAPH == v || V_PROGRESS_GRAPH == v
                              : H_KERNELS_GRAPH == v || H_PARRIVED_GRAPH == v;
    if (v < 0 || (good && argc < 4) || 2 != size || ((kstart || nojoin) && !graph_variant) ||
        (copy_where && (!good || (V_KCOPY_GRAPH != v && V_KCOPY_KERNELS != v)))) {
        if (0 == rank) {
            fprintf(stderr, "usage: mpirun -np 2 b_stream goodput VARIANT GRIDS | hrtt VARIANT\n"
                            "  (see the comment at the top of bench/b_stream.cu)\n");
        }
        MPI_Finalize();
        return 2;
    }
    if (provided < want) {
        if (0 == rank) fprintf(stderr, "b_stream: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Finalize();
        return 1;
    }
    if ((good && V_NCCL == v) || (hrtt && H_NCCL == v)) {
#ifdef HAVE_NCCL
        nccl_comm = example_nccl_init("b_stream");
#endif
        if (NULL == nccl_comm) { /* no NCCL in the build, or ranks sharing a GPU */
            if (0 == rank) fprintf(stderr, "b_stream: %s: no NCCL here: skipped\n", vname);
            MPI_Finalize();
            return 0;
        }
    }
    /* Every kernel loaded before the first enqueued epoch
     * (MPIX_Start_enqueue(3): lazy loading behind a pending wait). */
    cudaFuncAttributes fa;
    CUDA(cudaFuncGetAttributes(&fa, init_ab));
    CUDA(cudaFuncGetAttributes(&fa, vadd));
    CUDA(cudaFuncGetAttributes(&fa, advance));
    CUDA(cudaFuncGetAttributes(&fa, count_wrong));
    CUDA(cudaFuncGetAttributes(&fa, ping));
    CUDA(cudaFuncGetAttributes(&fa, pong));
    CUDA(cudaFuncGetAttributes(&fa, ping_await));
    CUDA(cudaFuncGetAttributes(&fa, pong_await));
    CUDA(cudaFuncGetAttributes(&fa, check_pong));
    cudaStream_t s;
    MPIX_Stream ms = MPIX_STREAM_NULL;
    MPI_Comm scomm = MPI_COMM_NULL;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if ((good && stream_variant(v)) ||
        (hrtt && H_HOST != v && H_SENDRECV != v && H_NCCL != v)) {
        scomm = stream_comm(s, &ms);
    }
    if (good) {
        int grids[32], ng = 0, maxg = 1, epoch = 0;
        for (char *tok = strtok(argv[3], ","); tok && ng < 32; tok = strtok(NULL, ",")) {
            grids[ng] = atoi(tok);
            if (grids[ng] > maxg) maxg = grids[ng];
            ++ng;
        }
        size_t bytes = (size_t) maxg * 1024 * sizeof(double);
        double *a = NULL, *b = NULL, *c;
        struct ipc m = {NULL, NULL, NULL, NULL, NULL, 0};
        CUDA(cudaMalloc(&c, bytes));
        if (0 == rank) {
            CUDA(cudaMalloc(&a, bytes));
            CUDA(cudaMalloc(&b, bytes));
            init_ab<<<maxg, 1024>>>(a, b);
            CUDA(cudaGetLastError());
        }
        CUDA(cudaDeviceSynchronize()); /* before the non-blocking stream uses them */
        bool ipc = V_IPC_LIMIT == v || ipc_graph(v);
        if (ipc) ipc_open(&m, c);
        if (0 == rank && (V_IPC_AFTER_GRAPH == v || V_IPC_AFTER_NOMARK_GRAPH == v ||
                          V_IPC_MARKS_GRAPH == v)) {
            int per_sm = 0, sms = 0, dev = 0;
            CUDA(cudaMalloc(&m.marks, (size_t) maxg * sizeof(*m.marks)));
            CUDA(cudaMemset(m.marks, 0, (size_t) maxg * sizeof(*m.marks)));
            CUDA(cudaMalloc(&m.bad, sizeof(*m.bad)));
            CUDA(cudaMemset(m.bad, 0, sizeof(*m.bad)));
            CUDA(cudaGetDevice(&dev));
            CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
            CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy_after, 1024, 0));
            m.copy_blocks = sms * (per_sm > 0 ? per_sm : 1);
            CUDA(cudaDeviceSynchronize());
        }
        for (int g = 0; g < ng; ++g) {
            if (kstart && !fits(grids[g])) {
                if (0 == rank) {
                    fprintf(stderr, "b_stream: %s: %d blocks do not fit on the GPU beside "
                            "the receiver's start: skipped\n", vname, grids[g]);
                }
                continue;
            }
            if (1 == rank) {
                CUDA(cudaMemsetAsync(c, 0, (size_t) grids[g] * 1024 * sizeof(double), s));
                CUDA(cudaStreamSynchronize(s));
            }
            double issue[8] = {0};
            double t = goodput_run(v, grids[g], a, b, c, s, scomm, &m, &epoch, issue);
            if (data_ok(c, grids[g], epoch, s, vname) && 0 == rank) {
                size_t gb = (size_t) grids[g] * 1024 * sizeof(double);
                printf("stream_goodput,%s-%s,%d,%zu,%.4f,GB/s\n", vname, label,
                       grids[g], gb, (double) gb / t / 1e9);
                for (int r = 0; r < 2; ++r) {
                    printf("stream_issue,%s-%s,%d,%d,%.3f,us\n", vname, label,
                           grids[g], r, issue[r] * 1e6);
                }
                for (int r = 0; r < 2 && issue[2] + issue[5] > 0; ++r) {
                    printf("stream_calls,%s-%s,%d,%d,%.3f/%.3f/%.3f,us\n", vname,
                           label, grids[g], r, issue[2 + 3 * r] * 1e6, issue[3 + 3 * r] * 1e6,
                           issue[4 + 3 * r] * 1e6);
                }
                fflush(stdout);
            }
        }
        if (NULL != m.bad) {
            unsigned long long bad = 0;
            CUDA(cudaMemcpy(&bad, m.bad, sizeof(bad), cudaMemcpyDeviceToHost));
            if (0 != bad) {
                fprintf(stderr, "b_stream: %s: %llu marks missing\n", vname, bad);
                failed = 1;
            }
            CUDA(cudaFree(m.marks));
            CUDA(cudaFree(m.bad));
        }
        if (ipc) ipc_close(&m);
        CUDA(cudaFree(c));
        if (0 == rank) {
            CUDA(cudaFree(a));
            CUDA(cudaFree(b));
        }
    } else {
        const char *env = getenv("BENCH_HRTT_ITERS");
        int iters = (NULL != env && atoi(env) > 0) ? atoi(env) : 2000;
        double t = hrtt_run(v, s, scomm, iters);
        if (!failed && 0 == rank) {
            printf("stream_hrtt,%s-%s,8192,%d,%.3f,us\n", vname, label, iters, t * 1e6);
            fflush(stdout);
        }
    }
    if (MPI_COMM_NULL != scomm) {
        CHECK_MPI(MPI_Comm_free(&scomm));
        CHECK_MPI(MPIX_Stream_free(&ms));
    }
#ifdef HAVE_NCCL
    if (NULL != nccl_comm) ncclCommDestroy((ncclComm_t) nccl_comm);
#endif
    CUDA(cudaStreamDestroy(s));
    MPI_Finalize();
    return failed;
}
