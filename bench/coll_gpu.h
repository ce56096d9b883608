/* What the GPU kernel + allreduce benchmarks share (bench/b_coll_gpu.cu,
 * bench/b_coll_oneshot.cu): each rank's contribution, the epochs a grid
 * runs, the check of a result and its CSV row. Include after <mpi.h> and
 * ../examples/common.h (CUDA()). */
#ifndef BENCH_COLL_GPU_H
#define BENCH_COLL_GPU_H

#include <stdio.h>

static int rank, size;
static const char *label = ""; /* BENCH_LABEL: appended to the component */

/* Element i of rank r's contribution in epoch `it` */
__device__ __host__ static inline float val(long i, int r, long it)
{
    return (float) ((i % 7) + r + it % 3);
}

static int iters_for(size_t bytes)
{
    size_t it = ((size_t) 512 << 20) / (bytes + 262144);
    return (int) (it < 10 ? 10 : it > 300 ? 300 : it);
}

/* 4096 elements spread over y: the sum over the ranks of epoch it's
 * contributions, or the run aborts. */
static void check(const float *y, size_t n, long it, const char *what)
{
    static float host[4096];
    size_t step = n / 4096 + 1, k = 0;
    for (size_t i = 0; i < n && k < 4096; i += step, ++k) {
        CUDA(cudaMemcpy(&host[k], y + i, sizeof(float), cudaMemcpyDeviceToHost));
        float want = 0;
        for (int r = 0; r < size; ++r) want += val((long) i, r, it);
        if (host[k] != want) {
            fprintf(stderr, "%s: rank %d element %zu is %g, not %g (epoch %ld)\n", what, rank, i,
                    host[k], want, it);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
    }
}

/* The slowest rank's time an epoch: gallreduce,COMPONENT,GRID,RANKS,us,us */
static void report(const char *comp, int grid, double t, int iters)
{
    double max;
    MPI_Reduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("gallreduce,%s%s,%d,%d,%.3f,us\n", comp, label, grid, size, 1e6 * max / iters);
        fflush(stdout);
    }
}

#endif
