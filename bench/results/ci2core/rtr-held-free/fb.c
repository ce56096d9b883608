/* Time of MPI_Request_free after one epoch: a partitioned receive (p2p) and
 * a partitioned allreduce (its channels), median of reps, slowest rank. */
#include <mpi.h>
#include <mpix_part.h>
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    int rank, size, reps = 200;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    float buf[4 * 256], y[4 * 256];
    double *tp = calloc(reps, sizeof(double)), *tc = calloc(reps, sizeof(double));
    for (int i = 0; i < reps; ++i) {
        MPI_Request r;
        if (rank < 2) {
            if (0 == rank) MPI_Psend_init(buf, 4, 256, MPI_FLOAT, 1, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
            else MPI_Precv_init(buf, 4, 256, MPI_FLOAT, 0, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
            MPI_Start(&r);
            if (0 == rank) for (int p = 0; p < 4; ++p) MPI_Pready(p, r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            double t0 = MPI_Wtime();
            MPI_Request_free(&r);
            tp[i] = MPI_Wtime() - t0;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPIX_Pallreduce_init(buf, y, 4, 256, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        for (int p = 0; p < 4; ++p) MPI_Pready(p, r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        double t0 = MPI_Wtime();
        MPI_Request_free(&r);
        tc[i] = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    qsort(tp, reps, sizeof(double), cmp);
    qsort(tc, reps, sizeof(double), cmp);
    double m[2] = {tp[reps / 2] * 1e6, tc[reps / 2] * 1e6}, mx[2];
    MPI_Reduce(m, mx, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 == rank) printf("np %d: free after one epoch, median us (slowest rank): p2p %.1f, allreduce %.1f\n", size, mx[0], mx[1]);
    MPI_Finalize();
    return 0;
}
