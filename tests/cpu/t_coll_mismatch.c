/* Partitioned collectives whose arguments differ across ranks, or are
 * invalid on some: every rank must get an error from the init (the same
 * class where the arguments are valid but differ: MPI_ERR_ARG), nothing may
 * hang, and a collective after it must work. Differences the standard
 * allows (the same type signature in other datatypes, other transport
 * groupings) must give the right result; so must zero partitions and zero
 * counts, and a non-root reduce whose ignored receive buffer is
 * MPI_IN_PLACE or NULL.
 *   -m CASE  one case (default: all): parts op userop count root kind type
 *            alg local inplace reduce legal group zero overflow threads
 *   -e EPOCHS of the collectives that must work
 * threads (MPI_THREAD_MULTIPLE): threads that initialize collectives at
 * the same time, each on its own communicator (the init's agreement is a
 * collective on it), mismatched ones too. */
#include "../tutil.h"
#include <limits.h>
#include <mpix_part.h>
#include <pthread.h>

enum { C_ALLREDUCE, C_REDUCE, C_BCAST, C_ALLGATHER, C_ALLTOALL, C_N };
static const char *const kind_name[C_N] = {"allreduce", "reduce", "bcast", "allgather",
                                            "alltoall"};
static int rank, size, epochs = 4;
/* the communicator of this thread's collectives (threads: its own) */
static __thread MPI_Comm tcomm;
#define COMM (tcomm ? tcomm : MPI_COMM_WORLD)

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void) type;
    for (int i = 0; i < *len; ++i) ((int *) inout)[i] += ((int *) in)[i];
}

/* One init of any kind; buffers as given. */
static int init(int kind, const void *sbuf, void *rbuf, int parts, int count, MPI_Datatype type,
                MPI_Op op, int root, MPI_Info info, MPI_Request *req)
{
    switch (kind) {
    case C_ALLREDUCE:
        return MPIX_Pallreduce_init(sbuf, rbuf, parts, count, type, op, COMM, info, req);
    case C_REDUCE:
        return MPIX_Preduce_init(sbuf, rbuf, parts, count, type, op, root, COMM, info,
                                 req);
    case C_BCAST:
        return MPIX_Pbcast_init(rbuf, parts, count, type, root, COMM, info, req);
    case C_ALLGATHER:
        return MPIX_Pallgather_init(sbuf, rbuf, parts, count, type, COMM, info, req);
    default:
        return MPIX_Palltoall_init(sbuf, rbuf, parts, count, type, COMM, info, req);
    }
}

/* The init failed on this rank with class `want` (0: any error); every
 * rank's class is the same where `same`. */
static void expect_error(const char *what, int rc, int want, int same, MPI_Request *req)
{
    int c = t_class(rc), lo, hi;
    T_CHECK(MPI_SUCCESS != c, "%s: the init succeeded", what);
    T_CHECK(0 == want || want == c, "%s: class %d, not %d", what, c, want);
    if (MPI_SUCCESS == c) MPI_Request_free(req);
    MPI_Allreduce(&c, &lo, 1, MPI_INT, MPI_MIN, COMM);
    MPI_Allreduce(&c, &hi, 1, MPI_INT, MPI_MAX, COMM);
    T_CHECK(!same || lo == hi, "%s: ranks got classes %d to %d", what, lo, hi);
}

/* Every rank's contribution: ints of partition p, epoch e. */
static int value(int src, int e, long idx) { return (t_value(src, e, 0, idx) & 0xffff) - 30000; }

/* Run `epochs` epochs of a collective that must work and check every int
 * of the result against the ordinary collective. This rank's type is
 * `ipe` ints an element; `ints` per partition (the same on every rank). */
static void run(const char *what, int kind, int parts, int count, MPI_Datatype type, int ipe,
                MPI_Op op, int root, MPI_Info info, int send_in_place, void *nonroot_recv)
{
    long n = (long) parts * count * ipe; /* ints of a contribution */
    long rn = (C_ALLGATHER == kind || C_ALLTOALL == kind) ? n * size : n;
    long sn = (C_ALLTOALL == kind) ? n * size : n;
    int *sbuf = calloc(sn + 1, sizeof(int)), *rbuf = calloc(rn + 1, sizeof(int));
    int *ref = calloc(rn + 1, sizeof(int)), *mine = calloc(sn + 1, sizeof(int));
    void *r = rbuf;
    MPI_Request req;
    int rc;

    if (C_REDUCE == kind && rank != root) r = nonroot_recv;
    rc = init(kind, send_in_place ? MPI_IN_PLACE : sbuf, r, parts, count, type, op, root, info,
              &req);
    T_CHECK(MPI_SUCCESS == rc, "%s: init gave class %d", what, t_class(rc));
    if (MPI_SUCCESS != rc) goto out;
    for (int e = 1; e <= epochs; ++e) {
        for (long j = 0; j < sn; ++j) mine[j] = value(rank, e, j);
        for (long j = 0; j < rn; ++j) rbuf[j] = -7777;
        if (C_BCAST == kind || send_in_place) memcpy(rbuf, mine, n * sizeof(int));
        else memcpy(sbuf, mine, sn * sizeof(int));
        switch (kind) {
        case C_ALLREDUCE:
            MPI_Allreduce(mine, ref, (int) n, MPI_INT, MPI_SUM, COMM);
            break;
        case C_REDUCE:
            MPI_Reduce(mine, ref, (int) n, MPI_INT, MPI_SUM, root, COMM);
            break;
        case C_BCAST:
            memcpy(ref, mine, n * sizeof(int));
            MPI_Bcast(ref, (int) n, MPI_INT, root, COMM);
            if (rank != root) memset(rbuf, 0x5a, n * sizeof(int));
            break;
        case C_ALLGATHER:
            MPI_Allgather(mine, (int) n, MPI_INT, ref, (int) n, MPI_INT, COMM);
            break;
        default:
            MPI_Alltoall(mine, (int) n, MPI_INT, ref, (int) n, MPI_INT, COMM);
        }
        T_MPI(MPI_Start(&req));
        if (0 == e % 2) T_MPI(MPIX_Pbuf_prepare(&req)); /* every channel set up (or none) */
        if (parts > 0 && (C_BCAST != kind || rank == root)) {
            T_MPI(MPI_Pready_range(0, parts - 1, req));
        }
        for (int p = 0; p < parts && (C_REDUCE != kind || rank == root); ++p) {
            for (int flag = 0; !flag;) T_MPI(MPI_Parrived(req, p, &flag));
        }
        T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (C_REDUCE != kind || rank == root) {
            for (long j = 0; j < rn; ++j) {
                if (rbuf[j] != ref[j]) {
                    T_CHECK(0, "%s: epoch %d int %ld is %d, not %d", what, e, j, rbuf[j], ref[j]);
                    break;
                }
            }
        }
    }
    T_MPI(MPI_Request_free(&req));
out:
    free(sbuf);
    free(rbuf);
    free(ref);
    free(mine);
}

/* After every failed init: a collective on the same communicator works
 * (no channel or setup record of the failed one is left to match). */
static void after(const char *what)
{
    char name[128];
    snprintf(name, sizeof(name), "allreduce after %s", what);
    run(name, C_ALLREDUCE, 4, 8, MPI_INT, 1, MPI_SUM, 0, MPI_INFO_NULL, 0, NULL);
}

static int want(const char *m, const char *c) { return NULL == m || !strcmp(m, c); }

static MPI_Comm thread_comm[2];

static void *thread_main(void *arg)
{
    static int sbuf[64], rbuf[64];
    MPI_Request req;
    char what[64];
    int k = (int) (long) arg;

    tcomm = thread_comm[k];
    for (int i = 0; i < 20; ++i) {
        snprintf(what, sizeof(what), "thread %d: round %d", k, i);
        run(what, i % C_N, 2, 3, MPI_INT, 1, MPI_SUM, i % size, MPI_INFO_NULL, 0, NULL);
        if (size > 1) { /* another count on rank 0; buffers of this thread */
            int rc = init(C_ALLREDUCE, sbuf + 32 * k, rbuf + 32 * k, 2, 0 == rank ? 4 : 3,
                          MPI_INT, MPI_SUM, 0, MPI_INFO_NULL, &req);
            expect_error(what, rc, MPI_ERR_ARG, 1, &req);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    int opt, last, P = 8, N = 64;
    while ((opt = getopt(argc, argv, "m:e:")) != -1) {
        switch (opt) {
        case 'm': only = optarg; break;
        case 'e': epochs = atoi(optarg); break;
        default: return 2;
        }
    }
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    last = size - 1;
    size_t big = (size_t) 2 * P * N * size + 16;
    int *sbuf = calloc(big, sizeof(int)), *rbuf = calloc(big, sizeof(int));
    MPI_Request req = MPI_REQUEST_NULL;
    char what[128];

    if (want(only, "parts")) {
        /* the same bytes in twice the partitions on rank 0 */
        int rc = init(C_ALLREDUCE, sbuf, rbuf, 0 == rank ? 2 * P : P, 0 == rank ? N / 2 : N,
                      MPI_INT, MPI_SUM, 0, MPI_INFO_NULL, &req);
        expect_error("partitions x2, count / 2 on rank 0", rc, MPI_ERR_ARG, 1, &req);
        after("partitions");
    }
    if (want(only, "op")) {
        int rc = init(C_ALLREDUCE, sbuf, rbuf, P, N, MPI_INT, 0 == rank ? MPI_MAX : MPI_SUM, 0,
                      MPI_INFO_NULL, &req);
        expect_error("MPI_MAX on rank 0, MPI_SUM elsewhere", rc, MPI_ERR_ARG, 1, &req);
        rc = init(C_REDUCE, sbuf, rbuf, P, N, MPI_INT, last == rank ? MPI_PROD : MPI_SUM, 0,
                  MPI_INFO_NULL, &req);
        expect_error("reduce: MPI_PROD on the last rank", rc, MPI_ERR_ARG, 1, &req);
        after("op");
    }
    if (want(only, "userop")) {
        MPI_Op user;
        MPI_Op_create(user_sum, 1, &user);
        int rc = init(C_ALLREDUCE, sbuf, rbuf, P, N, MPI_INT, 0 == rank ? user : MPI_SUM, 0,
                      MPI_INFO_NULL, &req);
        expect_error("a user op on rank 0, MPI_SUM elsewhere", rc, MPI_ERR_ARG, 1, &req);
        /* user ops everywhere: legal (each rank's own handle) */
        run("user op everywhere", C_ALLREDUCE, P, N, MPI_INT, 1, user, 0, MPI_INFO_NULL, 0, NULL);
        MPI_Op_free(&user);
        after("userop");
    }
    if (want(only, "count")) {
        for (int k = 0; k < C_N; ++k) {
            int rc = init(k, sbuf, rbuf, P, last == rank ? N + 1 : N, MPI_INT, MPI_SUM, 0,
                          MPI_INFO_NULL, &req);
            snprintf(what, sizeof(what), "%s: count + 1 on the last rank", kind_name[k]);
            expect_error(what, rc, MPI_ERR_ARG, 1, &req);
        }
        int rc = init(C_BCAST, sbuf, rbuf, P, last == rank ? 0 : N, MPI_INT, MPI_SUM, 0,
                      MPI_INFO_NULL, &req);
        expect_error("bcast: count 0 on the last rank", rc, MPI_ERR_ARG, 1, &req);
        after("count");
    }
    if (want(only, "root") && size > 1) {
        int rc = init(C_BCAST, sbuf, rbuf, P, N, MPI_INT, MPI_SUM, 0 == rank ? 0 : 1,
                      MPI_INFO_NULL, &req);
        expect_error("bcast: root 0 on rank 0, 1 elsewhere", rc, MPI_ERR_ARG, 1, &req);
        rc = init(C_REDUCE, sbuf, rbuf, P, N, MPI_INT, MPI_SUM, last == rank ? 0 : last,
                  MPI_INFO_NULL, &req);
        expect_error("reduce: root differs on the last rank", rc, MPI_ERR_ARG, 1, &req);
        after("root");
    }
    if (want(only, "kind")) {
        int rc = init(0 == rank ? C_BCAST : C_ALLREDUCE, sbuf, rbuf, P, N, MPI_INT, MPI_SUM, 0,
                      MPI_INFO_NULL, &req);
        expect_error("bcast on rank 0, allreduce elsewhere", rc, MPI_ERR_ARG, 1, &req);
        rc = init(last == rank ? C_ALLGATHER : C_ALLTOALL, sbuf, rbuf, P, N, MPI_INT, MPI_SUM, 0,
                  MPI_INFO_NULL, &req);
        expect_error("allgather on the last rank, alltoall elsewhere", rc, MPI_ERR_ARG, 1, &req);
        after("kind");
    }
    if (want(only, "type")) {
        /* same size, another basic type */
        int rc = init(C_ALLREDUCE, sbuf, rbuf, P, N, 0 == rank ? MPI_FLOAT : MPI_INT, MPI_SUM, 0,
                      MPI_INFO_NULL, &req);
        expect_error("MPI_FLOAT on rank 0, MPI_INT elsewhere", rc, MPI_ERR_ARG, 1, &req);
        rc = init(C_BCAST, sbuf, rbuf, P, N, 0 == rank ? MPI_FLOAT : MPI_INT, MPI_SUM, 0,
                  MPI_INFO_NULL, &req);
        expect_error("bcast: MPI_FLOAT on rank 0, MPI_INT elsewhere", rc, MPI_ERR_ARG, 1, &req);
        after("type");
    }
    if (want(only, "alg")) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpix_allreduce_algorithm", 0 == rank ? "ring" : "recursive_doubling");
        int rc = init(C_ALLREDUCE, sbuf, rbuf, P, N, MPI_INT, MPI_SUM, 0, info, &req);
        expect_error("ring on rank 0, recursive doubling elsewhere", rc, MPI_ERR_ARG, 1, &req);
        MPI_Info_free(&info);
        after("alg");
    }
    if (want(only, "local")) {
        /* invalid on one rank only: that rank's class everywhere */
        int rc = init(C_ALLREDUCE, sbuf, rbuf, P, N, MPI_INT, last == rank ? MPI_OP_NULL : MPI_SUM,
                      0, MPI_INFO_NULL, &req);
        expect_error("MPI_OP_NULL on the last rank", rc, MPI_ERR_OP, 1, &req);
        rc = init(C_BCAST, sbuf, rbuf, P, N, MPI_INT, MPI_SUM, 0 == rank ? size : 0,
                  MPI_INFO_NULL, &req);
        expect_error("bcast: root out of range on rank 0", rc, MPI_ERR_ROOT, 1, &req);
        rc = init(C_ALLREDUCE, sbuf, rbuf, last == rank ? -1 : P, N, MPI_INT, MPI_SUM, 0,
                  MPI_INFO_NULL, &req);
        expect_error("-1 partitions on the last rank", rc, MPI_ERR_ARG, 1, &req);
        after("local");
    }
    if (want(only, "inplace")) {
        int rc = init(C_ALLREDUCE, sbuf, MPI_IN_PLACE, P, N, MPI_INT, MPI_SUM, 0, MPI_INFO_NULL,
                      &req);
        expect_error("allreduce: MPI_IN_PLACE as recvbuf", rc, MPI_ERR_BUFFER, 1, &req);
        rc = init(C_ALLREDUCE, sbuf, 0 == rank ? MPI_IN_PLACE : rbuf, P, N, MPI_INT, MPI_SUM, 0,
                  MPI_INFO_NULL, &req);
        expect_error("allreduce: MPI_IN_PLACE as recvbuf on rank 0", rc, MPI_ERR_BUFFER, 1, &req);
        for (int k = C_BCAST; k < C_N; ++k) {
            rc = init(k, sbuf, MPI_IN_PLACE, P, N, MPI_INT, MPI_SUM, 0, MPI_INFO_NULL, &req);
            snprintf(what, sizeof(what), "%s: MPI_IN_PLACE as recvbuf", kind_name[k]);
            expect_error(what, rc, MPI_ERR_BUFFER, 1, &req);
        }
        rc = init(C_REDUCE, sbuf, MPI_IN_PLACE, P, N, MPI_INT, MPI_SUM, 0, MPI_INFO_NULL, &req);
        expect_error("reduce: MPI_IN_PLACE as the root's recvbuf", rc,
                     0 == rank ? MPI_ERR_BUFFER : 0, 1, &req);
        if (size > 1) {
            rc = init(C_REDUCE, MPI_IN_PLACE, rbuf, P, N, MPI_INT, MPI_SUM, 0, MPI_INFO_NULL,
                      &req);
            expect_error("reduce: MPI_IN_PLACE as sendbuf of the non-roots", rc, MPI_ERR_BUFFER,
                         1, &req);
        }
        after("inplace");
    }
    if (want(only, "reduce")) {
        /* a non-root's receive buffer is ignored, whatever it is */
        run("reduce: MPI_IN_PLACE as a non-root's recvbuf", C_REDUCE, P, N, MPI_INT, 1, MPI_SUM,
            last, MPI_INFO_NULL, 0, MPI_IN_PLACE);
        run("reduce: NULL as a non-root's recvbuf", C_REDUCE, P, N, MPI_INT, 1, MPI_SUM, 0,
            MPI_INFO_NULL, 0, NULL);
        run("reduce in place at the root", C_REDUCE, P, N, MPI_INT, 1, MPI_SUM, 0, MPI_INFO_NULL,
            0 == rank, NULL);
    }
    if (want(only, "legal")) {
        /* the same type signature in other datatypes: MPI_INT x 2N on
         * rank 0, a contiguous type of two MPI_INTs x N elsewhere */
        MPI_Datatype two;
        MPI_Type_contiguous(2, MPI_INT, &two);
        MPI_Type_commit(&two);
        for (int k = C_BCAST; k < C_N; ++k) {
            snprintf(what, sizeof(what), "%s: MPI_INT x 2N on rank 0, 2 x MPI_INT x N elsewhere",
                     kind_name[k]);
            run(what, k, P, 0 == rank ? 2 * N : N, 0 == rank ? MPI_INT : two, 0 == rank ? 1 : 2,
                MPI_SUM, last, MPI_INFO_NULL, 0, NULL);
        }
        MPI_Type_free(&two);
    }
    if (want(only, "group")) {
        /* another transport grouping on rank 0 (legal: the ranks take the
         * smallest) */
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpix_coll_transport_bytes", 0 == rank ? "0" : "4096");
        for (int k = 0; k < C_N; ++k) {
            snprintf(what, sizeof(what), "%s: transport groups differ", kind_name[k]);
            run(what, k, 16, 4, MPI_INT, 1, MPI_SUM, last, info, 0, NULL);
        }
        MPI_Info_free(&info);
    }
    if (want(only, "zero")) {
        /* zero partitions, and zero counts: start and wait complete */
        for (int k = 0; k < C_N; ++k) {
            snprintf(what, sizeof(what), "%s: 0 partitions", kind_name[k]);
            run(what, k, 0, N, MPI_INT, 1, MPI_SUM, last, MPI_INFO_NULL, 0, NULL);
            snprintf(what, sizeof(what), "%s: count 0", kind_name[k]);
            run(what, k, P, 0, MPI_INT, 1, MPI_SUM, last, MPI_INFO_NULL, 0, NULL);
            snprintf(what, sizeof(what), "%s: 0 partitions of count 0", kind_name[k]);
            run(what, k, 0, 0, MPI_INT, 1, MPI_SUM, 0, MPI_INFO_NULL, 0, NULL);
        }
        if (size > 1) {
            int rc = init(C_ALLREDUCE, sbuf, rbuf, last == rank ? 0 : P, N, MPI_INT, MPI_SUM, 0,
                          MPI_INFO_NULL, &req);
            expect_error("0 partitions on the last rank only", rc, MPI_ERR_ARG, 1, &req);
        }
        after("zero");
    }
    if (want(only, "overflow")) {
        /* sizes past PTRDIFF_MAX bytes: partitions x count x type, and
         * allgather's and alltoall's n blocks (each block alone fits) */
        for (int k = 0; k < C_N; ++k) {
            int rc = init(k, sbuf, rbuf, INT_MAX, INT_MAX, MPI_INT, MPI_SUM, 0, MPI_INFO_NULL,
                          &req);
            snprintf(what, sizeof(what), "%s: INT_MAX partitions of INT_MAX ints", kind_name[k]);
            expect_error(what, rc, MPI_ERR_COUNT, 1, &req);
        }
        if (size > 1) {
            MPI_Datatype big; /* 4 MiB */
            MPI_Type_contiguous(1 << 20, MPI_INT, &big);
            MPI_Type_commit(&big);
            for (int k = C_ALLGATHER; k < C_N; ++k) {
                int rc = init(k, sbuf, rbuf, 1 << 20, 1 << 20, big, MPI_SUM, 0, MPI_INFO_NULL,
                              &req);
                snprintf(what, sizeof(what), "%s: n blocks of 2^62 bytes", kind_name[k]);
                expect_error(what, rc, MPI_ERR_COUNT, 1, &req);
            }
            MPI_Type_free(&big);
        }
        after("overflow");
    }
    if (want(only, "threads") && MPI_THREAD_MULTIPLE == provided) {
        pthread_t tid[2];
        for (long k = 0; k < 2; ++k) {
            MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm[k]); /* MPI_ERRORS_RETURN too */
        }
        for (long k = 0; k < 2; ++k) pthread_create(&tid[k], NULL, thread_main, (void *) k);
        for (int k = 0; k < 2; ++k) pthread_join(tid[k], NULL);
        for (int k = 0; k < 2; ++k) MPI_Comm_free(&thread_comm[k]);
    }
    free(sbuf);
    free(rbuf);
    return t_finish("t_coll_mismatch");
}
