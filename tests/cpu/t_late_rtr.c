/* Late control messages against a request being freed: with one epoch
 * ahead (tcp) a receiver's last ready-to-receive comes after its sender
 * completed, often while the sender's main thread frees the request and a
 * second thread progresses (MPI_Iprobe) and handles the message. Every round
 * builds an exchange pair, runs a few epochs (data checked) and frees it.
 *   -n N  rounds (default 3000)   -e N  epochs a round (default 3)
 *   -p N  partitions   -c N  ints per partition   -t N  probing threads (1) */
#include "../tutil.h"
#include <pthread.h>

static volatile int stop = 0;
static MPI_Comm probe_comm;

static void *prober(void *arg)
{
    int flag;

    (void) arg;
    while (!stop) {
        MPI_Iprobe(MPI_ANY_SOURCE, 777, probe_comm, &flag, MPI_STATUS_IGNORE);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int rounds = 3000, epochs = 3, parts = 4, count = 8, nthreads = 1, opt, rank, size, provided;
    pthread_t thread[8];

    while ((opt = getopt(argc, argv, "n:e:p:c:t:")) != -1) {
        switch (opt) {
        case 'n': rounds = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        case 'p': parts = atoi(optarg); break;
        case 'c': count = atoi(optarg); break;
        case 't': nthreads = atoi(optarg); break;
        default: return 2;
        }
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (MPI_THREAD_MULTIPLE != provided) {
        if (0 == rank) fprintf(stderr, "no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 2;
    }
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;
    long len = (long) parts * count;
    int32_t *sbuf = malloc(sizeof(int32_t) * len), *rbuf = malloc(sizeof(int32_t) * len);

    MPI_Comm_dup(MPI_COMM_WORLD, &probe_comm);
    nthreads = (nthreads < 1) ? 1 : (nthreads > 8) ? 8 : nthreads;
    for (int i = 0; i < nthreads; ++i) {
        pthread_create(&thread[i], NULL, prober, NULL);
    }
    for (int r = 0; r < rounds && 0 == t_failures; ++r) {
        MPI_Request req[2];
        T_MPI(MPI_Psend_init(sbuf, parts, count, MPI_INT32_T, dst, r % 5, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &req[0]));
        T_MPI(MPI_Precv_init(rbuf, parts, count, MPI_INT32_T, src, r % 5, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &req[1]));
        for (int e = 1; e <= epochs; ++e) {
            int stamp = r * 8 + e;
            for (long j = 0; j < len; ++j) {
                sbuf[j] = t_value(rank, stamp, j / count, j);
                rbuf[j] = -1;
            }
            T_MPI(MPI_Startall(2, req));
            T_MPI(MPI_Pready_range(0, parts - 1, req[0]));
            T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
            for (long j = 0; j < len; ++j) {
                if (rbuf[j] != t_value(src, stamp, j / count, j)) {
                    T_CHECK(0, "round %d epoch %d elem %ld: %d", r, e, j, rbuf[j]);
                    break;
                }
            }
        }
        T_MPI(MPI_Request_free(&req[0]));
        T_MPI(MPI_Request_free(&req[1]));
    }
    stop = 1;
    for (int i = 0; i < nthreads; ++i) {
        pthread_join(thread[i], NULL);
    }
    MPI_Comm_free(&probe_comm);
    free(sbuf);
    free(rbuf);
    return t_finish("t_late_rtr");
}
