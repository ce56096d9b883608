/* Multi-GPU 2D Jacobi solver (the algorithm of NVIDIA's multi-GPU
 * programming models MPI example, written for part/ucx): rows split across
 * ranks, periodic in y, fixed left/right boundaries sin(2 pi y / (ny - 1)),
 * L2 norm of the update every -n iterations. Halo exchange modes:
 *   sendrecv   Jacobi kernel, cudaStreamSynchronize, MPI_Sendrecv of the
 *              boundary rows on device buffers
 *   part       partitioned: the boundary-row kernel marks column partitions
 *              of the two boundary rows with device MPIX_Pready (kernel copy
 *              over NVLink where UCX maps the neighbour's GPU), the interior
 *              kernel runs meanwhile, MPI_Waitall; one request set per
 *              buffer parity, MPI_Startall + MPIX_Pbuf_prepareall each
 *              iteration
 *   jacobi [-x NX] [-y NY] [-s MULT] [-i ITER] [-n NORM_EVERY]
 *          [-p PARTITIONS] [-m sendrecv,part] [-c]
 * -s MULT: problem multiplier, NX = 4096 and NY = 1024 * MULT.
 * -c checks the result against a single-GPU run of the same problem on
 * rank 0 (the same arithmetic per cell: it must match to the last bit).
 * Output: CSV rows jacobi,MODE,MULT,RANKS,GFLOPS,GFLOP/s (4 flops per
 * updated cell) and the final norm per mode; the modes' norms must agree
 * (to rounding: the blocks' sums are added with atomics in any order). */
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


#define TX 256

enum { M_SENDRECV, M_PART, M_COUNT };
static const char *mode_name[M_COUNT] = {"sendrecv", "part"};

__global__ void init_boundaries(double *a, double *b, int nx, int rows, int row0, int ny)
{
    int iy = blockIdx.x * blockDim.x + threadIdx.x;
    if (iy < rows + 2) {
        double v = sin(2.0 * M_PI * (row0 + iy - 1) / (ny - 1));
        a[(long) iy * nx] = b[(long) iy * nx] = v;
        a[(long) iy * nx + nx - 1] = b[(long) iy * nx + nx - 1] = v;
    }
}

/* Cell (iy, ix) of the local block (row 1 = first interior row); returns
 * its squared update for the norm (0 outside the interior). */
__device__ static inline double relax(const double *a, double *an, int nx, int iy, int ix)
{
    if (ix <= 0 || ix >= nx - 1) return 0;
    long i = (long) iy * nx + ix;
    double v = 0.25 * (a[i + 1] + a[i - 1] + a[i + nx] + a[i - nx]);
    an[i] = v;
    return (v - a[i]) * (v - a[i]);
}

/* The block's squared updates summed in shared memory, one atomic per
 * block (as the NVIDIA example's cub::BlockReduce): an atomic per cell on
 * one word would serialise the norm iterations and hide the halo exchange.
 * Every thread of the block calls it. */
__device__ static inline void norm_add(double *norm, double d)
{
    __shared__ double warp_sum[TX / 32];
    for (int off = 16; off > 0; off /= 2) d += __shfl_down_sync(0xffffffffu, d, off);
    if (0 == threadIdx.x % 32) warp_sum[threadIdx.x / 32] = d;
    __syncthreads();
    if (threadIdx.x < 32) {
        d = threadIdx.x < TX / 32 ? warp_sum[threadIdx.x] : 0;
        for (int off = 16; off > 0; off /= 2) d += __shfl_down_sync(0xffffffffu, d, off);
        if (0 == threadIdx.x) atomicAdd(norm, d);
    }
}

/* Rows [r0, r1) of the local block. */
__global__ void jacobi_rows(const double *a, double *an, int nx, int r0, int r1, double *norm)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x, iy = r0 + blockIdx.y;
    double d = (ix < nx && iy < r1) ? relax(a, an, nx, iy, ix) : 0;
    if (NULL != norm) norm_add(norm, d);
}

/* The two boundary rows (1 and rows), then every thread marks its column
 * partition of its row: preq[0] sends row 1 up, preq[1] row `rows` down. */
__global__ void jacobi_boundary(const double *a, double *an, int nx, int rows, double *norm,
                                MPIX_Prequest up, MPIX_Prequest down, int cols_per_part)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x, top = (0 == blockIdx.y);
    int iy = top ? 1 : rows;
    double d = (ix < nx && (top || rows > 1)) ? relax(a, an, nx, iy, ix) : 0;
    if (NULL != norm) norm_add(norm, d);
    if (ix < nx) MPIX_Pready(ix / cols_per_part, top ? up : down);
}

struct grid {
    int nx, ny, rows, row0, rank, size, top, bottom;
};

/* One rank's run of `iters` iterations; returns seconds, the last norm, and
 * leaves the result in `out` (interior rows). */
static double run(const grid &g, int mode, int iters, int nevery, int parts, double *res_norm,
                  std::vector<double> &out, MPI_Comm comm)
{
    long n = (long) (g.rows + 2) * g.nx;
    double *buf[2], *norm_d;
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA(cudaMalloc(&buf[0], n * sizeof(double)));
    CUDA(cudaMalloc(&buf[1], n * sizeof(double)));
    CUDA(cudaMalloc(&norm_d, sizeof(double)));
    /* Everything on `s`: a non-blocking stream does not wait for work of
     * the legacy default stream (cudaMemset, device-to-device cudaMemcpy),
     * and those return before the device is done. */
    CUDA(cudaMemsetAsync(buf[0], 0, n * sizeof(double), s));
    CUDA(cudaMemsetAsync(buf[1], 0, n * sizeof(double), s));
    init_boundaries<<<(g.rows + 2 + 127) / 128, 128, 0, s>>>(buf[0], buf[1], g.nx, g.rows, g.row0,
                                                             g.ny);
    CUDA(cudaStreamSynchronize(s));
    int cols = g.nx / parts;
    bool alone = (1 == g.size);

    /* part: per parity k (iteration writes buf[(i + 1) % 2]): sends of
     * rows 1 and rows, receives into the halo rows 0 and rows + 1. */
    MPI_Request req[2][4];
    MPIX_Prequest preq[2][2] = {{NULL, NULL}, {NULL, NULL}};
    if (M_PART == mode && !alone) {
        MPI_Info info;
        char t[32];
        MPI_Info_create(&info);
        snprintf(t, sizeof(t), "%d", cols); /* every thread of a partition calls Pready */
        MPI_Info_set(info, "mpix_pready_threads", t);
        for (int k = 0; k < 2; ++k) {
            double *o = buf[(k + 1) % 2];
            int up = 10 + 2 * k, down = 11 + 2 * k; /* direction of travel */
            MPI_Psend_init(o + g.nx, parts, cols, MPI_DOUBLE, g.top, up, comm, info, &req[k][0]);
            MPI_Psend_init(o + (long) g.rows * g.nx, parts, cols, MPI_DOUBLE, g.bottom, down,
                           comm, info, &req[k][1]);
            MPI_Precv_init(o, parts, cols, MPI_DOUBLE, g.top, down, comm, MPI_INFO_NULL,
                           &req[k][2]);
            MPI_Precv_init(o + (long) (g.rows + 1) * g.nx, parts, cols, MPI_DOUBLE, g.bottom, up,
                           comm, MPI_INFO_NULL, &req[k][3]);
        }
        MPI_Info_free(&info);
    }

    double t = 0, norm = 0;
    dim3 rowsgrid((g.nx + TX - 1) / TX, g.rows), bgrid((g.nx + TX - 1) / TX, 2);
    for (int i = 0; i < iters; ++i) {
        const double *a = buf[i % 2];
        double *an = buf[(i + 1) % 2];
        bool calc = (0 == (i + 1) % nevery) || i == iters - 1;
        double *nd = calc ? norm_d : NULL;
        if (calc) CUDA(cudaMemsetAsync(norm_d, 0, sizeof(double), s));
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        if (M_PART == mode && !alone) {
            int k = i % 2;
            MPI_Startall(4, req[k]);
            MPIX_Pbuf_prepareall(4, req[k]);
            if (NULL == preq[k][0]) {
                MPIX_Prequest_create(req[k][0], &preq[k][0]);
                MPIX_Prequest_create(req[k][1], &preq[k][1]);
            }
            jacobi_boundary<<<bgrid, TX, 0, s>>>(a, an, g.nx, g.rows, nd, preq[k][0], preq[k][1],
                                                 cols);
            if (g.rows > 2) {
                dim3 inner((g.nx + TX - 1) / TX, g.rows - 2);
                jacobi_rows<<<inner, TX, 0, s>>>(a, an, g.nx, 2, g.rows, nd);
            }
            MPI_Waitall(4, req[k], MPI_STATUSES_IGNORE);
            CUDA(cudaStreamSynchronize(s));
        } else {
            jacobi_rows<<<rowsgrid, TX, 0, s>>>(a, an, g.nx, 1, g.rows + 1, nd);
            CUDA(cudaStreamSynchronize(s));
            if (alone) { /* periodic onto ourselves */
                CUDA(cudaMemcpyAsync(an, an + (long) g.rows * g.nx, g.nx * sizeof(double),
                                     cudaMemcpyDeviceToDevice, s));
                CUDA(cudaMemcpyAsync(an + (long) (g.rows + 1) * g.nx, an + g.nx,
                                     g.nx * sizeof(double), cudaMemcpyDeviceToDevice, s));
                CUDA(cudaStreamSynchronize(s));
            } else {
                MPI_Sendrecv(an + g.nx, g.nx, MPI_DOUBLE, g.top, 1,
                             an + (long) (g.rows + 1) * g.nx, g.nx, MPI_DOUBLE, g.bottom, 1,
                             comm, MPI_STATUS_IGNORE);
                MPI_Sendrecv(an + (long) g.rows * g.nx, g.nx, MPI_DOUBLE, g.bottom, 2, an,
                             g.nx, MPI_DOUBLE, g.top, 2, comm, MPI_STATUS_IGNORE);
            }
        }
        if (i > 0) t += MPI_Wtime() - t0; /* iteration 0 sets up */
        if (calc) {
            double local = 0;
            CUDA(cudaMemcpyAsync(&local, norm_d, sizeof(double), cudaMemcpyDeviceToHost, s));
            CUDA(cudaStreamSynchronize(s));
            MPI_Allreduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, comm);
            norm = sqrt(norm);
        }
    }
    *res_norm = norm;
    out.resize((size_t) g.rows * g.nx);
    CUDA(cudaMemcpyAsync(out.data(), buf[iters % 2] + g.nx, out.size() * sizeof(double),
                         cudaMemcpyDeviceToHost, s));
    CUDA(cudaStreamSynchronize(s));
    if (M_PART == mode && !alone) {
        for (int k = 0; k < 2; ++k) {
            for (int j = 0; j < 2; ++j)
                if (NULL != preq[k][j]) MPIX_Prequest_free(&preq[k][j]);
            for (int j = 0; j < 4; ++j) MPI_Request_free(&req[k][j]);
        }
    }
    CUDA(cudaFree(buf[0]));
    CUDA(cudaFree(buf[1]));
    CUDA(cudaFree(norm_d));
    CUDA(cudaStreamDestroy(s));
    return t;
}

int main(int argc, char **argv)
{
    int nx = 4096, ny = 4096, mult = 0, iters = 100, nevery = 10, parts = 8, check = 0, opt;
    int rank, size;
    bool want[M_COUNT] = {true, true};
    while ((opt = getopt(argc, argv, "x:y:s:i:n:p:m:c")) != -1) {
        switch (opt) {
        case 'x': nx = atoi(optarg); break;
        case 'y': ny = atoi(optarg); break;
        case 's': mult = atoi(optarg); break;
        case 'i': iters = atoi(optarg); break;
        case 'n': nevery = atoi(optarg); break;
        case 'p': parts = atoi(optarg); break;
        case 'm':
            for (int m = 0; m < M_COUNT; ++m) want[m] = NULL != strstr(optarg, mode_name[m]);
            break;
        case 'c': check = 1; break;
        default: return 2;
        }
    }
    if (mult > 0) {
        nx = 4096;
        ny = 1024 * mult;
    }
    (void) example_select_gpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (ny % size || nx % parts || nx < 3 || ny / size < 2) {
        if (0 == rank)
            fprintf(stderr, "jacobi: NY %% ranks and NX %% partitions must be 0, 2+ rows per rank\n");
        MPI_Finalize();
        return 2;
    }
    grid g = {nx, ny, ny / size, (ny / size) * rank, rank, size, (rank - 1 + size) % size,
              (rank + 1) % size};
    int failures = 0;
    double norms[M_COUNT] = {0, 0};
    std::vector<double> result, all, ref;
    for (int m = 0; m < M_COUNT; ++m) {
        if (!want[m]) continue;
        double norm, t = run(g, m, iters, nevery, parts, &norm, result, MPI_COMM_WORLD), max;
        norms[m] = norm;
        MPI_Reduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        double gflops = 4.0 * (nx - 2) * (double) ny * (iters - 1) / max / 1e9;
        if (0 == rank) {
            printf("jacobi,%s,%d,%d,%.3f,GFLOP/s\n", mode_name[m], mult, size, gflops);
            fprintf(stderr, "jacobi %s: %dx%d, %d iterations, norm %.15e, %.3f s\n",
                    mode_name[m], nx, ny, iters, norm, max);
        }
        if (check) {
            if (0 == rank) all.resize((size_t) nx * ny);
            MPI_Gather(result.data(), g.rows * nx, MPI_DOUBLE, all.data(), g.rows * nx,
                       MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (0 == rank) {
                if (ref.empty()) {
                    grid one = {nx, ny, ny, 0, 0, 1, 0, 0};
                    double rn;
                    run(one, M_SENDRECV, iters, nevery, parts, &rn, ref, MPI_COMM_SELF);
                }
                double diff = 0;
                size_t at = 0;
                for (size_t j = 0; j < all.size(); ++j) {
                    if (fabs(all[j] - ref[j]) > diff) {
                        diff = fabs(all[j] - ref[j]);
                        at = j;
                    }
                }
                if (diff != 0) {
                    fprintf(stderr,
                            "jacobi %s: differs from the single-GPU run by %g at row %zu "
                            "column %zu (%.17g, single GPU %.17g)\n",
                            mode_name[m], diff, at / nx, at % nx, all[at], ref[at]);
                    ++failures;
                } else {
                    fprintf(stderr, "jacobi %s: identical to the single-GPU run\n", mode_name[m]);
                }
            }
        }
    }
    if (want[M_SENDRECV] && want[M_PART] &&
        fabs(norms[M_SENDRECV] - norms[M_PART]) > 1e-9 * fabs(norms[M_SENDRECV])) {
        if (0 == rank) fprintf(stderr, "jacobi: norms differ: %.17g vs %.17g\n",
                               norms[M_SENDRECV], norms[M_PART]);
        ++failures;
    }
    MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (0 == rank) printf("# jacobi: %s\n", failures ? "FAIL" : "OK");
    MPI_Finalize();
    return failures ? 1 : 0;
}
