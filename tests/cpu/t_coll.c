/* Partitioned collectives against their ordinary MPI counterparts on the
 * same data, every epoch, with values that depend on rank, epoch, partition
 * and element and a random MPI_Pready order on every rank.
 *   -c allreduce|reduce|bcast|allgather|alltoall  -p PARTS  -n COUNT per partition  -e EPOCHS
 *   -t int|double|int1 (int1: a derived type laid out as MPI_INT)
 *   -o sum|max|min|prod|user (user: a commutative MPI_Op_create sum)  -r ROOT  -i (MPI_IN_PLACE)
 *   -w (poll MPI_Parrived on every partition before MPI_Wait)  -E errors
 *   -b (MPIX_Pbuf_prepare after every MPI_Start)
 *   -A auto|ring|recursive_doubling (allreduce: info key mpix_allreduce_algorithm)
 *   -T (MPI_THREAD_MULTIPLE: one thread per partition polls MPI_Parrived)
 *   -G BYTES (info key mpix_coll_transport_bytes: user partitions per
 *      transport partition)  -D (partition p + 1 made ready only after
 *      partition p arrived: needs one transport partition per user partition)
 *   -V NAME=VALUE (MCA variable NAME set to VALUE in the odd ranks only) */
#include "../tutil.h"
#include <mpix_part.h>
#include <pthread.h>
#include <unistd.h>

enum { C_ALLREDUCE, C_REDUCE, C_BCAST, C_ALLGATHER, C_ALLTOALL };

/* A user-defined commutative op: sum of ints, whatever the type's name. */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void) type;
    for (int i = 0; i < *len; ++i) ((int *) inout)[i] += ((int *) in)[i];
}

/* -T: one thread per partition polls MPI_Parrived on it. */
typedef struct {
    MPI_Request req;
    int part, ok;
} poller_t;

static void *poll_one(void *arg)
{
    poller_t *w = arg;
    int flag = 0;
    while (!flag) {
        if (MPI_SUCCESS != MPI_Parrived(w->req, w->part, &flag)) return NULL;
    }
    w->ok = 1;
    return NULL;
}

/* Small integer values, so that every reduction order gives the same
 * double and products stay exact. */
static int value(int rank, int epoch, int part, long idx, int prod)
{
    int v = t_value(rank, epoch, part, idx) & 0xff;
    return prod ? 1 + (v & 1) : v - 100;
}

int main(int argc, char **argv)
{
    int coll = C_ALLREDUCE, parts = 8, count = 64, epochs = 100, root = 0, inplace = 0;
    const char *alg = NULL;
    int threads = 0, dbl = 0, derived = 0, user = 0, prepare = 0, poll = 0, errors = 0, opt, rank, size;
    int dependent = 0;
    const char *group_bytes = NULL;
    MPI_Op op = MPI_SUM;
    while ((opt = getopt(argc, argv, "c:p:n:e:t:o:r:A:G:V:iwbTED")) != -1) {
        switch (opt) {
        case 'c':
            coll = !strcmp(optarg, "reduce") ? C_REDUCE : !strcmp(optarg, "bcast") ? C_BCAST
                   : !strcmp(optarg, "allgather") ? C_ALLGATHER
                   : !strcmp(optarg, "alltoall") ? C_ALLTOALL : C_ALLREDUCE;
            break;
        case 'p': parts = atoi(optarg); break;
        case 'n': count = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        case 't': dbl = !strcmp(optarg, "double"); derived = !strcmp(optarg, "int1"); break;
        case 'o': op = !strcmp(optarg, "max") ? MPI_MAX : !strcmp(optarg, "min") ? MPI_MIN
                       : !strcmp(optarg, "prod") ? MPI_PROD : MPI_SUM;
                  user = !strcmp(optarg, "user"); break;
        case 'r': root = atoi(optarg); break;
        case 'i': inplace = 1; break;
        case 'w': poll = 1; break;
        case 'b': prepare = 1; break;
        case 'T': threads = 1; break;
        case 'A': alg = optarg; break;
        case 'G': group_bytes = optarg; break;
        case 'D': dependent = 1; break;
        case 'V': t_mca_odd_ranks(optarg); break;
        case 'E': errors = 1; break;
        default: return 2;
        }
    }
    if (threads) {
        int provided;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        if (MPI_THREAD_MULTIPLE != provided) threads = 0;
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    root %= size;
    if (errors) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype type = dbl ? MPI_DOUBLE : MPI_INT;
    if (derived) {
        /* a derived type laid out as MPI_INT: the non-predefined paths */
        MPI_Type_contiguous(1, MPI_INT, &type);
        MPI_Type_commit(&type);
    }
    if (user) MPI_Op_create(user_sum, 1, &op);
    /* n: elements of our contribution, rn: of the result (blocks per rank
     * for allgather and alltoall; alltoall sends a block to every rank). */
    int blocks = (C_ALLGATHER == coll || C_ALLTOALL == coll) ? size : 1;
    size_t esz = dbl ? sizeof(double) : sizeof(int), n = (size_t) parts * count;
    size_t sn = (C_ALLTOALL == coll) ? n * size : n, rn = n * blocks;
    char *sbuf = calloc(sn + 1, esz), *rbuf = calloc(rn + 1, esz), *ref = calloc(rn + 1, esz);
    int *order = malloc(sizeof(int) * parts);
    unsigned seed = 1234u + 77u * rank;
    MPI_Request req;

    MPI_Info info;
    MPI_Info_create(&info);
    if (alg) MPI_Info_set(info, "mpix_allreduce_algorithm", alg);
    if (group_bytes) MPI_Info_set(info, "mpix_coll_transport_bytes", group_bytes);
    if (C_ALLREDUCE == coll) {
        T_MPI(MPIX_Pallreduce_init(inplace ? MPI_IN_PLACE : sbuf, rbuf, parts, count, type, op,
                                   MPI_COMM_WORLD, info, &req));
    } else if (C_REDUCE == coll) {
        T_MPI(MPIX_Preduce_init(inplace && rank == root ? MPI_IN_PLACE : sbuf, rbuf, parts,
                                count, type, op, root, MPI_COMM_WORLD, info, &req));
    } else if (C_ALLGATHER == coll) {
        T_MPI(MPIX_Pallgather_init(inplace ? MPI_IN_PLACE : sbuf, rbuf, parts, count, type,
                                   MPI_COMM_WORLD, info, &req));
    } else if (C_ALLTOALL == coll) {
        T_MPI(MPIX_Palltoall_init(sbuf, rbuf, parts, count, type, MPI_COMM_WORLD, info, &req));
    } else {
        T_MPI(MPIX_Pbcast_init(rbuf, parts, count, type, root, MPI_COMM_WORLD, info, &req));
    }
    MPI_Info_free(&info);
    int prod = (MPI_PROD == op);
    for (int e = 1; e <= epochs; ++e) {
        /* This epoch's contribution (in rbuf when in place or bcast). */
        char *mine = ((inplace && (C_REDUCE != coll || rank == root)) || C_BCAST == coll) ? rbuf : sbuf;
        /* in-place allgather: our block of the result is our contribution */
        size_t moff = (C_ALLGATHER == coll && inplace) ? (size_t) rank * n : 0;
        for (size_t j = 0; j < rn; ++j) {
            if (dbl) ((double *) rbuf)[j] = -7777;
            else ((int *) rbuf)[j] = -7777;
        }
        for (size_t j = 0; j < sn; ++j) {
            int v = value(rank, e, (int) ((j % n) / count), (long) j, prod);
            if (dbl) ((double *) mine)[moff + j] = v;
            else ((int *) mine)[moff + j] = v;
        }
        /* The reference, with the ordinary collective on the same data. */
        if (C_ALLREDUCE == coll) {
            T_MPI(MPI_Allreduce(mine, ref, (int) n, type, op, MPI_COMM_WORLD));
        } else if (C_REDUCE == coll) {
            T_MPI(MPI_Reduce(mine, ref, (int) n, type, op, root, MPI_COMM_WORLD));
        } else if (C_ALLGATHER == coll) {
            T_MPI(MPI_Allgather(mine + moff * esz, (int) n, type, ref, (int) n, type, MPI_COMM_WORLD));
        } else if (C_ALLTOALL == coll) {
            T_MPI(MPI_Alltoall(mine, (int) n, type, ref, (int) n, type, MPI_COMM_WORLD));
        } else {
            memcpy(ref, mine, n * esz);
            T_MPI(MPI_Bcast(ref, (int) n, type, root, MPI_COMM_WORLD));
            if (rank != root) memset(rbuf, 0x5a, n * esz); /* must be overwritten */
        }
        T_MPI(MPI_Start(&req));
        if (prepare) T_MPI(MPIX_Pbuf_prepare(&req)); /* every participant's buffers ready */
        if (errors && 1 == e) {
            int c = t_class(MPI_Pready(parts, req));
            T_CHECK(MPI_ERR_ARG == c, "MPI_Pready out of range gave class %d", c);
        }
        int check = (C_REDUCE != coll) || rank == root;
        if (dependent && (C_BCAST != coll || rank == root)) {
            /* in order, each after the previous one's result is here (on
             * ranks that get one) */
            for (int p = 0; p < parts; ++p) {
                T_MPI(MPI_Pready(p, req));
                for (int flag = !check; !flag;) T_MPI(MPI_Parrived(req, p, &flag));
            }
        } else if (C_BCAST != coll || rank == root) {
            for (int p = 0; p < parts; ++p) order[p] = p;
            t_shuffle(order, parts, &seed);
            if (e % 3 == 1) { /* every third epoch: the list form, same random order */
                T_MPI(MPI_Pready_list(parts, order, req));
            } else if (e % 3 == 2 && parts > 1) { /* a range and the rest one by one */
                T_MPI(MPI_Pready_range(0, parts / 2 - 1 < 0 ? 0 : parts / 2 - 1, req));
                for (int p = parts / 2 > 0 ? parts / 2 : 1; p < parts; ++p) T_MPI(MPI_Pready(p, req));
            } else {
                for (int p = 0; p < parts; ++p) T_MPI(MPI_Pready(order[p], req));
            }
            if (errors && 1 == e) {
                int c = t_class(MPI_Pready(0, req));
                T_CHECK(MPI_ERR_ARG == c, "second MPI_Pready of a partition gave class %d", c);
            }
        } else if (errors && 1 == e) {
            int c = t_class(MPI_Pready(0, req));
            T_CHECK(MPI_ERR_REQUEST == c, "MPI_Pready by a bcast receiver gave class %d", c);
        }
        if (threads && check) {
            /* every partition polled by its own thread, then checked */
            poller_t *w = calloc(parts, sizeof(*w));
            pthread_t *tid = calloc(parts, sizeof(*tid));
            for (int p = 0; p < parts; ++p) {
                w[p].req = req;
                w[p].part = p;
                pthread_create(&tid[p], NULL, poll_one, &w[p]);
            }
            for (int p = 0; p < parts; ++p) {
                pthread_join(tid[p], NULL);
                T_CHECK(w[p].ok, "epoch %d: MPI_Parrived failed on partition %d", e, p);
            }
            free(w);
            free(tid);
        }
        if (poll && check) {
            for (int p = 0; p < parts; ++p) order[p] = p;
            t_shuffle(order, parts, &seed);
            for (int i = 0; i < parts; ++i) {
                int p = order[i], flag = 0;
                while (!flag) T_MPI(MPI_Parrived(req, p, &flag));
                /* the partition's result is final once it has arrived, in
                 * every block */
                for (int b = 0; b < blocks; ++b) {
                    size_t at = ((size_t) b * n + (size_t) p * count) * esz;
                    T_CHECK(0 == memcmp(rbuf + at, ref + at, count * esz),
                            "epoch %d: partition %d block %d wrong at arrival", e, p, b);
                }
            }
        }
        T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (check) {
            for (size_t j = 0; j < rn; ++j) {
                int ok = dbl ? ((double *) rbuf)[j] == ((double *) ref)[j]
                             : ((int *) rbuf)[j] == ((int *) ref)[j];
                if (!ok) {
                    T_CHECK(0, "epoch %d element %zu (partition %zu): %g != %g", e, j, (j % n) / count,
                            dbl ? ((double *) rbuf)[j] : ((int *) rbuf)[j],
                            dbl ? ((double *) ref)[j] : ((int *) ref)[j]);
                    break;
                }
            }
        }
        if (t_failures > 20) break;
    }
    if (errors) {
        MPI_Request bad;
        int c = t_class(MPIX_Pallreduce_init(sbuf, rbuf, -1, count, type, op, MPI_COMM_WORLD,
                                         MPI_INFO_NULL, &bad));
        T_CHECK(MPI_ERR_ARG == c, "-1 partitions gave class %d", c);
        c = t_class(MPIX_Pbcast_init(rbuf, parts, count, type, size, MPI_COMM_WORLD, MPI_INFO_NULL, &bad));
        T_CHECK(MPI_ERR_ROOT == c, "root out of range gave class %d", c);
        c = t_class(MPIX_Pallreduce_init(sbuf, rbuf, parts, count, type, MPI_OP_NULL, MPI_COMM_WORLD,
                                     MPI_INFO_NULL, &bad));
        T_CHECK(MPI_ERR_OP == c, "MPI_OP_NULL gave class %d", c);
        MPI_Op noncommute;
        MPI_Op_create(user_sum, 0, &noncommute); /* declared non-commutative */
        c = t_class(MPIX_Pallreduce_init(sbuf, rbuf, parts, count, MPI_INT, noncommute,
                                     MPI_COMM_WORLD, MPI_INFO_NULL, &bad));
        T_CHECK(MPI_ERR_OP == c, "a non-commutative op gave class %d", c);
        c = t_class(MPIX_Preduce_init(sbuf, rbuf, parts, count, MPI_INT, noncommute, 0,
                                  MPI_COMM_WORLD, MPI_INFO_NULL, &bad));
        T_CHECK(MPI_ERR_OP == c, "a non-commutative op (reduce) gave class %d", c);
        MPI_Info bad_info;
        MPI_Info_create(&bad_info);
        MPI_Info_set(bad_info, "mpix_allreduce_algorithm", "bogus");
        c = t_class(MPIX_Pallreduce_init(sbuf, rbuf, parts, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                     bad_info, &bad));
        T_CHECK(MPI_ERR_INFO_VALUE == c, "a bad mpix_allreduce_algorithm gave class %d", c);
        MPI_Info_set(bad_info, "mpix_allreduce_algorithm", "auto");
        MPI_Info_set(bad_info, "mpix_coll_transport_bytes", "-1");
        c = t_class(MPIX_Pbcast_init(rbuf, parts, count, type, 0, MPI_COMM_WORLD, bad_info, &bad));
        T_CHECK(MPI_ERR_INFO_VALUE == c, "a bad mpix_coll_transport_bytes gave class %d", c);
        MPI_Info_free(&bad_info);
        MPI_Op_free(&noncommute);
        T_MPI(MPI_Start(&req));
        c = t_class(MPI_Request_free(&req));
        T_CHECK(MPI_ERR_REQUEST == c, "freeing an active collective gave class %d", c);
        if (C_BCAST != coll || rank == root) T_MPI(MPI_Pready_range(0, parts - 1, req));
        T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    T_MPI(MPI_Request_free(&req));
    if (errors && derived) {
        /* Open MPI defines predefined ops on predefined types only */
        MPI_Request bad;
        int c = t_class(MPIX_Pallreduce_init(sbuf, rbuf, parts, count, type, MPI_SUM, MPI_COMM_WORLD,
                                         MPI_INFO_NULL, &bad));
        T_CHECK(MPI_ERR_OP == c, "MPI_SUM on a derived type gave class %d", c);
    }
    if (derived) MPI_Type_free(&type);
    if (user) MPI_Op_free(&op);
    free(sbuf);
    free(rbuf);
    free(ref);
    free(order);
    return t_finish("t_coll");
}
