/* Cost of a partitioned collective's init per rank, against the number of
 * ranks: MPIX_Palltoall_init and MPIX_Pallreduce_init.
 *   b_coll_init [KINDS] [REPS] [KEEP] [PARTS] [COUNT]
 *     KINDS  comma list of alltoall, allreduce (default both)
 *     REPS   repetitions (default 5); KEEP requests alive at once (default 8)
 *     PARTS, COUNT  partitions and ints per partition (default 4, 64)
 * Per repetition every rank creates KEEP requests one after another (the
 * init time), then runs one epoch of each (the first epoch: the channels'
 * setup with every peer), measuring its memory growth while all KEEP are
 * alive: heap bytes in use (mallinfo2) and VmRSS, each per request; then
 * frees them. One warm-up round first, so that UCX endpoints to every peer
 * exist (their one-time cost is not the init's). Prints CSV rows
 *   coll_init,KIND,NP,init_us,init_cpu_us,epoch_us,heap_bytes,rss_kib,rss_first_kib
 * with the median over repetitions of the slowest (largest) rank; init_cpu_us
 * is the process's CPU time in the init (oversubscribed, the wall time is
 * mostly waiting for ranks that are not running, in the agreement of the
 * arguments); later
 * repetitions reuse what the allocator kept from earlier ones, so their
 * RSS grows little: rss_first_kib is the warm-up's growth per request
 * (endpoints included). */
#include <malloc.h>
#include <mpi.h>
#include <mpix_part.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long rss_kib(void)
{
    char line[256];
    long v = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (NULL != f && NULL != fgets(line, sizeof(line), f)) {
        if (1 == sscanf(line, "VmRSS: %ld", &v)) break;
    }
    if (NULL != f) fclose(f);
    return v;
}

static long heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long) (mi.uordblks + mi.hblkhd);
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    const char *kinds = argc > 1 ? argv[1] : "alltoall,allreduce";
    int reps = argc > 2 ? atoi(argv[2]) : 5, keep = argc > 3 ? atoi(argv[3]) : 8;
    int parts = argc > 4 ? atoi(argv[4]) : 4, count = argc > 5 ? atoi(argv[5]) : 64;
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (reps < 1 || keep < 1 || parts < 1 || count < 1) MPI_Abort(MPI_COMM_WORLD, 2);
    size_t n = (size_t) parts * count * size;
    int *sbuf = calloc(n * keep, sizeof(int)), *rbuf = calloc(n * keep, sizeof(int));
    MPI_Request *req = calloc(keep, sizeof(*req));
    double *t_init = calloc(reps, sizeof(double)), *t_epoch = calloc(reps, sizeof(double));
    double *heap = calloc(reps, sizeof(double)), *rss = calloc(reps, sizeof(double)), first = 0;
    double *t_cpu = calloc(reps, sizeof(double));
    char *list = strdup(kinds);

    for (char *kind = strtok(list, ","); NULL != kind; kind = strtok(NULL, ",")) {
        int a2a = !strcmp(kind, "alltoall");
        for (int r = -1; r < reps; ++r) { /* -1: warm-up */
            MPI_Barrier(MPI_COMM_WORLD);
            long h0 = heap_bytes(), m0 = rss_kib();
            double c0 = cpu_seconds(), t0 = MPI_Wtime();
            for (int k = 0; k < keep; ++k) {
                int *s = sbuf + k * n, *d = rbuf + k * n;
                int rc = a2a ? MPIX_Palltoall_init(s, d, parts, count, MPI_INT, MPI_COMM_WORLD,
                                                   MPI_INFO_NULL, &req[k])
                             : MPIX_Pallreduce_init(s, d, parts, count, MPI_INT, MPI_SUM,
                                                    MPI_COMM_WORLD, MPI_INFO_NULL, &req[k]);
                if (MPI_SUCCESS != rc) MPI_Abort(MPI_COMM_WORLD, 3);
            }
            double t1 = MPI_Wtime(), c1 = cpu_seconds();
            for (int k = 0; k < keep; ++k) {
                MPI_Start(&req[k]);
                MPI_Pready_range(0, parts - 1, req[k]);
            }
            MPI_Waitall(keep, req, MPI_STATUSES_IGNORE);
            double t2 = MPI_Wtime();
            long h1 = heap_bytes(), m1 = rss_kib();
            for (int k = 0; k < keep; ++k) MPI_Request_free(&req[k]);
            /* the slowest rank, the largest growth */
            double mine[5] = {(t1 - t0) / keep * 1e6, (t2 - t1) / keep * 1e6,
                              (double) (h1 - h0) / keep, (double) (m1 - m0) / keep,
                              (c1 - c0) / keep * 1e6};
            double all[5];
            MPI_Reduce(mine, all, 5, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (r < 0) {
                first = all[3];
            } else {
                t_init[r] = all[0];
                t_epoch[r] = all[1];
                heap[r] = all[2];
                rss[r] = all[3];
                t_cpu[r] = all[4];
            }
        }
        if (0 == rank) {
            printf("coll_init,%s,%d,%.1f,%.1f,%.1f,%.0f,%.1f,%.1f\n", kind, size,
                   median(t_init, reps), median(t_cpu, reps), median(t_epoch, reps),
                   median(heap, reps), median(rss, reps), first);
            fflush(stdout);
        }
    }
    free(list);
    free(sbuf);
    free(rbuf);
    free(req);
    free(t_init);
    free(t_epoch);
    free(t_cpu);
    free(heap);
    free(rss);
    MPI_Finalize();
    return 0;
}
