/* Many request pairs alive at once, matched by (communicator, source, tag)
 * in creation order: tags repeat across pairs and the communicators differ,
 * so a wrong match shows as wrong data. Each pair moves its own values.
 *   -n N  request pairs (default 1000)   -e N  epochs   -p N  partitions */
#include "../tutil.h"
#include <unistd.h>

int main(int argc, char **argv)
{
    int n = 1000, epochs = 3, parts = 4, count = 8, opt, rank, size;
    while ((opt = getopt(argc, argv, "n:e:p:c:")) != -1) {
        switch (opt) {
        case 'n': n = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        case 'p': parts = atoi(optarg); break;
        case 'c': count = atoi(optarg); break;
        default: return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    long len = (long) parts * count;
    int32_t *sbuf = malloc(sizeof(int32_t) * len * n);
    int32_t *rbuf = malloc(sizeof(int32_t) * len * n);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * n);
    /* Receives are created in reverse pair order on the duplicate
     * communicator for odd pairs: matching must still pair them in order. */
    for (int k = 0; k < n; ++k) {
        MPI_Comm c = (k & 1) ? dup : MPI_COMM_WORLD;
        T_MPI(MPI_Psend_init(sbuf + k * len, parts, count, MPI_INT32_T, dst, k % 7, c,
                             MPI_INFO_NULL, &req[2 * k]));
    }
    for (int k = 0; k < n; ++k) {
        MPI_Comm c = (k & 1) ? dup : MPI_COMM_WORLD;
        T_MPI(MPI_Precv_init(rbuf + k * len, parts, count, MPI_INT32_T, src, k % 7, c,
                             MPI_INFO_NULL, &req[2 * k + 1]));
    }
    for (int e = 1; e <= epochs; ++e) {
        for (long j = 0; j < len * n; ++j) {
            sbuf[j] = t_value(rank, e, j / count, j);
            rbuf[j] = -1;
        }
        T_MPI(MPI_Startall(2 * n, req));
        for (int k = n - 1; k >= 0; --k) {
            T_MPI(MPI_Pready_range(0, parts - 1, req[2 * k]));
        }
        T_MPI(MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE));
        for (long j = 0; j < len * n; ++j) {
            if (rbuf[j] != t_value(src, e, j / count, j)) {
                T_CHECK(0, "epoch %d pair %ld elem %ld: %d", e, j / len, j % len, rbuf[j]);
                break;
            }
        }
    }
    for (int k = 0; k < 2 * n; ++k) {
        T_MPI(MPI_Request_free(&req[k]));
    }
    MPI_Comm_free(&dup);
    free(sbuf); free(rbuf); free(req);
    return t_finish("t_many");
}
