/* Back-to-back request pairs on one tag, each freed before the next is
 * made: the control words a freed request gave its peer (the sender's
 * ready-to-receive word, the receiver's arrival flags) and the calloc'd
 * buffers come back to the next pair at the same addresses. Nothing the
 * peer wrote for an earlier pair may count for a later one.
 *
 * Each round, two ranks: an empty pair (zero partitions, or zero-count
 * partitions: a send that moves nothing and need not wait for data), then a
 * pair with data checked every epoch. The receiver lags twice: before its
 * empty pair (so that the sender has freed that pair's send and made the
 * next one when the receiver's ready-to-receive of the empty epochs comes)
 * and, progressing, between its data init and its first MPI_Start (so that
 * a sender that took an old ready-to-receive for its own would run its
 * epochs ahead: the receiver would then find a later epoch's data, or with
 * the am transfer never get its own).
 *   -r N  rounds (default 40)   -e N  epochs of each data pair (3)
 *   -z N  epochs of each empty pair (5)   -p N  partitions (3)
 *   -c N  ints a partition (5)   -l US  the receiver's lags (2000)
 *   -s    swap the roles every round
 *   -x    an erroneous receiver, data pairs only: each receive is started
 *         once more than its send after the send was freed and the next
 *         pair's send made (a barrier between), and is left active; its
 *         ready-to-receive of that epoch must not count for the next pair,
 *         whose receiver lags before its first start as above
 *   -X    an erroneous sender, data pairs only: each send is started once
 *         more than its receive after the receive was freed (a barrier
 *         between): that epoch must fail with MPI_ERR_REQUEST, not wait */
#include "../tutil.h"
#include <time.h>

static int rounds = 40, epochs = 3, empty_epochs = 5, parts = 3, count = 5, lag_us = 2000;
static int swap = 0, extra = 0, extra_send = 0;

static double t_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* us microseconds of progress (setup records and answers go through),
 * without starting anything. */
static void progress_for(int us)
{
    double end = t_now() + 1e-6 * us;
    int flag;

    while (t_now() < end) {
        MPI_Iprobe(MPI_ANY_SOURCE, 32000, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
}

static void init_pair(int sending, int32_t *buf, int np, int nc, int peer, int tag,
                      MPI_Request *req)
{
    if (sending) {
        T_MPI(MPI_Psend_init(buf, np, nc, MPI_INT32_T, peer, tag, MPI_COMM_WORLD,
                             MPI_INFO_NULL, req));
    } else {
        T_MPI(MPI_Precv_init(buf, np, nc, MPI_INT32_T, peer, tag, MPI_COMM_WORLD,
                             MPI_INFO_NULL, req));
    }
}

/* Zero partitions (kind 0), zero partitions of count ints (1), or
 * partitions of zero ints (2): nothing moves. */
static void empty_pair(int sending, int peer, int tag, int kind)
{
    int32_t buf[4] = {0};
    int np = (2 == kind) ? parts : 0, nc = (1 == kind) ? count : 0, n;
    MPI_Request req;
    MPI_Status st;

    if (!sending) {
        usleep(lag_us);
    }
    init_pair(sending, buf, np, nc, peer, tag, &req);
    for (int e = 1; e <= empty_epochs; ++e) {
        T_MPI(MPI_Start(&req));
        for (int p = 0; sending && p < np; ++p) {
            T_MPI(MPI_Pready(p, req));
        }
        T_MPI(MPI_Wait(&req, &st));
        if (!sending) {
            T_MPI(MPI_Get_count(&st, MPI_INT32_T, &n));
            T_CHECK(0 == n, "empty message: count %d", n);
        }
    }
    T_MPI(MPI_Request_free(&req));
}

static MPI_Request *left_active; /* -x: the receives started once too often */

static void data_pair(int sending, int sender, int peer, int tag, int round)
{
    long len = (long) parts * count;
    int32_t *buf = calloc(len + 1, sizeof(int32_t));
    MPI_Request req;

    init_pair(sending, buf, parts, count, peer, tag, &req);
    if (extra && round > 0 && !sending) {
        /* the last pair's receive, started once more than its send, once
         * this pair's send (made after that one was freed) has its word */
        progress_for(lag_us / 2);
        T_MPI(MPI_Start(&left_active[round - 1]));
    }
    if (!sending) {
        progress_for(extra ? lag_us / 2 : lag_us);
    }
    for (int e = 1; e <= epochs; ++e) {
        long stamp = (long) round * 64 + e;

        T_MPI(MPI_Start(&req));
        if (sending) {
            for (int p = parts - 1; p >= 0; --p) {
                for (int i = 0; i < count; ++i) {
                    buf[p * count + i] = t_value(sender, stamp, p, (long) p * count + i);
                }
                T_MPI(MPI_Pready(p, req));
            }
        }
        T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (long k = 0; !sending && k < len; ++k) {
            int32_t want = t_value(sender, stamp, k / count, k);
            if (buf[k] != want) {
                T_CHECK(0, "round %d epoch %d element %ld: %d, expected %d", round, e, k,
                        buf[k], want);
                break;
            }
        }
    }
    if (extra_send) {
        if (!sending) {
            T_MPI(MPI_Request_free(&req));
        }
        MPI_Barrier(MPI_COMM_WORLD); /* the receive is freed */
        if (sending) {
            /* its word of that is on the way: a send one epoch ahead of its
             * receiver (small epochs over tcp) would otherwise send the
             * epoch, which the receiver drops, and complete it */
            progress_for(lag_us);
            T_MPI(MPI_Start(&req));
            for (int p = 0; p < parts; ++p) {
                T_MPI(MPI_Pready(p, req));
            }
            T_EXPECT(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
            /* Open MPI frees a request whose completion failed */
            if (MPI_REQUEST_NULL != req) {
                T_MPI(MPI_Request_free(&req));
            }
        }
        free(buf);
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    if (extra && !sending) {
        left_active[round] = req; /* its buffer stays too */
        MPI_Barrier(MPI_COMM_WORLD); /* its send is freed */
        return;
    }
    T_MPI(MPI_Request_free(&req));
    free(buf);
    if (extra) {
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int opt, rank, size;

    while ((opt = getopt(argc, argv, "r:e:z:p:c:l:sxX")) != -1) {
        switch (opt) {
        case 'r': rounds = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        case 'z': empty_epochs = atoi(optarg); break;
        case 'p': parts = atoi(optarg); break;
        case 'c': count = atoi(optarg); break;
        case 'l': lag_us = atoi(optarg); break;
        case 's': swap = 1; break;
        case 'x': extra = 1; break;
        case 'X': extra_send = 1; break;
        default: return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    left_active = calloc(rounds, sizeof(*left_active));
    if (rank < 2 && size >= 2) {
        for (int r = 0; r < rounds; ++r) {
            int sender = swap ? r % 2 : 0;

            if (!extra && !extra_send) {
                empty_pair(rank == sender, 1 - rank, 7, r % 3);
            }
            data_pair(rank == sender, sender, 1 - rank, 7, r);
        }
        if (!extra) {
            /* every pair freed: once the receives' last messages are in,
             * no word is held and no cookie is left over */
            MPI_Barrier(MPI_COMM_WORLD);
            progress_for(lag_us);
            char *text = t_dump_text();
            t_dump_expect(text, "freed sends: 0 held");
            t_dump_expect(text, "; 0 live sends whose receive was freed");
            free(text);
        }
    }
    return t_finish("t_reuse");
}
