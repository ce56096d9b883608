/* Completion through every MPI_Test/MPI_Wait family member and
 * MPI_Request_get_status; ordinary point-to-point traffic with the same
 * communicator, peer and tag never mixes with partitioned data; errors
 * reach a user error handler attached to the request's communicator.
 * Ring: every rank sends to rank + 1 and receives from rank - 1. */
#include "../tutil.h"

static int handler_calls, handler_class;

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void) comm;
    ++handler_calls;
    MPI_Error_class(*code, &handler_class);
}

enum { PARTS = 6, COUNT = 10, N = PARTS * COUNT };

static void fill(int32_t *sbuf, int32_t *rbuf, int rank, int e, int salt)
{
    for (int j = 0; j < N; ++j) {
        sbuf[j] = t_value(rank, e * 16 + salt, j / COUNT, j);
        rbuf[j] = -1;
    }
}

static void check(const int32_t *rbuf, int src, int e, int salt, const char *how)
{
    for (int j = 0; j < N; ++j) {
        if (rbuf[j] != t_value(src, e * 16 + salt, j / COUNT, j)) {
            T_CHECK(0, "%s: epoch %d elem %d: %d", how, e, j, rbuf[j]);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size, flag, idx, outcount, indices[2];
    int32_t sbuf[N], rbuf[N], p2p_out[N], p2p_in[N];
    MPI_Request req[2], p2p[2];
    MPI_Status st, sts[2];
    MPI_Errhandler eh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;

    T_MPI(MPI_Psend_init(sbuf, PARTS, COUNT, MPI_INT32_T, dst, 3, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[0]));
    T_MPI(MPI_Precv_init(rbuf, PARTS, COUNT, MPI_INT32_T, src, 3, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[1]));

    for (int e = 1; e <= 6; ++e) {
        fill(sbuf, rbuf, rank, e, 0);
        /* Ordinary messages on the same communicator, peer and tag. */
        for (int j = 0; j < N; ++j) p2p_out[j] = t_value(rank, e * 16 + 9, j / COUNT, j);
        T_MPI(MPI_Irecv(p2p_in, N, MPI_INT32_T, src, 3, MPI_COMM_WORLD, &p2p[1]));
        T_MPI(MPI_Isend(p2p_out, N, MPI_INT32_T, dst, 3, MPI_COMM_WORLD, &p2p[0]));
        T_MPI(MPI_Startall(2, req));
        for (int p = PARTS - 1; p >= 0; --p) T_MPI(MPI_Pready(p, req[0]));

        switch (e) {
        case 1: /* MPI_Test until done, then the request is inactive, not freed */
            for (flag = 0; !flag;) T_MPI(MPI_Test(&req[1], &flag, &st));
            T_CHECK(MPI_REQUEST_NULL != req[1], "MPI_Test freed a persistent request");
            T_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
            break;
        case 2: /* MPI_Request_get_status does not deactivate: MPI_Wait still works */
            for (flag = 0; !flag;) T_MPI(MPI_Request_get_status(req[1], &flag, &st));
            T_MPI(MPI_Wait(&req[1], &st));
            T_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
            break;
        case 3:
            for (flag = 0; !flag;) T_MPI(MPI_Testall(2, req, &flag, sts));
            st = sts[1];
            break;
        case 4: /* MPI_Waitany twice: each request once, then MPI_UNDEFINED */
            for (int k = 0; k < 2; ++k) {
                T_MPI(MPI_Waitany(2, req, &idx, &sts[0]));
                T_CHECK(0 == idx || 1 == idx, "Waitany index %d", idx);
                if (1 == idx) st = sts[0];
            }
            T_MPI(MPI_Waitany(2, req, &idx, MPI_STATUS_IGNORE));
            T_CHECK(MPI_UNDEFINED == idx, "third Waitany gave %d", idx);
            break;
        case 5: /* MPI_Testany / MPI_Testsome until both are reported */
            for (int done = 0; done < 2;) {
                T_MPI(MPI_Testsome(2, req, &outcount, indices, sts));
                for (int k = 0; k < outcount && MPI_UNDEFINED != outcount; ++k) {
                    if (1 == indices[k]) st = sts[k];
                    ++done;
                }
            }
            break;
        default:
            for (int done = 0; done < 2;) {
                T_MPI(MPI_Testany(2, req, &idx, &flag, &sts[0]));
                if (flag && MPI_UNDEFINED != idx) {
                    if (1 == idx) st = sts[0];
                    ++done;
                }
            }
            break;
        }
        int got = -1;
        MPI_Get_count(&st, MPI_INT32_T, &got);
        T_CHECK(src == st.MPI_SOURCE && 3 == st.MPI_TAG && N == got,
                "epoch %d status: source %d tag %d count %d", e, st.MPI_SOURCE, st.MPI_TAG, got);
        check(rbuf, src, e, 0, "partitioned");
        T_MPI(MPI_Waitall(2, p2p, MPI_STATUSES_IGNORE));
        for (int j = 0; j < N; ++j) {
            if (p2p_in[j] != t_value(src, e * 16 + 9, j / COUNT, j)) {
                T_CHECK(0, "point-to-point epoch %d elem %d: %d", e, j, p2p_in[j]);
                break;
            }
        }
    }

    /* A user error handler on the communicator sees the error class. */
    T_MPI(MPI_Comm_create_errhandler(count_errors, &eh));
    T_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    fill(sbuf, rbuf, rank, 7, 0);
    T_MPI(MPI_Startall(2, req));
    handler_calls = 0;
    int rc = MPI_Pready(PARTS, req[0]);
    T_CHECK(MPI_SUCCESS != rc && 1 == handler_calls && MPI_ERR_ARG == handler_class,
            "out-of-range MPI_Pready: rc %d, handler called %d times, class %d", rc,
            handler_calls, handler_class);
    rc = MPI_Parrived(req[1], -1, &flag);
    T_CHECK(MPI_SUCCESS != rc && 2 == handler_calls && MPI_ERR_ARG == handler_class,
            "out-of-range MPI_Parrived: rc %d, handler called %d times, class %d", rc,
            handler_calls, handler_class);
    T_MPI(MPI_Pready_range(0, PARTS - 1, req[0]));
    T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    check(rbuf, src, 7, 0, "after errors");
    T_CHECK(2 == handler_calls, "handler called %d times", handler_calls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);

    T_MPI(MPI_Request_free(&req[0]));
    T_MPI(MPI_Request_free(&req[1]));
    return t_finish("t_complete");
}
