/* Data-parallel training step (seed 000 §VI-D, seed 004 §V-C): logistic
 * regression with binary cross-entropy, each rank on its own batch, the
 * weight gradient summed across ranks every iteration:
 *   mpi    gradient kernel, cudaStreamSynchronize, MPI_Allreduce on the
 *          device gradient (CUDA-aware)
 *   part   MPI_Start + MPIX_Pbuf_prepare of a partitioned allreduce, the
 *          gradient kernel marks each partition with device MPIX_Pready as
 *          its blocks finish, MPI_Wait (MPIX_Pallreduce_init once)
 *   stream the same partitioned allreduce stream-ordered: MPIX_Start_enqueue,
 *          the gradient kernel, MPIX_Wait_enqueue, the update kernel, on a
 *          stream communicator (within a node its GPU engine runs it with
 *          no host in the epoch; elsewhere it needs MPI_THREAD_MULTIPLE and
 *          is skipped without)
 *   nccl   gradient kernel, ncclAllReduce on the same stream (built with
 *          -DHAVE_NCCL, and only where every rank has its own GPU)
 * Gradients are quantized to integer-valued doubles before the reduction,
 * so every summation order gives the same bits: the loss of every
 * iteration must be identical across modes, and is checked.
 *   dl [-f FEATURES] [-b BATCH per rank] [-i ITERATIONS] [-p PARTITIONS]
 *      [-m mpi,part,stream,nccl]
 * Output: per-iteration time (including MPI_Start and MPIX_Pbuf_prepare)
 * and the final loss per mode; CSV rows dl,MODE,FEATURES,RANKS,US,us. */
#include <cuda_runtime.h>
#include <math.h>
#include <mpi.h>
#include <mpix_part.h>
#include <mpix_part_device.h>
#include "../common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vector>


#define THREADS 256
#define QUANT 16777216.0 /* 2^24: gradient fixed point */

enum { M_MPI, M_PART, M_STREAM, M_NCCL, M_COUNT };
static const char *mode_name[M_COUNT] = {"mpi", "part", "stream", "nccl"};

/* Deterministic data: features in [-1, 1] in steps of 1/8, labels from a
 * hidden weight vector, so the model has something to learn. */
__host__ __device__ static inline double feature(int rank, long b, long f)
{
    uint32_t v = (uint32_t) rank * 2654435761u ^ (uint32_t) b * 40503u ^ (uint32_t) f * 977u;
    v ^= v >> 13;
    v *= 0x5bd1e995u;
    v ^= v >> 15;
    return (double) ((int) (v % 17) - 8) / 8.0;
}

__global__ void init_data(double *X, double *y, long F, int B, int rank)
{
    int b = blockIdx.x;
    __shared__ double part[THREADS];
    double s = 0;
    for (long f = threadIdx.x; f < F; f += blockDim.x) {
        double x = feature(rank, b, f);
        X[(long) b * F + f] = x;
        s += x * ((f % 3) - 1.0); /* hidden weights -1, 0, 1 */
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (0 == threadIdx.x) y[b] = part[0] > 0 ? 1.0 : 0.0;
}

/* Forward: one block per sample, p = sigmoid(x . w), and its BCE loss. */
__global__ void forward(const double *X, const double *w, const double *y, double *p,
                        double *loss, long F)
{
    int b = blockIdx.x;
    __shared__ double part[THREADS];
    double s = 0;
    for (long f = threadIdx.x; f < F; f += blockDim.x) s += X[(long) b * F + f] * w[f];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (0 == threadIdx.x) {
        double q = 1.0 / (1.0 + exp(-part[0]));
        q = fmin(fmax(q, 1e-12), 1.0 - 1e-12);
        p[b] = q;
        loss[b] = -(y[b] * log(q) + (1.0 - y[b]) * log(1.0 - q));
    }
}

/* Backward: one thread per feature, g[f] = sum_b x[b][f] (p[b] - y[b]),
 * quantized; in part mode every thread then marks its partition. */
__global__ void gradient(const double *X, const double *p, const double *y, double *g, long F,
                         int B, int per_part, MPIX_Prequest preq)
{
    long f = blockIdx.x * (long) blockDim.x + threadIdx.x;
    if (f < F) {
        double s = 0;
        for (int b = 0; b < B; ++b) s += X[(long) b * F + f] * (p[b] - y[b]);
        g[f] = rint(s * QUANT);
    }
    if (NULL != preq) MPIX_Pready((int) (f / per_part), preq);
}

__global__ void update(double *w, const double *gsum, long F, double scale)
{
    long f = blockIdx.x * (long) blockDim.x + threadIdx.x;
    if (f < F) w[f] -= scale * gsum[f];
}

int main(int argc, char **argv)
{
    long F = 1 << 20;
    int B = 64, iters = 50, parts = 32, opt, rank, size;
    bool want[M_COUNT] = {true, true, true, true};
    while ((opt = getopt(argc, argv, "f:b:i:p:m:")) != -1) {
        switch (opt) {
        case 'f': F = atol(optarg); break;
        case 'b': B = atoi(optarg); break;
        case 'i': iters = atoi(optarg); break;
        case 'p': parts = atoi(optarg); break;
        case 'm':
            for (int m = 0; m < M_COUNT; ++m) want[m] = NULL != strstr(optarg, mode_name[m]);
            break;
        default: return 2;
        }
    }
    /* partitions of whole blocks, so a partition's threads all call Pready */
    long blocks = (F + THREADS - 1) / THREADS;
    if (blocks % parts) parts = 1;
    F = blocks * THREADS; /* whole blocks of features */
    int per_part = (int) (F / parts);

    (void) example_select_gpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    double *X, *y, *w, *p, *loss, *g, *gsum;
    CUDA(cudaMalloc(&X, sizeof(double) * F * B));
    CUDA(cudaMalloc(&y, sizeof(double) * B));
    CUDA(cudaMalloc(&w, sizeof(double) * F));
    CUDA(cudaMalloc(&p, sizeof(double) * B));
    CUDA(cudaMalloc(&loss, sizeof(double) * B));
    CUDA(cudaMalloc(&g, sizeof(double) * F));
    CUDA(cudaMalloc(&gsum, sizeof(double) * F));
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    init_data<<<B, THREADS, 0, s>>>(X, y, F, B, rank);
    CUDA(cudaStreamSynchronize(s));

#ifdef HAVE_NCCL
    ncclComm_t nccl = NULL;
    if (want[M_NCCL]) nccl = example_nccl_init("dl");
#else
    want[M_NCCL] = false;
#endif

    /* losses[m][i]: the global mean loss of iteration i in mode m */
    std::vector<std::vector<double>> losses(M_COUNT, std::vector<double>(iters, 0.0));
    std::vector<double> hloss(B);
    /* w -= lr * mean gradient with lr = N / F (N samples in all): the
     * loss's curvature here is about 0.1 F / N, so the step stays below
     * 2 / curvature and the loss decreases. gsum = N * QUANT * mean. */
    double scale = 1.0 / ((double) F * QUANT);
    int failures = 0;

    for (int m = 0; m < M_COUNT; ++m) {
        if (!want[m]) continue;
#ifdef HAVE_NCCL
        if (M_NCCL == m && NULL == nccl) continue;
#endif
        MPI_Request req = MPI_REQUEST_NULL;
        MPIX_Prequest preq = NULL;
        MPIX_Stream ms = MPIX_STREAM_NULL;
        MPI_Comm comm = MPI_COMM_WORLD;
        if (M_STREAM == m) {
            comm = example_stream_comm(s, &ms);
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        }
        if (M_PART == m || M_STREAM == m) {
            MPI_Info info;
            char n[32];
            MPI_Info_create(&info);
            snprintf(n, sizeof(n), "%d", per_part); /* threads per partition call MPIX_Pready */
            MPI_Info_set(info, "mpix_pready_threads", n);
            /* every thread of a block calls it for one partition: one
             * counter update per block instead of one per warp */
            if (0 == per_part % THREADS) MPI_Info_set(info, "mpix_pready_aggregate", "block");
            /* stream mode: every epoch is enqueued and only the gradient
             * kernel, between start and wait, makes partitions ready; with
             * --mca part_ucx_coll_gpu_after_bytes (every rank on one GPU)
             * its MPIX_Pready then only marks (MPIX_Pallreduce_init(3)) */
            if (M_STREAM == m) MPI_Info_set(info, "mpix_stream_kernels", "true");
            MPIX_Pallreduce_init(g, gsum, parts, per_part, MPI_DOUBLE, MPI_SUM, comm, info, &req);
            MPI_Info_free(&info);
            /* the device request before the first enqueued epoch */
            if (M_STREAM == m) MPIX_Prequest_create(req, &preq);
        }
        CUDA(cudaMemsetAsync(w, 0, sizeof(double) * F, s));
        CUDA(cudaStreamSynchronize(s));
        double t = 0;
        for (int i = 0; i < iters; ++i) {
            forward<<<B, THREADS, 0, s>>>(X, w, y, p, loss, F);
            CUDA(cudaMemcpyAsync(hloss.data(), loss, sizeof(double) * B, cudaMemcpyDeviceToHost, s));
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (M_STREAM == m) {
                int rc = MPIX_Start_enqueue(&req);
                /* whether every rank can: agreed on at the first iteration,
                 * which is not timed (the schedule engine without
                 * MPI_THREAD_MULTIPLE refuses every epoch alike) */
                int all = rc;
                if (0 == i) MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                if (MPI_SUCCESS != all && 0 == i) {
                    if (0 == rank) fprintf(stderr, "dl: stream mode unavailable here, skipped\n");
                    want[m] = false;
                    break;
                }
                if (MPI_SUCCESS != all) {
                    fprintf(stderr, "dl: MPIX_Start_enqueue failed at iteration %d\n", i);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
                gradient<<<blocks, THREADS, 0, s>>>(X, p, y, g, F, B, per_part, preq);
                MPIX_Wait_enqueue(&req, MPI_STATUS_IGNORE);
            } else if (M_PART == m) {
                MPI_Start(&req);
                MPIX_Pbuf_prepare(&req);
                if (NULL == preq) MPIX_Prequest_create(req, &preq);
                gradient<<<blocks, THREADS, 0, s>>>(X, p, y, g, F, B, per_part, preq);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else {
                gradient<<<blocks, THREADS, 0, s>>>(X, p, y, g, F, B, per_part, NULL);
                if (M_MPI == m) {
                    CUDA(cudaStreamSynchronize(s));
                    MPI_Allreduce(g, gsum, (int) F, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                }
#ifdef HAVE_NCCL
                else {
                    ncclAllReduce(g, gsum, F, ncclDouble, ncclSum, nccl, s);
                }
#endif
            }
            update<<<blocks, THREADS, 0, s>>>(w, gsum, F, scale);
            CUDA(cudaStreamSynchronize(s));
            if (i > 0) t += MPI_Wtime() - t0; /* iteration 0 sets up */
            double local = 0, sum = 0;
            for (int b = 0; b < B; ++b) local += hloss[b];
            MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            losses[m][i] = sum / ((double) B * size);
        }
        if (M_STREAM == m && want[m]) {
            MPI_Wait(&req, MPI_STATUS_IGNORE); /* the host sees the enqueued epochs complete */
        }
        if (NULL != preq) MPIX_Prequest_free(&preq);
        if (MPI_REQUEST_NULL != req) MPI_Request_free(&req);
        if (M_STREAM == m) {
            MPI_Comm_free(&comm);
            MPIX_Stream_free(&ms);
            if (!want[m]) continue;
        }
        double max = 0;
        MPI_Reduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (0 == rank) {
            printf("dl,%s,%ld,%d,%.3f,us\n", mode_name[m], F, size,
                   1e6 * max / (iters > 1 ? iters - 1 : 1));
            fprintf(stderr, "dl %s: loss %.12f -> %.12f\n", mode_name[m], losses[m][0],
                    losses[m][iters - 1]);
        }
        /* every mode must train exactly as the first one did */
        for (int r = 0; r < m; ++r) {
            if (!want[r] || 0.0 == losses[r][0]) continue;
            for (int i = 0; i < iters; ++i) {
                if (losses[m][i] != losses[r][i]) {
                    if (0 == rank)
                        fprintf(stderr, "dl: iteration %d: %s loss %.17g != %s loss %.17g\n", i,
                                mode_name[m], losses[m][i], mode_name[r], losses[r][i]);
                    ++failures;
                    break;
                }
            }
        }
        if (iters > 1 && !(losses[m][iters - 1] < losses[m][0])) {
            if (0 == rank) fprintf(stderr, "dl %s: the loss did not decrease\n", mode_name[m]);
            ++failures;
        }
    }
    if (0 == rank) printf("# dl: %s\n", failures ? "FAIL" : "OK");
#ifdef HAVE_NCCL
    if (NULL != nccl) ncclCommDestroy(nccl);
#endif
    CUDA(cudaFree(X));
    CUDA(cudaFree(y));
    CUDA(cudaFree(w));
    CUDA(cudaFree(p));
    CUDA(cudaFree(loss));
    CUDA(cudaFree(g));
    CUDA(cudaFree(gsum));
    CUDA(cudaStreamDestroy(s));
    MPI_Finalize();
    return failures ? 1 : 0;
}
