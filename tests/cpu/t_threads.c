/* MPI_THREAD_MULTIPLE: T threads each make their share of the partitions
 * ready, while T threads on the receiving side poll MPI_Parrived for theirs
 * and check the data as it arrives. */
#include "../tutil.h"
#include <pthread.h>
#include <unistd.h>

#define T 4
static int parts = 64, count = 16, rank, src;
static int32_t *sbuf, *rbuf;
static MPI_Request sreq, rreq;
static int epoch;
static pthread_barrier_t bar;

static void *sender(void *arg)
{
    long t = (long) arg;
    for (int p = (int) t; p < parts; p += T) {
        for (int i = 0; i < count; ++i) {
            sbuf[p * count + i] = t_value(rank, epoch, p, p * count + i);
        }
        T_MPI(MPI_Pready(p, sreq));
    }
    return NULL;
}

static void *receiver(void *arg)
{
    long t = (long) arg;
    for (int p = (int) t; p < parts; p += T) {
        int flag = 0;
        while (!flag) {
            T_MPI(MPI_Parrived(rreq, p, &flag));
        }
        for (int i = 0; i < count; ++i) {
            int32_t want = t_value(src, epoch, p, p * count + i);
            if (rbuf[p * count + i] != want) {
                T_CHECK(0, "epoch %d part %d elem %d: %d != %d", epoch, p, i,
                        rbuf[p * count + i], want);
                break;
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size, epochs = 50;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dst = (rank + 1) % size;
    src = (rank - 1 + size) % size;
    sbuf = calloc(parts * count, sizeof(int32_t));
    rbuf = calloc(parts * count, sizeof(int32_t));
    pthread_barrier_init(&bar, NULL, 2 * T);
    T_MPI(MPI_Psend_init(sbuf, parts, count, MPI_INT32_T, dst, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    T_MPI(MPI_Precv_init(rbuf, parts, count, MPI_INT32_T, src, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    for (epoch = 1; epoch <= epochs; ++epoch) {
        pthread_t th[2 * T];
        T_MPI(MPI_Start(&rreq));
        T_MPI(MPI_Start(&sreq));
        for (long t = 0; t < T; ++t) {
            pthread_create(&th[t], NULL, sender, (void *) t);
            pthread_create(&th[T + t], NULL, receiver, (void *) t);
        }
        for (int t = 0; t < 2 * T; ++t) {
            pthread_join(th[t], NULL);
        }
        T_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        T_MPI(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    }
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
    free(sbuf); free(rbuf);
    return t_finish("t_threads");
}
