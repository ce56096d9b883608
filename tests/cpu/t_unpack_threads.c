/* MPI_THREAD_MULTIPLE, non-contiguous receive: T threads poll MPI_Parrived
 * on the SAME partitions of a receive whose datatype has gaps (it lands
 * packed and is unpacked once per epoch by whichever thread sees it first).
 * A partition may be reported only after its unpack has finished: every
 * thread checks the data (and the untouched gaps) the moment it sees the
 * flag, and the main thread checks everything after MPI_Wait.
 * Rank 0 sends (contiguous ints, the same type signature), rank 1 receives;
 * -p PARTS -c ELEMENTS per partition -e EPOCHS -t THREADS. */
#include "../tutil.h"
#include <pthread.h>

static int parts = 16, count = 512, epochs = 200, nthreads = 4;
static int32_t *rbuf;
static MPI_Request rreq;
static int epoch;
static pthread_barrier_t bar;

/* receive element k of partition p: int at 2 * (p * count + k), gap after */
static int check_part(int p, const char *who)
{
    for (int k = 0; k < count; ++k) {
        long i = (long) p * count + k;
        int32_t want = t_value(0, epoch, p, i);
        if (rbuf[2 * i] != want || rbuf[2 * i + 1] != -7) {
            T_CHECK(0, "%s: epoch %d part %d elem %d: %d (gap %d), expected %d", who, epoch,
                    p, k, rbuf[2 * i], rbuf[2 * i + 1], want);
            return 1;
        }
    }
    return 0;
}

static void *poller(void *arg)
{
    long t = (long) arg;
    unsigned seed = (unsigned) (t * 7919 + 1);
    int order[1024], seen = 0, bad = 0;

    for (int p = 0; p < parts; ++p) order[p] = p;
    for (;;) {
        pthread_barrier_wait(&bar); /* epoch started */
        if (epoch > epochs) break;
        t_shuffle(order, parts, &seed);
        seen = 0;
        char done[1024] = {0};
        while (seen < parts) {
            for (int j = 0; j < parts; ++j) {
                int p = order[j], flag = 0;
                if (done[p]) continue;
                T_MPI(MPI_Parrived(rreq, p, &flag));
                if (flag) {
                    done[p] = 1;
                    ++seen;
                    if (bad < 5) bad += check_part(p, "poller");
                }
            }
        }
        pthread_barrier_wait(&bar); /* every poller saw every partition */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size, opt;
    MPI_Datatype pair;
    MPI_Request sreq;

    while ((opt = getopt(argc, argv, "p:c:e:t:")) != -1) {
        switch (opt) {
        case 'p': parts = atoi(optarg); break;
        case 'c': count = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        case 't': nthreads = atoi(optarg); break;
        default: return 2;
        }
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parts > 1024 || size < 2) MPI_Abort(MPI_COMM_WORLD, 2);

    if (0 == rank) {
        int32_t *sbuf = malloc(sizeof(int32_t) * parts * count);
        int order[1024];
        unsigned seed = 12345;
        for (int p = 0; p < parts; ++p) order[p] = p;
        T_MPI(MPI_Psend_init(sbuf, parts, count, MPI_INT32_T, 1, 5, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &sreq));
        for (epoch = 1; epoch <= epochs; ++epoch) {
            T_MPI(MPI_Start(&sreq));
            t_shuffle(order, parts, &seed);
            for (int j = 0; j < parts; ++j) {
                int p = order[j];
                for (int k = 0; k < count; ++k) {
                    sbuf[(long) p * count + k] = t_value(0, epoch, p, (long) p * count + k);
                }
                T_MPI(MPI_Pready(p, sreq));
            }
            T_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        }
        T_MPI(MPI_Request_free(&sreq));
        free(sbuf);
    } else if (1 == rank) {
        pthread_t th[64];
        /* one int followed by a gap of one int: never contiguous */
        MPI_Datatype vec;
        MPI_Type_vector(1, 1, 2, MPI_INT32_T, &vec);
        MPI_Type_create_resized(vec, 0, 2 * sizeof(int32_t), &pair);
        MPI_Type_commit(&pair);
        MPI_Type_free(&vec);
        rbuf = malloc(sizeof(int32_t) * 2 * parts * count);
        for (long i = 0; i < 2L * parts * count; ++i) rbuf[i] = -7;
        T_MPI(MPI_Precv_init(rbuf, parts, count, pair, 0, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &rreq));
        pthread_barrier_init(&bar, NULL, nthreads + 1);
        for (long t = 0; t < nthreads; ++t) pthread_create(&th[t], NULL, poller, (void *) t);
        for (epoch = 1; epoch <= epochs; ++epoch) {
            T_MPI(MPI_Start(&rreq));
            pthread_barrier_wait(&bar);
            pthread_barrier_wait(&bar);
            T_MPI(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
            for (int p = 0; p < parts; ++p) {
                if (check_part(p, "after MPI_Wait")) break;
            }
        }
        pthread_barrier_wait(&bar); /* epoch > epochs: pollers leave */
        for (int t = 0; t < nthreads; ++t) pthread_join(th[t], NULL);
        T_MPI(MPI_Request_free(&rreq));
        MPI_Type_free(&pair);
        free(rbuf);
    }
    return t_finish("t_unpack_threads");
}
