/* Kernel + allreduce on GPU buffers vs grid size (seed 000, Figs. 6-7):
 *   b_coll_gpu allreduce GRIDS   a kernel of GRID blocks x 1024 threads
 *                                writes one float per thread, then the
 *                                buffer is summed across ranks:
 *     traditional  kernel, cudaStreamSynchronize, MPI_Allreduce (CUDA-aware)
 *     partitioned  MPI_Start, the kernel marks partitions with device
 *                  MPIX_Pready, MPI_Wait (MPIX_Pallreduce_init once)
 *     partitioned_stream  the same stream-ordered: MPIX_Start_enqueue, the
 *                  kernel, MPIX_Wait_enqueue, epochs back to back, one
 *                  synchronization at the end
 *     partitioned_graph  partitioned_stream with BENCH_GRAPH_EPOCHS (32)
 *                  epochs captured into one CUDA graph, which the host
 *                  launches: no host call per epoch
 *     nccl         kernel, ncclAllReduce on the same stream, synchronize
 *                  (where NCCL accepts the ranks' GPUs; not two ranks on one):
 *                  host-synchronized each epoch, as partitioned
 *     nccl_stream  kernel, ncclAllReduce, epochs back to back on the stream,
 *                  one synchronization at the end: as partitioned_stream
 *     nccl_graph   nccl_stream's epochs captured into one CUDA graph of
 *                  BENCH_GRAPH_EPOCHS: as partitioned_graph
 *   b_coll_gpu overhead          MPIX_Pallreduce_init on GPU buffers
 * BENCH_KERNEL_TIME=1 adds rows gkernel,compute|compute_pready: the kernel's
 * own time (CUDA events) without and with MPIX_Pready, and rows
 * gkernel,stream_pready_rankR: rank R's kernel inside the stream-ordered
 * epochs (events around it on the stream, each epoch); -DBENCH_PREADY=
 * MPIX_Pready_block (or _warp, _thread) builds it with that level.
 * MPIX_Pready combines a block's calls (info "mpix_pready_aggregate"
 * "block"); BENCH_AGGREGATE=warp combines a warp's only.
 * BENCH_NO_TRADITIONAL=1 leaves out the traditional and NCCL rows (a sweep
 * of the partitioned ones: bench/run-coll-blocks.sh); BENCH_NO_HOST=1 the
 * host-started partitioned row (timing experiments whose MPIX_Pready takes
 * the epoch a stream wrote). BENCH_STREAM_KERNELS=1 gives the stream-ordered
 * request the info key "mpix_stream_kernels" (its MPIX_Pready only marks
 * where part_ucx_coll_gpu_after_bytes runs the engine after the producers).
 * BENCH_BETWEEN=none|copy|kcopy adds a row gkernel,between_MODE: the
 * kernel's own time back to back with nothing, a cudaMemcpyAsync or a copy
 * kernel of x into y between two (no MPI).
 * BENCH_PARTS=P: P partitions (a divisor of the grid; default up to 32).
 * The kernel finds its block's partition by a shift where the blocks per
 * partition are a power of two; BENCH_PARTITION_DIV=1: by a division.
 * BENCH_STREAM_PLAIN=1 (timing, with BENCH_STREAM_KERNELS in after mode):
 * the stream row's kernel makes no MPIX_Pready (the request then fails);
 * BENCH_STREAM_KERNEL=mark|ldg|ldgsb: it stores the marks itself, through
 * a pointer argument or after MPIX_Pready's two loads (ldgsb: in a kernel
 * with a barrier and shared memory it never uses); markc|markd: through a
 * pointer argument into a cudaMalloc'd array, one word a partition or a
 * block (the request then fails).
 * Every mode's first iteration is checked. Output: CSV rows
 * bench,component,param1,param2,value,unit on rank 0 (param2: ranks). */
#include <cuda_runtime.h>
#include <algorithm>
#include <vector>
#include <mpi.h>
#include <mpix_part.h>
#include <mpix_part_device.h>
#include "../examples/common.h" /* CUDA() checks */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_gpu.h"
#include "graph_epochs.h"

__global__ void compute(float *x, int it, int r)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x[i] = val(i, r, it);
}

/* BENCH_BETWEEN's engine stand-in: y = x, grid-stride, 16 bytes a thread */
__global__ void copy_between(float4 *y, const float4 *x, long n4)
{
    for (long i = blockIdx.x * (long) blockDim.x + threadIdx.x; i < n4;
         i += (long) gridDim.x * blockDim.x) {
        y[i] = x[i];
    }
}

/* BENCH_STREAM_KERNEL's stand-ins for compute_pready inside marks epochs
 * (timing): mark: thread 0 stores its partition's mark through a pointer
 * given as an argument (no load); ldg: as MPIX_Pready's marks path, two
 * loads of the request through the read-only cache, then the store. */
__global__ void compute_mark(float *x, int it, int r, int bpp, uint64_t *marks)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x[i] = val(i, r, it);
    if (0 == threadIdx.x) marks[blockIdx.x / bpp] = 1;
}
/* thread 0: the block's mark after MPIX_Pready's two loads */
__device__ static inline void mark_ldg(int bpp, struct mpix_prequest_s *preq)
{
    if (0 == threadIdx.x) {
        unsigned parts = __ldg(&preq->pready_parts);
        uint64_t *marks = (uint64_t *) __ldg((const unsigned long long *) &preq->ready);
        if (blockIdx.x / bpp < parts) marks[blockIdx.x / bpp] = 1;
    }
}
__global__ void compute_ldg(float *x, int it, int r, int bpp, struct mpix_prequest_s *preq)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x[i] = val(i, r, it);
    mark_ldg(bpp, preq);
}

/* compute_ldg with what MPIX_Pready's counted paths bring a kernel that
 * never runs them: a barrier and 8 bytes of shared memory (ldgsb) */
__global__ void compute_ldgsb(float *x, int it, int r, int bpp, struct mpix_prequest_s *preq)
{
    __shared__ uint64_t never;
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x[i] = val(i, r, it);
    if (0xffffffffu == blockIdx.x + it) { /* never: an epoch's grid is smaller */
        never = (uint64_t) it;
        __syncthreads();
        x[i] = (float) never;
    }
    mark_ldg(bpp, preq);
}

/* Kernels timed by a pair of events each, recorded ahead on the stream
 * (nothing waits for them in the loop): pair k is events [2k, 2k + 1]. */
static std::vector<cudaEvent_t> event_pairs(int pairs)
{
    std::vector<cudaEvent_t> e(2 * pairs);
    for (auto &x : e) CUDA(cudaEventCreate(&x));
    return e;
}

/* The pairs' mean in us, once the stream has passed them; destroys them. */
static float event_pairs_mean_us(std::vector<cudaEvent_t> &e)
{
    float ms, sum = 0;
    for (size_t k = 0; k + 1 < e.size(); k += 2) {
        CUDA(cudaEventElapsedTime(&ms, e[k], e[k + 1]));
        sum += ms;
    }
    for (auto &x : e) CUDA(cudaEventDestroy(x));
    return e.empty() ? 0 : 2e3f * sum / (float) e.size();
}

/* compute() with its epoch from ebase in a graph (nccl_graph) */
__global__ void compute_at(float *x, int it, const int *ebase, int r)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x[i] = val(i, r, epoch_at(it, ebase));
}

/* -DBENCH_TRACE: the graph rows' kernels stamp %globaltimer beside the GPU
 * engine's trace (-DPART_UCX_GCOLL_TRACE: bench/trace/README.md): block 0
 * as it starts and once its MPIX_Pready returned, and the latest return
 * among partition 0's blocks (that partition is ready then: its last
 * block's call wrote the ready word) and among the last 256 blocks and
 * every 256th (all blocks' atomics on one word serialise in L2: at 16384
 * blocks they doubled a producer's time). A record an epoch in GPU memory
 * (the maxima are atomics; the clock only grows, so a slot's earlier
 * epoch never wins), written at the end to $BENCH_TRACE_FILE.<rank>,
 * "AT epoch t0 t1 part0 last" (ns). */
#ifdef BENCH_TRACE
#define TRACE_SLOTS 4096
struct app_trace {
    unsigned long long seq, t0, t1, part0, last;
};
__device__ app_trace trace_rec[TRACE_SLOTS];
__device__ int trace_on;
static bool trace_asked;

__device__ static inline unsigned long long trace_now(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ static inline void trace_pready(const int *ebase, int e, int bpp,
                                           unsigned long long t0)
{
    if (NULL != ebase && 0 != trace_on && 0 == threadIdx.x) {
        app_trace *r = trace_rec + (unsigned) e % TRACE_SLOTS;
        unsigned long long t = trace_now();
        if (0 == blockIdx.x) {
            r->seq = (unsigned long long) e;
            r->t0 = t0;
            r->t1 = t;
        }
        if ((int) blockIdx.x < bpp) {
            atomicMax(&r->part0, t);
        }
        if (blockIdx.x + 256 >= gridDim.x || 255 == (blockIdx.x & 255)) {
            atomicMax(&r->last, t);
        }
    }
}

static void trace_setup(void)
{
    int on = 1;
    if (NULL == getenv("BENCH_TRACE_FILE")) return;
    trace_asked = true;
    CUDA(cudaMemcpyToSymbol(trace_on, &on, sizeof(on)));
}

static void trace_write(void)
{
    static app_trace host[TRACE_SLOTS];
    char name[512];
    FILE *f;
    if (!trace_asked) return;
    CUDA(cudaDeviceSynchronize());
    CUDA(cudaMemcpyFromSymbol(host, trace_rec, sizeof(host)));
    snprintf(name, sizeof(name), "%s.%d", getenv("BENCH_TRACE_FILE"), rank);
    if (NULL == (f = fopen(name, "w"))) return;
    for (int s = 0; s < TRACE_SLOTS; ++s) {
        if (0 != host[s].t0) {
            fprintf(f, "AT %llu %llu %llu %llu %llu\n", host[s].seq, host[s].t0, host[s].t1,
                    host[s].part0, host[s].last);
        }
    }
    fclose(f);
}
#define TRACE_NOW() trace_now()
#else
#define TRACE_NOW() 0ull
#define trace_pready(ebase, e, bpp, t0) ((void) (t0))
#define trace_setup() ((void) 0)
#define trace_write() ((void) 0)
#endif

/* -DBENCH_PREADY=block|warp|thread: an explicit aggregation level instead
 * of the automatic one (every block here lies in one partition). */
#ifndef BENCH_PREADY
#define BENCH_PREADY MPIX_Pready
#endif
/* ebase: in a graph, `it` counts from the epochs before the replay, which
 * advance() keeps on the GPU. Two blocks an SM (32 registers a thread),
 * the traced build's stamps included, so that a trace sees the waves of
 * blocks an untraced run has. DIV: the block's partition by a division
 * by bpp, a runtime value; else by a shift of bshift (bpp a power of two),
 * as an application whose blocks per partition are a power of two would
 * write it: in a short producer the division costs more than the mark
 * itself, and the limits' kernels compute no partition at all. */
template <bool DIV>
__global__ void __launch_bounds__(1024, 2)
    compute_pready(float *x, int it, const int *ebase, int r, int bpp, int bshift, MPIX_Prequest preq)
{
    [[maybe_unused]] unsigned long long t0 = TRACE_NOW(); /* traced builds */
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x[i] = val(i, r, epoch_at(it, ebase));
    BENCH_PREADY(DIV ? blockIdx.x / bpp : blockIdx.x >> bshift, preq);
    trace_pready(ebase, epoch_at(it, ebase), bpp, t0);
}

/* compute_pready by shift where bpp is a power of two, unless
 * BENCH_PARTITION_DIV=1 (the division) */
static void launch_pready(int grid, cudaStream_t s, float *x, int it, const int *ebase, int r, int bpp,
                          MPIX_Prequest preq)
{
    static const bool div = NULL != getenv("BENCH_PARTITION_DIV");
    if (div || 0 != (bpp & (bpp - 1))) {
        compute_pready<true><<<grid, 1024, 0, s>>>(x, it, ebase, r, bpp, 0, preq);
    } else {
        compute_pready<false><<<grid, 1024, 0, s>>>(x, it, ebase, r, bpp, __builtin_ctz(bpp), preq);
    }
}

/* The graph rows: epoch(k, ebase), k = 1..K (graph_epochs()), captured
 * into one graph from epoch `base` on, replayed once to warm up, then
 * timed from a barrier over the replays that make at least `iters`
 * epochs. Returns the seconds; *epochs: the timed epochs, *last: the
 * number of the last one (what check() compares with). */
template <class F>
static double graph_run(cudaStream_t s, int iters, int base, int *epochs, long *last, F epoch)
{
    int K = graph_epochs(), reps = (iters + K - 1) / K, *ebase;
    CUDA(cudaMalloc(&ebase, sizeof(*ebase)));
    graph_base(ebase, base, s);
    cudaGraphExec_t exec = graph_capture(s, K, ebase, [&](int k) { epoch(k, ebase); });
    CUDA(cudaGraphLaunch(exec, s)); /* warm-up */
    CUDA(cudaStreamSynchronize(s));
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int r = 0; r < reps; ++r) CUDA(cudaGraphLaunch(exec, s));
    CUDA(cudaStreamSynchronize(s));
    t = MPI_Wtime() - t;
    CUDA(cudaGraphExecDestroy(exec));
    CUDA(cudaFree(ebase));
    *epochs = reps * K;
    *last = base + (long) (reps + 1) * K;
    return t;
}

static void allreduce(int grid, cudaStream_t s, void *nccl)
{
    size_t n = (size_t) grid * 1024, bytes = n * sizeof(float);
    int parts = grid < 32 ? grid : 32, bpp, iters = iters_for(bytes);
    int asked = getenv("BENCH_PARTS") ? atoi(getenv("BENCH_PARTS")) : 0;
    if (asked > 0 && 0 == grid % asked) parts = asked;
    bpp = grid / parts;
    float *x, *y;
    double t;
    CUDA(cudaMalloc(&x, bytes));
    CUDA(cudaMalloc(&y, bytes));

    /* traditional */
    bool others = NULL == getenv("BENCH_NO_TRADITIONAL");
    t = 0;
    for (int it = -1; others && it < iters; ++it) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        compute<<<grid, 1024, 0, s>>>(x, it + 1, rank);
        CUDA(cudaStreamSynchronize(s));
        MPI_Allreduce(x, y, (int) n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (it >= 0) t += MPI_Wtime() - t0;
        else check(y, n, it + 1, "traditional");
    }
    if (others) report("traditional", grid, t, iters);

    /* partitioned, device MPIX_Pready; BENCH_KERNEL_TIME: also the kernel's
     * own time with and without MPIX_Pready (CUDA events) */
    bool ktime = NULL != getenv("BENCH_KERNEL_TIME");
    float kpready = 0;
    cudaEvent_t k0, k1;
    CUDA(cudaEventCreate(&k0));
    CUDA(cudaEventCreate(&k1));
    MPI_Info info;
    char threads[32];
    MPI_Request req;
    MPIX_Prequest preq = NULL;
    MPI_Info_create(&info);
    snprintf(threads, sizeof(threads), "%d", bpp * 1024);
    MPI_Info_set(info, "mpix_pready_threads", threads);
    /* every thread of a block calls MPIX_Pready for one partition, so the
     * block may be combined (BENCH_AGGREGATE=warp: one update per warp) */
    MPI_Info_set(info, "mpix_pready_aggregate",
                 getenv("BENCH_AGGREGATE") ? getenv("BENCH_AGGREGATE") : "block");
    /* BENCH_NO_HOST: only the stream-ordered rows (timing experiments whose
     * MPIX_Pready relies on the stream's epoch) */
    if (NULL == getenv("BENCH_NO_HOST")) {
        MPIX_Pallreduce_init(x, y, parts, (int) (n / parts), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                             info, &req);
        MPI_Info_free(&info);
        t = 0;
        for (int it = -1; it < iters; ++it) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Start(&req);
            if (NULL == preq) MPIX_Prequest_create(req, &preq);
            if (ktime) CUDA(cudaEventRecord(k0, s));
            launch_pready(grid, s, x, it + 1, NULL, rank, bpp, preq);
            if (ktime) CUDA(cudaEventRecord(k1, s));
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            CUDA(cudaStreamSynchronize(s));
            if (ktime && it >= 0) {
                float ms;
                CUDA(cudaEventElapsedTime(&ms, k0, k1));
                kpready += ms;
            }
            if (it >= 0) t += MPI_Wtime() - t0;
            else check(y, n, it + 1, "partitioned");
        }
        report("partitioned", grid, t, iters);
        if (ktime) { /* the same kernel without MPIX_Pready, alone */
            float ms, kplain = 0;
            for (int it = 0; it < iters; ++it) {
                CUDA(cudaEventRecord(k0, s));
                compute<<<grid, 1024, 0, s>>>(x, it + 1, rank);
                CUDA(cudaEventRecord(k1, s));
                CUDA(cudaEventSynchronize(k1));
                CUDA(cudaEventElapsedTime(&ms, k0, k1));
                kplain += ms;
            }
            if (0 == rank)
                printf("gkernel,compute,%d,%d,%.3f,us\ngkernel,compute_pready,%d,%d,%.3f,us\n",
                       grid, size, 1e3 * kplain / iters, grid, size, 1e3 * kpready / iters);
        }
        MPIX_Prequest_free(&preq);
        MPI_Request_free(&req);
    } else {
        MPI_Info_free(&info);
    }

    /* BENCH_BETWEEN=none|copy|kcopy (timing only, no MPI): the kernel's
     * own time by events, back to back on the stream with, between two
     * kernels, nothing, a cudaMemcpyAsync of x into y, or a copy kernel on
     * one block an SM (what an engine after the producers does to memory):
     * rows gkernel,between_MODE */
    const char *between = getenv("BENCH_BETWEEN");
    if (NULL != between) {
        std::vector<cudaEvent_t> be = event_pairs(iters);
        int sms = 0, dev;
        CUDA(cudaGetDevice(&dev));
        CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CUDA(cudaStreamSynchronize(s));
        for (int it = 0; it < iters; ++it) {
            CUDA(cudaEventRecord(be[2 * it], s));
            compute<<<grid, 1024, 0, s>>>(x, it + 1, rank);
            CUDA(cudaEventRecord(be[2 * it + 1], s));
            if (!strcmp(between, "copy")) {
                CUDA(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, s));
            } else if (!strcmp(between, "kcopy")) {
                copy_between<<<sms, 1024, 0, s>>>((float4 *) y, (const float4 *) x,
                                                  (long) (bytes / sizeof(float4)));
            }
        }
        CUDA(cudaStreamSynchronize(s));
        float us = event_pairs_mean_us(be);
        if (0 == rank) printf("gkernel,between_%s,%d,%d,%.3f,us\n", between, grid, size, us);
    }

    /* partitioned, stream-ordered: MPIX_Start_enqueue, the kernel,
     * MPIX_Wait_enqueue, epochs back to back on the stream, one
     * synchronization at the end; the last epoch checked (BENCH_NO_STREAM:
     * not) */
    if (NULL == getenv("BENCH_NO_STREAM")) {
        MPIX_Stream ms;
        MPI_Comm scomm = example_stream_comm(s, &ms);
        /* BENCH_STREAM_PLAIN (timing only, with the marks): the stream row's
         * kernel makes no MPIX_Pready; the gate publishes the partitions
         * all the same and the request fails (MPI_ERR_ARG), data moved */
        bool plain = NULL != getenv("BENCH_STREAM_PLAIN");
        if (plain) MPI_Comm_set_errhandler(scomm, MPI_ERRORS_RETURN);
        /* BENCH_STREAM_KERNEL=mark|ldg (timing, with the marks): the stream
         * row's kernel is compute_mark or compute_ldg */
        const char *skern = getenv("BENCH_STREAM_KERNEL");
        int smode = (NULL == skern) ? 0 : !strcmp(skern, "mark") ? 1 : !strcmp(skern, "ldg") ? 2
                    : !strcmp(skern, "ldgsb") ? 3 : !strcmp(skern, "markc") ? 4
                    : !strcmp(skern, "markd") ? 5 : 0;
        /* markc, markd (timing only: the request then fails): compute_mark
         * into words of a cudaMalloc'd array instead of the request's marks,
         * one a partition (markc) or one a block (markd) */
        uint64_t *cmarks = NULL;
        if (smode >= 4) {
            CUDA(cudaMalloc(&cmarks, (size_t) grid * sizeof(uint64_t)));
            MPI_Comm_set_errhandler(scomm, MPI_ERRORS_RETURN);
        }
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpix_pready_threads", threads);
        MPI_Info_set(info, "mpix_pready_aggregate",
                     getenv("BENCH_AGGREGATE") ? getenv("BENCH_AGGREGATE") : "block");
        if (getenv("BENCH_STREAM_KERNELS")) MPI_Info_set(info, "mpix_stream_kernels", "true");
        MPIX_Pallreduce_init(x, y, parts, (int) (n / parts), MPI_FLOAT, MPI_SUM, scomm, info, &req);
        MPI_Info_free(&info);
        MPIX_Prequest_create(req, &preq);
        struct mpix_prequest_s *dreq = mpix_prequest_ptr(preq), hreq;
        uint64_t *marks = NULL;
        if (smode) {
            CUDA(cudaMemcpy(&hreq, dreq, sizeof(hreq), cudaMemcpyDeviceToHost));
            marks = (uint64_t *) hreq.ready;
        }
        /* BENCH_KERNEL_TIME: each epoch's kernel by a pair of events of its
         * own (nothing waits for them inside the loop) */
        std::vector<cudaEvent_t> ke = event_pairs(ktime ? iters : 0);
        for (int it = -1; it < iters; ++it) {
            if (0 == it) {
                CUDA(cudaStreamSynchronize(s));
                MPI_Barrier(MPI_COMM_WORLD);
                t = MPI_Wtime();
            }
            MPIX_Start_enqueue(&req);
            if (ktime && it >= 0) CUDA(cudaEventRecord(ke[2 * it], s));
            if (plain) compute<<<grid, 1024, 0, s>>>(x, it + 2, rank);
            else if (1 == smode) compute_mark<<<grid, 1024, 0, s>>>(x, it + 2, rank, bpp, marks);
            else if (2 == smode) compute_ldg<<<grid, 1024, 0, s>>>(x, it + 2, rank, bpp, dreq);
            else if (3 == smode) compute_ldgsb<<<grid, 1024, 0, s>>>(x, it + 2, rank, bpp, dreq);
            else if (4 == smode) compute_mark<<<grid, 1024, 0, s>>>(x, it + 2, rank, bpp, cmarks);
            else if (5 == smode) compute_mark<<<grid, 1024, 0, s>>>(x, it + 2, rank, 1, cmarks);
            else launch_pready(grid, s, x, it + 2, NULL, rank, bpp, preq);
            if (ktime && it >= 0) CUDA(cudaEventRecord(ke[2 * it + 1], s));
            MPIX_Wait_enqueue(&req, MPI_STATUS_IGNORE);
        }
        CUDA(cudaStreamSynchronize(s));
        t = MPI_Wtime() - t;
        if (ktime) { /* every rank's mean, printed by rank 0 */
            std::vector<float> per(size);
            float us = event_pairs_mean_us(ke);
            MPI_Gather(&us, 1, MPI_FLOAT, per.data(), 1, MPI_FLOAT, 0, MPI_COMM_WORLD);
            for (int r = 0; 0 == rank && r < size; ++r)
                printf("gkernel,stream_pready_rank%d,%d,%d,%.3f,us\n", r, grid, size, per[r]);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE); /* the host sees the enqueued epochs complete */
        check(y, n, iters + 1, "partitioned_stream");
        report("partitioned_stream", grid, t, iters);

        /* the same epochs replayed from a graph; the host synchronised
         * the stream and saw the epochs so far complete (MPI_Wait) */
        int epochs;
        long last;
        if (!plain && !smode) { /* the stand-ins time the stream row alone */
            t = graph_run(s, iters, iters + 1, &epochs, &last, [&](int k, const int *ebase) {
                MPIX_Start_enqueue(&req);
                launch_pready(grid, s, x, k, ebase, rank, bpp, preq);
                MPIX_Wait_enqueue(&req, MPI_STATUS_IGNORE);
            });
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            check(y, n, last, "partitioned_graph");
            report("partitioned_graph", grid, t, epochs);
        }
        if (NULL != cmarks) CUDA(cudaFree(cmarks));
        MPIX_Prequest_free(&preq);
        MPI_Request_free(&req);
        MPI_Comm_free(&scomm);
        MPIX_Stream_free(&ms);
    }

    CUDA(cudaEventDestroy(k0));
    CUDA(cudaEventDestroy(k1));
#ifdef HAVE_NCCL
    if (NULL != nccl && others) {
        t = 0;
        for (int it = -1; it < iters; ++it) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            compute<<<grid, 1024, 0, s>>>(x, it + 1, rank);
            ncclAllReduce(x, y, n, ncclFloat, ncclSum, (ncclComm_t) nccl, s);
            CUDA(cudaStreamSynchronize(s));
            if (it >= 0) t += MPI_Wtime() - t0;
            else check(y, n, it + 1, "nccl");
        }
        report("nccl", grid, t, iters);

        /* stream-ordered, as partitioned_stream: no host synchronization
         * per epoch */
        for (int it = -1; it < iters; ++it) {
            if (0 == it) {
                CUDA(cudaStreamSynchronize(s));
                MPI_Barrier(MPI_COMM_WORLD);
                t = MPI_Wtime();
            }
            compute<<<grid, 1024, 0, s>>>(x, it + 2, rank);
            ncclAllReduce(x, y, n, ncclFloat, ncclSum, (ncclComm_t) nccl, s);
        }
        CUDA(cudaStreamSynchronize(s));
        t = MPI_Wtime() - t;
        check(y, n, iters + 1, "nccl_stream");
        report("nccl_stream", grid, t, iters);

        /* replayed from a graph, as partitioned_graph */
        int epochs;
        long last;
        t = graph_run(s, iters, iters + 1, &epochs, &last, [&](int k, const int *ebase) {
            compute_at<<<grid, 1024, 0, s>>>(x, k, ebase, rank);
            ncclAllReduce(x, y, n, ncclFloat, ncclSum, (ncclComm_t) nccl, s);
        });
        check(y, n, last, "nccl_graph");
        report("nccl_graph", grid, t, epochs);
    }
#endif
    CUDA(cudaFree(x));
    CUDA(cudaFree(y));
}

/* MPIX_Pallreduce_init on GPU buffers, 50 inits after a first one (which
 * loads the device plugin): the mean and the median per rank, the larger
 * rank's of each. A few inits in 50 take a few hundred us (UCX and CUDA
 * registration work), which the mean spreads over the rest. */
static void overhead(void)
{
    enum { reps = 50 };
    const int parts = 32, count = 32768;
    float *x, *y;
    MPI_Request req;
    double t[reps], sum = 0, mine[2], max[2];
    CUDA(cudaMalloc(&x, (size_t) parts * count * sizeof(float)));
    CUDA(cudaMalloc(&y, (size_t) parts * count * sizeof(float)));
    for (int i = 0; i <= reps; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPIX_Pallreduce_init(x, y, parts, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &req);
        if (i > 0) t[i - 1] = MPI_Wtime() - t0;
        MPI_Request_free(&req);
    }
    for (int i = 0; i < reps; ++i) sum += t[i];
    std::sort(t, t + reps);
    mine[0] = sum / reps;
    mine[1] = 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    MPI_Reduce(mine, max, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("coverhead,Pallreduce_init-gpu%s,%d,%d,%.3f,us\n", label, parts, size,
               1e6 * max[0]);
        printf("coverhead,Pallreduce_init-gpu-median%s,%d,%d,%.3f,us\n", label, parts, size,
               1e6 * max[1]);
    }
    CUDA(cudaFree(x));
    CUDA(cudaFree(y));
}

int main(int argc, char **argv)
{
    (void) example_select_gpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (getenv("BENCH_LABEL")) label = getenv("BENCH_LABEL");
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    trace_setup();
    if (argc >= 3 && 0 == strcmp(argv[1], "allreduce")) {
#ifdef HAVE_NCCL
        void *nccl = example_nccl_init("b_coll_gpu");
#else
        void *nccl = NULL;
#endif
        for (char *g = strtok(argv[2], ","); g; g = strtok(NULL, ",")) allreduce(atoi(g), s, nccl);
    } else if (argc >= 2 && 0 == strcmp(argv[1], "overhead")) {
        overhead();
    } else if (0 == rank) {
        fprintf(stderr, "usage: b_coll_gpu allreduce GRIDS | overhead\n");
    }
    trace_write();
    CUDA(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
