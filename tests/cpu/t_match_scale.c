/* Matching at scale: rank 1 posts n receives of n distinct tags first, rank
 * 0 then initializes the sends in the reverse tag order, so that every
 * setup record's receive is the last one posted (a linear posted queue
 * would be walked n times). Then n more pairs the other way round: records
 * first, receives in reverse order. One epoch of every pair, data checked;
 * rank 0 prints the time from the first init to the end of the epoch
 * (matching runs in progress, inside it).
 *   -n N  pairs each way (default 20000) */
#include "../tutil.h"

int main(int argc, char **argv)
{
    int n = 20000, opt, rank, size;

    while ((opt = getopt(argc, argv, "n:")) != -1) {
        switch (opt) {
        case 'n': n = atoi(optarg); break;
        default: return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (2 != size) {
        MPI_Finalize();
        return 2;
    }
    int32_t *buf = malloc(sizeof(int32_t) * 2 * n);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * n);
    double t0, t1;

    /* phase 1: receives first (rank 1), sends in reverse (rank 0) */
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (1 == rank) {
        for (int k = 0; k < n; ++k) {
            T_MPI(MPI_Precv_init(&buf[k], 1, 1, MPI_INT32_T, 0, k, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &req[k]));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == rank) {
        for (int k = n - 1; k >= 0; --k) {
            T_MPI(MPI_Psend_init(&buf[k], 1, 1, MPI_INT32_T, 1, k, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &req[k]));
        }
    }
    /* phase 2: sends first (rank 1 to 0), receives in reverse */
    if (1 == rank) {
        for (int k = 0; k < n; ++k) {
            T_MPI(MPI_Psend_init(&buf[n + k], 1, 1, MPI_INT32_T, 0, k, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &req[n + k]));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (0 == rank) {
        for (int k = n - 1; k >= 0; --k) {
            T_MPI(MPI_Precv_init(&buf[n + k], 1, 1, MPI_INT32_T, 1, k, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &req[n + k]));
        }
    }
    t1 = MPI_Wtime();
    for (int k = 0; k < 2 * n; ++k) {
        int sender = (k < n) ? 0 : 1;
        buf[k] = (rank == sender) ? t_value(sender, 1, k, 0) : -1;
    }
    T_MPI(MPI_Startall(2 * n, req));
    for (int k = 0; k < 2 * n; ++k) {
        if (rank == ((k < n) ? 0 : 1)) {
            T_MPI(MPI_Pready(0, req[k]));
        }
    }
    T_MPI(MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 2 * n; ++k) {
        int sender = (k < n) ? 0 : 1;
        if (rank != sender && buf[k] != t_value(sender, 1, k, 0)) {
            T_CHECK(0, "pair %d: %d", k, buf[k]);
            break;
        }
    }
    if (0 == rank) {
        printf("t_match_scale: %d pairs each way: %.3f s (inits %.3f s)\n", n,
               MPI_Wtime() - t0, t1 - t0);
    }
    for (int k = 0; k < 2 * n; ++k) {
        T_MPI(MPI_Request_free(&req[k]));
    }
    free(buf);
    free(req);
    return t_finish("t_match_scale");
}
