/* GPU-initiated partitioned communication benchmarks (seed 000, Figs. 3-4,
 * Table I), two ranks, rank 0 sends to rank 1:
 *   b_device goodput GRIDS    vector add C = A + B, 1024 threads per block,
 *                             8 B per thread, C sent to rank 1: traditional
 *                             (kernel, cudaStreamSynchronize, MPI_Send/Recv)
 *                             vs partitioned with device MPIX_Pready, progress
 *                             engine (16 partitions) and kernel copy (up to
 *                             1024). Goodput = bytes of C / (compute +
 *                             communication time) per iteration. Grids are
 *                             powers of two.
 *                             MPIX_Pready combines a block's calls (info
 *                             "mpix_pready_aggregate" "block";
 *                             BENCH_AGGREGATE=warp: a warp's only);
 *                             BENCH_PREADY_LEVEL=thread|warp|block: that
 *                             MPIX_Pready level instead of the automatic one;
 *                             BENCH_EARLY_LAUNCH=1: launch before
 *                             MPIX_Pbuf_prepare; BENCH_PHASES=1: where an
 *                             epoch goes, per rank (stderr).
 *   b_device pready THREADS   kernel time of one block calling
 *                             MPIX_Pready_thread/_warp/_block/MPIX_Pready
 *   b_device overhead         MPIX_Prequest_create, first and later
 *                             MPIX_Pbuf_prepare on GPU buffers
 * Output: CSV rows bench,component,param1,param2,value,unit on rank 0. */
#include <cuda_runtime.h>
#include <algorithm>
#include <mpi.h>
#include <mpix_part.h>
#include <mpix_part_device.h>
#include "../examples/common.h" /* CUDA() checks */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int rank;
static const char *label = "";

enum { P_THREAD, P_WARP, P_BLOCK, P_AUTO };

__global__ void vadd(const double *a, const double *b, double *c)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}

/* Each block is part of partition blockIdx.x / blocks_per_part; `how`
 * names the MPIX_Pready level (BENCH_PREADY_LEVEL, default automatic). */
__global__ void vadd_pready(const double *a, const double *b, double *c, int bpp, int how,
                            MPIX_Prequest preq)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
    switch (how) {
    case P_THREAD: MPIX_Pready_thread(blockIdx.x / bpp, preq); break;
    case P_WARP: MPIX_Pready_warp(blockIdx.x / bpp, preq); break;
    case P_BLOCK: MPIX_Pready_block(blockIdx.x / bpp, preq); break;
    default: MPIX_Pready(blockIdx.x / bpp, preq); break;
    }
}

static const char *level_names[] = {"thread", "warp", "block", "auto"};

static int env_level(void)
{
    const char *env = getenv("BENCH_PREADY_LEVEL");
    for (int how = 0; NULL != env && how < 4; ++how) {
        if (0 == strcmp(env, level_names[how])) return how;
    }
    return P_AUTO;
}

__global__ void pready_only(int how, MPIX_Prequest preq)
{
    switch (how) {
    case P_THREAD: MPIX_Pready_thread(0, preq); break;
    case P_WARP: MPIX_Pready_warp(0, preq); break;
    case P_BLOCK: MPIX_Pready_block(0, preq); break;
    default: MPIX_Pready(0, preq); break;
    }
}

__global__ void empty_kernel(void) {}

static int iters_for(size_t bytes)
{
    size_t it = ((size_t) 256 << 20) / (bytes + 65536);
    return (int) (it < 10 ? 10 : it > 200 ? 200 : it);
}

/* One iteration is compute + communication of C; rank 1 learns the
 * arrival, rank 0 the end of the epoch. Timed on rank 1 over all
 * iterations after a barrier. */
static double goodput(int mode, int grid, double *a, double *b, double *c, cudaStream_t s)
{
    size_t n = (size_t) grid * 1024, bytes = n * sizeof(double);
    /* Progress engine: few transport partitions (the host handles each);
     * kernel copy: up to 1024, so that many warps store in parallel.
     * BENCH_PARTS_PROGRESS / BENCH_PARTS_KERNEL override them. */
    const char *env = getenv(2 == mode ? "BENCH_PARTS_KERNEL" : "BENCH_PARTS_PROGRESS");
    int maxp = (NULL != env && atoi(env) > 0) ? atoi(env) : (2 == mode) ? 1024 : 16;
    int parts = grid < maxp ? grid : maxp, bpp = grid / parts, iters = iters_for(bytes);
    MPI_Request req = MPI_REQUEST_NULL;
    MPIX_Prequest preq = NULL;
    char thr[32];

    if (mode > 0) {
        MPI_Info info;
        MPI_Info_create(&info);
        snprintf(thr, sizeof(thr), "%d", bpp * 1024);
        MPI_Info_set(info, "mpix_pready_threads", thr);
        MPI_Info_set(info, "mpix_device_copy", 1 == mode ? "progress" : "kernel");
        /* every thread of a block calls MPIX_Pready for one partition */
        MPI_Info_set(info, "mpix_pready_aggregate",
                     getenv("BENCH_AGGREGATE") ? getenv("BENCH_AGGREGATE") : "block");
        if (0 == rank) {
            MPI_Psend_init(c, parts, n / parts, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD, info, &req);
        } else {
            MPI_Precv_init(c, parts, n / parts, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, info, &req);
        }
        MPI_Info_free(&info);
    }
    /* BENCH_EARLY_LAUNCH=1: the kernel is launched right after MPI_Start,
     * before MPIX_Pbuf_prepare; groups that complete before the receiver's
     * readiness is visible leave their partitions to the host (kernel copy),
     * as the progress engine leaves them all. */
    bool early = NULL != getenv("BENCH_EARLY_LAUNCH");
    int how = env_level();
    double t0 = 0, phase[4] = {0, 0, 0, 0};
    for (int i = -3; i < iters; ++i) {
        if (0 == i) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        if (0 == mode) {
            if (0 == rank) {
                vadd<<<grid, 1024, 0, s>>>(a, b, c);
                CUDA(cudaStreamSynchronize(s));
                MPI_Send(c, (int) n, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
            } else {
                MPI_Recv(c, (int) n, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            continue;
        }
        double p0 = MPI_Wtime(), p1, p3, prep = 0, launch = 0, x;
        MPI_Start(&req);
        p1 = MPI_Wtime();
        if (0 == rank) {
            if (NULL == preq) MPIX_Prequest_create(req, &preq);
            for (int step = 0; step < 3; ++step) {
                x = MPI_Wtime();
                if (1 == step) {
                    MPIX_Pbuf_prepare(&req);
                    prep = MPI_Wtime() - x;
                } else if ((0 == step) == early) {
                    vadd_pready<<<grid, 1024, 0, s>>>(a, b, c, bpp, how, preq);
                    launch = MPI_Wtime() - x;
                }
            }
        }
        p3 = MPI_Wtime();
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (i >= 0) {
            phase[0] += p1 - p0;
            phase[1] += prep;
            phase[2] += launch;
            phase[3] += MPI_Wtime() - p3;
        }
    }
    double t = (MPI_Wtime() - t0) / iters;
    /* BENCH_PHASES: where an epoch's time goes on each rank, to stderr */
    if (getenv("BENCH_PHASES") && mode > 0) {
        fprintf(stderr, "phases rank %d %s grid %d [us/epoch]: start %.2f prepare %.2f launch %.2f "
                "wait %.2f total %.2f\n", rank, 1 == mode ? "progress" : "kernel_copy", grid,
                1e6 * phase[0] / iters, 1e6 * phase[1] / iters, 1e6 * phase[2] / iters,
                1e6 * phase[3] / iters, 1e6 * t);
    }
    CUDA(cudaStreamSynchronize(s));
    if (NULL != preq) MPIX_Prequest_free(&preq);
    if (MPI_REQUEST_NULL != req) MPI_Request_free(&req);
    MPI_Bcast(&t, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    return (double) bytes / t / 1e9; /* GB/s */
}

/* Kernel time of one block of `threads` threads, all calling a Pready
 * variant for partition 0 (progress engine: the cost of the marking). */
static double pready_cost(int how, int threads, cudaStream_t s, double *empty_us)
{
    enum { EPOCHS = 50 };
    char buf[8], thr[32];
    double *dbuf;
    MPI_Request req;
    MPIX_Prequest preq = NULL;
    cudaEvent_t e0, e1;
    float ms, total = 0, etotal = 0;

    CUDA(cudaMalloc(&dbuf, 64));
    CUDA(cudaEventCreate(&e0));
    CUDA(cudaEventCreate(&e1));
    MPI_Info info;
    MPI_Info_create(&info);
    snprintf(thr, sizeof(thr), "%d", threads);
    MPI_Info_set(info, "mpix_pready_threads", thr);
    MPI_Info_set(info, "mpix_device_copy", "progress");
    if (0 == rank) {
        MPI_Psend_init(dbuf, 1, 8, MPI_BYTE, 1, 10, MPI_COMM_WORLD, info, &req);
    } else {
        MPI_Precv_init(dbuf, 1, 8, MPI_BYTE, 0, 10, MPI_COMM_WORLD, info, &req);
    }
    MPI_Info_free(&info);
    (void) buf;
    for (int i = -2; i < EPOCHS; ++i) {
        MPI_Start(&req);
        if (0 == rank) {
            MPIX_Pbuf_prepare(&req);
            if (NULL == preq) MPIX_Prequest_create(req, &preq);
            CUDA(cudaEventRecord(e0, s));
            empty_kernel<<<1, threads, 0, s>>>();
            CUDA(cudaEventRecord(e1, s));
            CUDA(cudaEventSynchronize(e1));
            CUDA(cudaEventElapsedTime(&ms, e0, e1));
            if (i >= 0) etotal += ms;
            CUDA(cudaEventRecord(e0, s));
            pready_only<<<1, threads, 0, s>>>(how, preq);
            CUDA(cudaEventRecord(e1, s));
            CUDA(cudaEventSynchronize(e1));
            CUDA(cudaEventElapsedTime(&ms, e0, e1));
            if (i >= 0) total += ms;
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (NULL != preq) MPIX_Prequest_free(&preq);
    MPI_Request_free(&req);
    CUDA(cudaFree(dbuf));
    *empty_us = etotal * 1e3 / EPOCHS;
    return total * 1e3 / EPOCHS;
}

static double median(double *v, int n)
{
    std::sort(v, v + n);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One call per partition: the epochs of the overhead rounds complete from
 * a kernel (a host MPI_Pready is refused on a device request whose
 * partitions form transport groups). */
__global__ void pready_each(MPIX_Prequest preq)
{
    MPIX_Pready(blockIdx.x, preq);
}

/* Each of N rounds makes a new request pair. Printed per quantity: the
 * mean over the rounds, the median, and round 0 alone: the process's first
 * (UCX's one-time CUDA IPC set-up between the two GPUs, the device plugin's
 * load), which the mean of a short run spreads over the others. */
static void overhead(double *c)
{
    enum { N = 20 };
    double create = 0, first = 0, later = 0, t, cr[N], fr[N];
    MPI_Request req;
    MPIX_Prequest preq;
    for (int r = 0; r < N; ++r) {
        if (0 == rank) {
            MPI_Psend_init(c, 8, 128, MPI_DOUBLE, 1, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        } else {
            MPI_Precv_init(c, 8, 128, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Start(&req);
        t = MPI_Wtime();
        MPIX_Pbuf_prepare(&req);
        fr[r] = MPI_Wtime() - t;
        first += fr[r];
        t = MPI_Wtime();
        MPIX_Prequest_create(req, &preq);
        cr[r] = MPI_Wtime() - t;
        create += cr[r];
        if (0 == rank) pready_each<<<8, 1>>>(preq);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int e = 0; e < 5; ++e) {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Start(&req);
            t = MPI_Wtime();
            MPIX_Pbuf_prepare(&req);
            later += MPI_Wtime() - t;
            if (0 == rank) pready_each<<<8, 1>>>(preq);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        CUDA(cudaDeviceSynchronize()); /* the last kernel, before its request goes */
        MPIX_Prequest_free(&preq);
        MPI_Request_free(&req);
    }
    if (0 == rank) {
        printf("doverhead,%s,prequest_create,-,%.3f,us\n", label, create / N * 1e6);
        printf("doverhead,%s,pbuf_prepare_first,-,%.3f,us\n", label, first / N * 1e6);
        printf("doverhead,%s,pbuf_prepare_later,-,%.3f,us\n", label, later / (N * 5) * 1e6);
        printf("doverhead,%s,prequest_create_round0,-,%.3f,us\n", label, cr[0] * 1e6);
        printf("doverhead,%s,pbuf_prepare_first_round0,-,%.3f,us\n", label, fr[0] * 1e6);
        printf("doverhead,%s,prequest_create_median,-,%.3f,us\n", label, median(cr, N) * 1e6);
        printf("doverhead,%s,pbuf_prepare_first_median,-,%.3f,us\n", label, median(fr, N) * 1e6);
    }
}

int main(int argc, char **argv)
{
    int size;
    (void) example_select_gpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    label = getenv("BENCH_LABEL") ? getenv("BENCH_LABEL") : "nvlink";
    if (argc < 2 || 2 != size) {
        if (0 == rank) fprintf(stderr, "usage: mpirun -np 2 b_device goodput|pready|overhead ...\n");
        MPI_Finalize();
        return 2;
    }
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (0 == strcmp(argv[1], "goodput") && argc > 2) {
        int grids[32], ng = 0, maxg = 1;
        for (char *tok = strtok(argv[2], ","); tok && ng < 32; tok = strtok(NULL, ",")) {
            grids[ng] = atoi(tok);
            if (grids[ng] > maxg) maxg = grids[ng];
            ++ng;
        }
        size_t bytes = (size_t) maxg * 1024 * sizeof(double);
        double *a, *b, *c;
        CUDA(cudaMalloc(&a, bytes));
        CUDA(cudaMalloc(&b, bytes));
        CUDA(cudaMalloc(&c, bytes));
        CUDA(cudaMemset(a, 0, bytes));
        CUDA(cudaMemset(b, 0, bytes));
        CUDA(cudaDeviceSynchronize()); /* before kernels on the non-blocking stream */
        static const char *names[] = {"traditional", "progress", "kernel_copy"};
        for (int g = 0; g < ng; ++g) {
            for (int mode = 0; mode < 3; ++mode) {
                /* BENCH_MODES: names to run, e.g. "kernel_copy" (default all) */
                if (getenv("BENCH_MODES") && !strstr(getenv("BENCH_MODES"), names[mode])) continue;
                double gp = goodput(mode, grids[g], a, b, c, s);
                if (0 == rank) {
                    printf("goodput,%s-%s,%d,%zu,%.4f,GB/s\n", names[mode], label, grids[g],
                           (size_t) grids[g] * 8192, gp);
                    fflush(stdout);
                }
            }
        }
        CUDA(cudaFree(a));
        CUDA(cudaFree(b));
        CUDA(cudaFree(c));
    } else if (0 == strcmp(argv[1], "pready") && argc > 2) {
        const char **names = level_names;
        for (char *tok = strtok(argv[2], ","); tok; tok = strtok(NULL, ",")) {
            int threads = atoi(tok);
            for (int how = 0; how < 4; ++how) {
                double empty, us = pready_cost(how, threads, s, &empty);
                if (0 == rank) {
                    printf("pready,%s,%d,kernel,%.3f,us\n", names[how], threads, us);
                    if (3 == how) printf("pready,empty,%d,kernel,%.3f,us\n", threads, empty);
                    fflush(stdout);
                }
            }
        }
    } else if (0 == strcmp(argv[1], "overhead")) {
        double *c;
        CUDA(cudaMalloc(&c, 8 * 128 * sizeof(double)));
        overhead(c);
        CUDA(cudaFree(c));
    }
    CUDA(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
