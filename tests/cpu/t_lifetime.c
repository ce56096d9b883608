/* Request and communicator lifetimes: partitioned inits freed without a
 * start, in every order against their setup records, must leave the next
 * pairs of the same (communicator, source, tag) working. Two ranks; the
 * roles swap every round.
 *   -r N  rounds (default 200)   -e N  epochs of each live pair
 *   -c    each round on a fresh MPI_Comm_dup, freed at its end (its id is
 *         reused by the next one), with a receive freed unmatched and the
 *         communicator freed before the sender's record comes
 *   -s    MPI_Startall of an active request with inactive ones: an error, and
 *         none of them started
 *   -o    a send init no receive ever matches (erroneous), then a live pair on
 *         the same communicator (whose record comes after it: the orphan is
 *         there when the receiver frees the communicator): the started
 *         orphan fails with MPI_ERR_COMM instead of waiting forever, and the
 *         next communicator (same id) pairs as usual */
#include "../tutil.h"

static int parts = 4, count = 16, epochs = 3;

/* One live pair between the two ranks on (comm, tag): `epochs` epochs,
 * data checked. */
static void live_pair(MPI_Comm comm, int sender, int tag, int round)
{
    int rank, peer;
    long len = (long) parts * count;
    int32_t *buf = malloc(sizeof(int32_t) * len);
    MPI_Request req;

    MPI_Comm_rank(comm, &rank);
    peer = 1 - rank;
    if (rank == sender) {
        T_MPI(MPI_Psend_init(buf, parts, count, MPI_INT32_T, peer, tag, comm, MPI_INFO_NULL,
                             &req));
    } else {
        T_MPI(MPI_Precv_init(buf, parts, count, MPI_INT32_T, peer, tag, comm, MPI_INFO_NULL,
                             &req));
    }
    for (int e = 1; e <= epochs; ++e) {
        int stamp = round * 16 + e;
        for (long j = 0; j < len; ++j) {
            buf[j] = (rank == sender) ? t_value(sender, stamp, j / count, j) : -1;
        }
        T_MPI(MPI_Start(&req));
        if (rank == sender) {
            for (int p = parts - 1; p >= 0; --p) {
                T_MPI(MPI_Pready(p, req));
            }
        }
        T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (rank != sender) {
            for (long j = 0; j < len; ++j) {
                if (buf[j] != t_value(sender, stamp, j / count, j)) {
                    T_CHECK(0, "round %d tag %d epoch %d elem %ld: %d", round, tag, e, j, buf[j]);
                    break;
                }
            }
        }
    }
    T_MPI(MPI_Request_free(&req));
    free(buf);
}

/* An init freed at once, never started. */
static void dead_init(MPI_Comm comm, int send, int tag)
{
    int32_t buf[64];
    int rank;
    MPI_Request req;

    MPI_Comm_rank(comm, &rank);
    if (send) {
        T_MPI(MPI_Psend_init(buf, parts, count, MPI_INT32_T, 1 - rank, tag, comm,
                             MPI_INFO_NULL, &req));
    } else {
        T_MPI(MPI_Precv_init(buf, parts, count, MPI_INT32_T, 1 - rank, tag, comm,
                             MPI_INFO_NULL, &req));
    }
    T_MPI(MPI_Request_free(&req));
}

/* A pair freed without a start, `scenario` deciding the order of the two
 * frees against the sender's setup record. */
static void dead_pair(MPI_Comm comm, MPI_Comm sync, int sender, int tag, int scenario)
{
    int rank;

    MPI_Comm_rank(comm, &rank);
    switch (scenario) {
    case 0: /* the receive freed before the record is even sent */
        if (rank != sender) dead_init(comm, 0, tag);
        MPI_Barrier(sync);
        if (rank == sender) dead_init(comm, 1, tag);
        break;
    case 1: /* the sender freed first, the receive comes after */
        if (rank == sender) dead_init(comm, 1, tag);
        MPI_Barrier(sync);
        if (rank != sender) dead_init(comm, 0, tag);
        break;
    case 2: /* the record arrived (most likely) before the receive */
        if (rank == sender) dead_init(comm, 1, tag);
        MPI_Barrier(sync);
        if (rank != sender) {
            int flag;
            for (int i = 0; i < 50; ++i) { /* progress: the record comes in */
                MPI_Iprobe(MPI_ANY_SOURCE, 12345, sync, &flag, MPI_STATUS_IGNORE);
            }
            dead_init(comm, 0, tag);
        }
        break;
    default: /* both at once */
        dead_init(comm, rank == sender, tag);
        break;
    }
}

/* The three buffers of startall_active for epoch e: sent values, or -1. */
static void t_fill3(int32_t bufs[3][64], int rank, int round, int e)
{
    for (int k = 0; k < 3; ++k) {
        for (int j = 0; j < parts * count; ++j) {
            bufs[k][j] = (0 == rank) ? t_value(k, round * 4 + e, j / count, j) : -1;
        }
    }
}

/* MPI_Startall with an active request among inactive ones: MPI_ERR_REQUEST
 * and none of the inactive ones started; all still work afterwards. */
static void startall_active(int round)
{
    int rank;
    MPI_Request reqs[3];
    int32_t bufs[3][64];

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int k = 0; k < 3; ++k) {
        if (0 == rank) {
            T_MPI(MPI_Psend_init(bufs[k], parts, count, MPI_INT32_T, 1, 40 + k, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &reqs[k]));
        } else {
            T_MPI(MPI_Precv_init(bufs[k], parts, count, MPI_INT32_T, 0, 40 + k, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &reqs[k]));
        }
    }
    t_fill3(bufs, rank, round, 1);
    T_MPI(MPI_Start(&reqs[1]));
    int rc = MPI_Startall(3, reqs);
    T_CHECK(MPI_SUCCESS != rc, "round %d: MPI_Startall with an active request succeeded", round);
    MPI_Request pair[2] = {reqs[0], reqs[2]};
    int flag = 1;
    T_MPI(MPI_Testall(2, pair, &flag, MPI_STATUSES_IGNORE)); /* inactive: complete at once */
    T_CHECK(flag, "round %d: requests of a failed MPI_Startall were started", round);
    for (int e = 1; e <= 2; ++e) {
        if (e == 2) { /* request 1 runs its first epoch from before */
            t_fill3(bufs, rank, round, e);
            T_MPI(MPI_Start(&reqs[1]));
        }
        T_MPI(MPI_Start(&reqs[0]));
        T_MPI(MPI_Start(&reqs[2]));
        if (0 == rank) {
            for (int k = 0; k < 3; ++k) {
                T_MPI(MPI_Pready_range(0, parts - 1, reqs[k]));
            }
        }
        T_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
        for (int k = 0; 0 != rank && k < 3; ++k) {
            for (int j = 0; j < parts * count; ++j) {
                if (bufs[k][j] != t_value(k, round * 4 + e, j / count, j)) {
                    T_CHECK(0, "round %d request %d epoch %d elem %d: %d", round, k, e, j,
                            bufs[k][j]);
                    break;
                }
            }
        }
    }
    for (int k = 0; k < 3; ++k) {
        T_MPI(MPI_Request_free(&reqs[k]));
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* -o: rank 0's send on a communicator rank 1 frees without a receive. */
static void orphan_send(int round)
{
    int rank, flag = 0, rc = MPI_SUCCESS, cls;
    int32_t buf[64];
    MPI_Comm c;
    MPI_Request req;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    if (0 == rank) {
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        T_MPI(MPI_Psend_init(buf, parts, count, MPI_INT32_T, 1, 5, c, MPI_INFO_NULL, &req));
    }
    live_pair(c, 0, 6, round);
    if (0 == rank) {
        for (int j = 0; j < parts * count; ++j) buf[j] = j;
        T_MPI(MPI_Start(&req));
        T_MPI(MPI_Pready_range(0, parts - 1, req));
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < 60) {
            rc = MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        }
        if (!flag) {
            fprintf(stderr, "round %d: a send no receive can match still waits\n", round);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_Error_class(rc, &cls);
        T_CHECK(MPI_ERR_COMM == cls, "round %d: unmatched send ended with class %d", round, cls);
        if (MPI_REQUEST_NULL != req) { /* Open MPI 5.0.7's error path may free it */
            T_MPI(MPI_Request_free(&req));
        }
    }
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    int rounds = 200, comms = 0, startall = 0, orphan = 0, opt, rank, size;

    while ((opt = getopt(argc, argv, "r:e:cso")) != -1) {
        switch (opt) {
        case 'r': rounds = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        case 'c': comms = 1; break;
        case 's': startall = 1; break;
        case 'o': orphan = 1; break;
        default: return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (2 != size) {
        if (0 == rank) fprintf(stderr, "t_lifetime runs on 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm sync;
    MPI_Comm_dup(MPI_COMM_WORLD, &sync);

    for (int r = 0; r < rounds; ++r) {
        int sender = r & 1, tag = r % 3;
        if (startall) {
            startall_active(r);
            continue;
        }
        if (orphan) {
            MPI_Comm c;
            orphan_send(r);
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
            live_pair(c, 0, 5, r);
            MPI_Comm_free(&c);
            continue;
        }
        if (comms) {
            MPI_Comm c;
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
            /* a receive freed unmatched, its communicator freed before the
             * record comes; then more such pairs and a live one on the next
             * communicator, which most likely gets the same id */
            if (rank != sender) {
                dead_init(c, 0, tag);
                MPI_Comm_free(&c);
            }
            MPI_Barrier(sync);
            if (rank == sender) {
                dead_init(c, 1, tag);
                MPI_Comm_free(&c);
            }
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
            dead_pair(c, sync, sender, tag, r % 4);
            live_pair(c, sender, tag, r);
            live_pair(c, 1 - sender, tag, r);
            MPI_Comm_free(&c);
            continue;
        }
        /* one to three pairs freed unstarted, in scenario r % 4, then a
         * live pair created behind another freed pair (in order: the freed
         * one's record must go to the freed receive, not the live one) */
        for (int k = 0; k <= r % 3; ++k) {
            dead_pair(MPI_COMM_WORLD, sync, sender, tag, (r + k) % 4);
        }
        live_pair(MPI_COMM_WORLD, sender, tag, r);
        if (rank != sender) {
            int32_t buf[64];
            MPI_Request dead, live;
            long len = (long) parts * count;
            T_MPI(MPI_Precv_init(buf, parts, count, MPI_INT32_T, 1 - rank, tag, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &dead));
            T_MPI(MPI_Precv_init(buf, parts, count, MPI_INT32_T, 1 - rank, tag, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &live));
            T_MPI(MPI_Request_free(&dead));
            MPI_Barrier(sync);
            for (long j = 0; j < len; ++j) buf[j] = -1;
            T_MPI(MPI_Start(&live));
            T_MPI(MPI_Wait(&live, MPI_STATUS_IGNORE));
            for (long j = 0; j < len; ++j) {
                if (buf[j] != t_value(sender, -r, j / count, j)) {
                    T_CHECK(0, "round %d: receive behind a freed one, elem %ld: %d", r, j, buf[j]);
                    break;
                }
            }
            T_MPI(MPI_Request_free(&live));
        } else {
            int32_t buf[64];
            MPI_Request dead, live;
            long len = (long) parts * count;
            MPI_Barrier(sync);
            T_MPI(MPI_Psend_init(buf, parts, count, MPI_INT32_T, 1 - rank, tag, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &dead));
            T_MPI(MPI_Psend_init(buf, parts, count, MPI_INT32_T, 1 - rank, tag, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &live));
            T_MPI(MPI_Request_free(&dead));
            for (long j = 0; j < len; ++j) buf[j] = t_value(sender, -r, j / count, j);
            T_MPI(MPI_Start(&live));
            T_MPI(MPI_Pready_range(0, parts - 1, live));
            T_MPI(MPI_Wait(&live, MPI_STATUS_IGNORE));
            T_MPI(MPI_Request_free(&live));
        }
    }
    MPI_Comm_free(&sync);
    return t_finish("t_lifetime");
}
