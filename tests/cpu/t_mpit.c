/* part/ucx's MPI_T performance variables, read through an MPI_T session
 * around partitioned ring exchanges (every rank sends to rank+1): the
 * counters of the paths taken must count exactly what was sent.
 *
 *   -t am    default: host buffers between processes of a node go as
 *            active messages, the ready-to-receive as a put
 *   -t put   run with --mca part_ucx_transfer put
 *   -t tcp   run with -x UCX_TLS=tcp,self: active messages, the
 *            ready-to-receive as a message that may ride on partitions
 *            (one epoch ahead)
 *   -p N partitions, -c N int32 elements each, -e N epochs
 * Then a partitioned allreduce on host buffers: the GPU engine's counters
 * (part_ucx_coll_gpu_epochs, part_ucx_coll_gpu_twoshot_epochs) must not
 * move.
 */
#include "../tutil.h"
#include <mpix_part.h>

enum { PUT, AM, HCOPY, KCOPY, BYTES, HELD, RIDING, ALONE, UNEXP, GCOLL, GCOLL2, NV };
static const char *const names[NV] = {
    "part_ucx_parts_put",  "part_ucx_parts_am",   "part_ucx_parts_host_copy",
    "part_ucx_parts_kernel_copy", "part_ucx_bytes_sent", "part_ucx_parts_held",
    "part_ucx_rtr_riding", "part_ucx_rtr_alone",  "part_ucx_setup_unexpected",
    "part_ucx_coll_gpu_epochs", "part_ucx_coll_gpu_twoshot_epochs",
};
static MPI_T_pvar_handle handles[NV];
static MPI_T_pvar_session session;

static void t_read(unsigned long long *v)
{
    for (int i = 0; i < NV; ++i) {
        T_CHECK(MPI_SUCCESS == MPI_T_pvar_read(session, handles[i], &v[i]), "read %s", names[i]);
    }
}

/* `epochs` epochs of a ring exchange on req (send, receive), data checked. */
static void t_exchange(MPI_Request *req, int32_t *sbuf, int32_t *rbuf, int parts, int count,
                       int epochs, int rank, int src, int tag)
{
    for (int e = 0; e < epochs; ++e) {
        T_MPI(MPI_Startall(2, req));
        for (int p = 0; p < parts; ++p) {
            for (int i = 0; i < count; ++i) {
                sbuf[p * count + i] = t_value(rank, e * 16 + tag, p, i);
            }
            T_MPI(MPI_Pready(p, req[0]));
        }
        T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        for (long k = 0; k < (long) parts * count; ++k) {
            if (rbuf[k] != t_value(src, e * 16 + tag, k / count, k % count)) {
                T_CHECK(0, "epoch %d: element %ld is %d", e, k, rbuf[k]);
                break;
            }
        }
    }
}

int main(int argc, char **argv)
{
    int parts = 8, count = 64, epochs = 20, opt, rank, size, provided;
    const char *mode = "am";

    while ((opt = getopt(argc, argv, "t:p:c:e:")) != -1) {
        switch (opt) {
        case 't': mode = optarg; break;
        case 'p': parts = atoi(optarg); break;
        case 'c': count = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        default: return 2;
        }
    }
    int put = 0 == strcmp(mode, "put"), tcp = 0 == strcmp(mode, "tcp");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;
    T_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));

    for (int i = 0; i < NV; ++i) {
        char name[256], desc[1024];
        int index, name_len = sizeof(name), desc_len = sizeof(desc), verbosity, var_class, bind,
            readonly, continuous, atomic;
        MPI_Datatype type;
        MPI_T_enum enumtype;

        T_MPI(MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &index));
        T_MPI(MPI_T_pvar_get_info(index, name, &name_len, &verbosity, &var_class, &type,
                                  &enumtype, desc, &desc_len, &bind, &readonly, &continuous,
                                  &atomic));
        T_CHECK(MPI_UNSIGNED_LONG_LONG == type && MPI_T_BIND_NO_OBJECT == bind && readonly &&
                    !continuous, "%s: unexpected type, binding or flags", names[i]);
        if (0 == i) {
            T_MPI(MPI_T_pvar_session_create(&session));
        }
        int n = 0;
        T_MPI(MPI_T_pvar_handle_alloc(session, index, NULL, &handles[i], &n));
        T_CHECK(1 == n, "%s: %d values", names[i], n);
        T_MPI(MPI_T_pvar_start(session, handles[i]));
    }

    long total = (long) parts * count;
    int32_t *sbuf = malloc(total * sizeof(int32_t)), *rbuf = malloc(total * sizeof(int32_t));
    unsigned long long v0[NV], v1[NV], v2[NV], v3[NV], want;
    MPI_Request req[2];

    /* 1: receives initialized before their senders: nothing unexpected */
    t_read(v0);
    T_MPI(MPI_Precv_init(rbuf, parts, count, MPI_INT32_T, src, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req[1]));
    MPI_Barrier(MPI_COMM_WORLD);
    T_MPI(MPI_Psend_init(sbuf, parts, count, MPI_INT32_T, dst, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req[0]));
    t_exchange(req, sbuf, rbuf, parts, count, epochs, rank, src, 1);
    t_read(v1);
    want = (unsigned long long) parts * epochs;
    T_CHECK(v1[UNEXP] == v0[UNEXP], "%llu setup records unexpected", v1[UNEXP] - v0[UNEXP]);
    T_CHECK(v1[PUT] - v0[PUT] == (put ? want : 0), "parts_put %llu", v1[PUT] - v0[PUT]);
    T_CHECK(v1[AM] - v0[AM] == (put ? 0 : want), "parts_am %llu", v1[AM] - v0[AM]);
    T_CHECK(v1[HCOPY] == v0[HCOPY] && v1[KCOPY] == v0[KCOPY], "GPU paths counted host data");
    T_CHECK(v1[BYTES] - v0[BYTES] == want * count * sizeof(int32_t), "bytes_sent %llu",
            v1[BYTES] - v0[BYTES]);
    unsigned long long rtrs = v1[RIDING] - v0[RIDING] + v1[ALONE] - v0[ALONE];
    if (tcp) {
        /* the first epoch's may go both from the match and from MPI_Start */
        T_CHECK(rtrs >= (unsigned long long) epochs && rtrs <= (unsigned long long) epochs + 1,
                "%llu ready-to-receive for %d epochs", rtrs, epochs);
        T_CHECK(v1[HELD] - v0[HELD] <= want, "parts_held %llu", v1[HELD] - v0[HELD]);
    } else {
        T_CHECK(v1[ALONE] - v0[ALONE] == (unsigned long long) epochs && v1[RIDING] == v0[RIDING],
                "ready-to-receive: %llu alone, %llu riding for %d epochs", v1[ALONE] - v0[ALONE],
                v1[RIDING] - v0[RIDING], epochs);
        T_CHECK(v1[HELD] == v0[HELD], "parts_held %llu", v1[HELD] - v0[HELD]);
    }

    /* 2: a setup record before its receive: one unexpected on every rank
     * (none sent before every rank has read its counts of 1) */
    MPI_Request late[2];
    MPI_Barrier(MPI_COMM_WORLD);
    T_MPI(MPI_Psend_init(sbuf, parts, count, MPI_INT32_T, dst, 2, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &late[0]));
    double deadline = MPI_Wtime() + 60;
    do {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); /* progress */
        t_read(v2);
    } while (v2[UNEXP] == v1[UNEXP] && MPI_Wtime() < deadline);
    T_MPI(MPI_Precv_init(rbuf, parts, count, MPI_INT32_T, src, 2, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &late[1]));
    t_exchange(late, sbuf, rbuf, parts, count, 1, rank, src, 2);
    t_read(v2);
    T_CHECK(v2[UNEXP] - v1[UNEXP] == 1, "%llu setup records unexpected, not 1",
            v2[UNEXP] - v1[UNEXP]);
    T_CHECK(v2[BYTES] - v1[BYTES] == (unsigned long long) total * sizeof(int32_t),
            "bytes_sent %llu", v2[BYTES] - v1[BYTES]);

    /* 2b: a collective on host buffers runs on the schedule engine, not
     * the GPU engine, and its result is checked */
    MPI_Request coll;
    t_read(v2);
    T_MPI(MPIX_Pallreduce_init(sbuf, rbuf, parts, count, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &coll));
    for (int e = 0; e < 3; ++e) {
        for (long i = 0; i < total; ++i) sbuf[i] = (int32_t) (i * 7 + e * 3 + rank);
        T_MPI(MPI_Start(&coll));
        T_MPI(MPI_Pready_range(0, parts - 1, coll));
        T_MPI(MPI_Wait(&coll, MPI_STATUS_IGNORE));
        for (long i = 0; i < total; ++i) {
            int32_t want_i = (int32_t) ((i * 7 + e * 3) * size + (long) size * (size - 1) / 2);
            if (rbuf[i] != want_i) {
                T_CHECK(0, "allreduce epoch %d element %ld: %d, not %d", e, i, rbuf[i], want_i);
                break;
            }
        }
    }
    T_MPI(MPI_Request_free(&coll));
    t_read(v3);
    T_CHECK(v3[GCOLL] == v2[GCOLL], "%llu GPU-engine epochs on host buffers",
            v3[GCOLL] - v2[GCOLL]);
    T_CHECK(v3[GCOLL2] == v2[GCOLL2], "%llu two-shot GPU-engine epochs on host buffers",
            v3[GCOLL2] - v2[GCOLL2]);

    /* 3: stopped handles keep their values */
    for (int i = 0; i < NV; ++i) {
        T_MPI(MPI_T_pvar_stop(session, handles[i]));
    }
    t_read(v2);
    t_exchange(req, sbuf, rbuf, parts, count, 2, rank, src, 1);
    t_read(v3);
    T_CHECK(0 == memcmp(v2, v3, sizeof(v2)), "a stopped handle counted");

    for (int i = 0; i < 2; ++i) {
        MPI_Request_free(&req[i]);
        MPI_Request_free(&late[i]);
    }
    for (int i = 0; i < NV; ++i) {
        T_MPI(MPI_T_pvar_handle_free(session, &handles[i]));
    }
    T_MPI(MPI_T_pvar_session_free(&session));
    T_MPI(MPI_T_finalize());
    free(sbuf);
    free(rbuf);
    return t_finish(tcp ? "t_mpit -t tcp" : put ? "t_mpit -t put" : "t_mpit");
}
