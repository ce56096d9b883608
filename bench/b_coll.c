/* Partitioned allreduce on host buffers vs MPI_Allreduce (seed 000 §VI-B):
 *   b_coll allreduce BYTES,... PARTS   time per epoch: MPI_Start, MPI_Pready of
 *                                      every partition (in random order), MPI_Wait
 *                                      vs one MPI_Allreduce of the same floats
 *   b_coll overhead                    MPIX_Pallreduce_init (+ MPI_Request_free)
 * The result of the first epoch of every size is checked. Output: CSV rows
 * bench,component,param1,param2,value,unit on rank 0 (param2: ranks). */
#include <mpi.h>
#include <mpix_part.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static int iters_for(size_t bytes)
{
    size_t it = ((size_t) 64 << 20) / (bytes + 4096);
    return (int) (it < 20 ? 20 : it > 2000 ? 2000 : it);
}

static int check(const float *y, size_t n, int it)
{
    for (size_t i = 0; i < n; i += 1 + n / 97) {
        float want = 0;
        for (int r = 0; r < size; ++r) want += (float) ((i % 7) + r + it % 3);
        if (y[i] != want) {
            fprintf(stderr, "b_coll: element %zu is %g, not %g\n", i, y[i], want);
            return 0;
        }
    }
    return 1;
}

static void fill(float *x, size_t n, int it)
{
    for (size_t i = 0; i < n; ++i) x[i] = (float) ((i % 7) + rank + it % 3);
}

static void allreduce(size_t bytes, int parts)
{
    size_t n = bytes / sizeof(float);
    int count = (int) (n / (size_t) parts), iters = iters_for(bytes);
    float *x = malloc(n * sizeof(float) + 4), *y = malloc(n * sizeof(float) + 4);
    MPI_Request req;
    double t, tp = 0, tm = 0;

    n = (size_t) count * parts;
    MPIX_Pallreduce_init(x, y, parts, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req);
    for (int mode = 0; mode < 2; ++mode) {
        for (int it = -1; it < iters; ++it) { /* it -1: warm-up and check */
            fill(x, n, it + 1);
            memset(y, 0, n * sizeof(float));
            MPI_Barrier(MPI_COMM_WORLD);
            t = MPI_Wtime();
            if (0 == mode) {
                MPI_Start(&req);
                for (int p = 0; p < parts; ++p) MPI_Pready((p * 7 + rank) % parts, req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else {
                MPI_Allreduce(x, y, (int) n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            }
            t = MPI_Wtime() - t;
            if (it < 0 && !check(y, n, it + 1)) MPI_Abort(MPI_COMM_WORLD, 4);
            if (it >= 0) *(0 == mode ? &tp : &tm) += t;
        }
    }
    MPI_Request_free(&req);
    double loc[2] = {tp, tm}, max[2];
    MPI_Reduce(loc, max, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("callreduce,partitioned-%d,%zu,%d,%.3f,us\n", parts, n * sizeof(float), size,
               1e6 * max[0] / iters);
        printf("callreduce,MPI_Allreduce,%zu,%d,%.3f,us\n", n * sizeof(float), size,
               1e6 * max[1] / iters);
        fflush(stdout);
    }
    free(x);
    free(y);
}

static void overhead(void)
{
    const int reps = 50, parts = 8, count = 1024;
    float *x = malloc(parts * count * sizeof(float)), *y = malloc(parts * count * sizeof(float));
    MPI_Request req;
    double t = 0, t0, max;

    for (int i = 0; i <= reps; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPIX_Pallreduce_init(x, y, parts, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &req);
        if (i > 0) t += MPI_Wtime() - t0; /* the first brings up endpoints */
        MPI_Request_free(&req);
    }
    MPI_Reduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("coverhead,Pallreduce_init,%d,%d,%.3f,us\n", parts, size, 1e6 * max / reps);
    }
    free(x);
    free(y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc >= 4 && 0 == strcmp(argv[1], "allreduce")) {
        for (char *s = strtok(argv[2], ","); s; s = strtok(NULL, ","))
            allreduce((size_t) atol(s), atoi(argv[3]));
    } else if (argc >= 2 && 0 == strcmp(argv[1], "overhead")) {
        overhead();
    } else if (0 == rank) {
        fprintf(stderr, "usage: b_coll allreduce BYTES,... PARTS | overhead\n");
    }
    MPI_Finalize();
    return 0;
}
