/* MPI 4.1 conformance of the partitioned calls at their edges:
 * - MPI_Parrived on MPI_REQUEST_NULL and on an inactive receive (never
 *   started, or completed) gives flag = true; a non-partitioned request
 *   MPI_ERR_REQUEST, a NULL flag MPI_ERR_ARG;
 * - zero partitions (and zero count) are legal: start and wait complete,
 *   and the matching order of later requests on the same tag is kept;
 * - MPI_PROC_NULL requests complete at once with the null-process status;
 * - a NULL buffer with data to move is MPI_ERR_BUFFER.
 * Ranks 0 and 1 exchange; other ranks run the local checks only. */
#include "../tutil.h"

/* Rank 0's send or rank 1's receive of parts x count ints on `tag`. */
static void init_pair(int rank, int32_t *buf, int parts, int count, int tag, MPI_Request *req)
{
    if (0 == rank) {
        T_MPI(MPI_Psend_init(buf, parts, count, MPI_INT32_T, 1, tag, MPI_COMM_WORLD,
                             MPI_INFO_NULL, req));
    } else {
        T_MPI(MPI_Precv_init(buf, parts, count, MPI_INT32_T, 0, tag, MPI_COMM_WORLD,
                             MPI_INFO_NULL, req));
    }
}

/* One checked exchange from rank 0 to rank 1 on `tag`: parts x count ints. */
static void exchange(int rank, int parts, int count, int tag, int epochs)
{
    int32_t *buf = calloc((size_t) parts * count + 1, sizeof(int32_t));
    MPI_Request req;

    init_pair(rank, buf, parts, count, tag, &req);
    for (int e = 1; e <= epochs; ++e) {
        T_MPI(MPI_Start(&req));
        if (0 == rank) {
            for (int p = parts - 1; p >= 0; --p) {
                for (int i = 0; i < count; ++i)
                    buf[p * count + i] = t_value(0, e + tag, p, p * count + i);
                T_MPI(MPI_Pready(p, req));
            }
        }
        T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (1 == rank) {
            for (int k = 0; k < parts * count; ++k) {
                int32_t want = t_value(0, e + tag, k / count, k);
                if (buf[k] != want) {
                    T_CHECK(0, "tag %d epoch %d element %d: %d, expected %d", tag, e, k,
                            buf[k], want);
                    break;
                }
            }
        }
    }
    T_MPI(MPI_Request_free(&req));
    free(buf);
}

/* parts partitions of count ints (zero either way): no data; every
 * partition still needs its MPI_Pready, and MPI_Parrived sees them all. */
static void empty(int rank, int parts, int count, int tag, int epochs)
{
    int32_t buf[4] = {0};
    MPI_Request req;
    MPI_Status st;
    int flag, n;

    init_pair(rank, buf, parts, count, tag, &req);
    for (int e = 1; e <= epochs; ++e) {
        T_MPI(MPI_Start(&req));
        if (0 == rank) {
            for (int p = 0; p < parts; ++p) T_MPI(MPI_Pready(p, req));
            T_EXPECT(MPI_Pready(parts, req), MPI_ERR_ARG); /* no such partition */
        } else {
            for (int p = 0; p < parts; ++p) {
                do {
                    T_MPI(MPI_Parrived(req, p, &flag));
                } while (!flag);
            }
            T_EXPECT(MPI_Parrived(req, parts, &flag), MPI_ERR_ARG);
        }
        T_MPI(MPI_Wait(&req, &st));
        if (1 == rank) {
            T_MPI(MPI_Get_count(&st, MPI_INT32_T, &n));
            T_CHECK(0 == n, "empty message: count %d", n);
            T_CHECK(0 == st.MPI_SOURCE && tag == st.MPI_TAG, "empty message: source %d tag %d",
                    st.MPI_SOURCE, st.MPI_TAG);
        }
    }
    T_MPI(MPI_Request_free(&req));
}

int main(int argc, char **argv)
{
    int rank, size, flag, n, buf[16];
    MPI_Request req, preq;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* errors without a communicator go to MPI_COMM_SELF's handler (MPI 4.1) */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* MPI_Parrived on the null request, on inactive and foreign requests */
    flag = 0;
    T_MPI(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
    T_CHECK(flag, "MPI_Parrived(MPI_REQUEST_NULL) gave flag 0");
    T_EXPECT(MPI_Parrived(MPI_REQUEST_NULL, 0, NULL), MPI_ERR_ARG);
    T_MPI(MPI_Send_init(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &preq));
    T_EXPECT(MPI_Parrived(preq, 0, &flag), MPI_ERR_REQUEST);
    T_MPI(MPI_Request_free(&preq));
    T_MPI(MPI_Precv_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req));
    flag = 0;
    T_MPI(MPI_Parrived(req, 1, &flag));
    T_CHECK(flag, "MPI_Parrived of a never-started receive gave flag 0");
    T_EXPECT(MPI_Parrived(req, 4, &flag), MPI_ERR_ARG);
    T_EXPECT(MPI_Parrived(req, -1, &flag), MPI_ERR_ARG);

    /* MPI_PROC_NULL: complete at once, null-process status, every epoch */
    for (int e = 0; e < 3; ++e) {
        T_MPI(MPI_Start(&req));
        flag = 0;
        T_MPI(MPI_Parrived(req, 3, &flag));
        T_CHECK(flag, "MPI_Parrived of a MPI_PROC_NULL receive gave flag 0");
        memset(&st, 0x5a, sizeof(st));
        T_MPI(MPI_Wait(&req, &st));
        T_MPI(MPI_Get_count(&st, MPI_INT, &n));
        T_CHECK(MPI_PROC_NULL == st.MPI_SOURCE && MPI_ANY_TAG == st.MPI_TAG && 0 == n,
                "MPI_PROC_NULL receive: status source %d tag %d count %d", st.MPI_SOURCE,
                st.MPI_TAG, n);
        flag = 0;
        T_MPI(MPI_Parrived(req, 0, &flag)); /* completed: inactive again */
        T_CHECK(flag, "MPI_Parrived of a completed receive gave flag 0");
    }
    T_MPI(MPI_Request_free(&req));
    T_MPI(MPI_Psend_init(buf, 4, 2, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req));
    for (int e = 0; e < 3; ++e) {
        T_MPI(MPI_Start(&req));
        for (int p = 0; p < 4; ++p) T_MPI(MPI_Pready(p, req));
        T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    T_MPI(MPI_Request_free(&req));
    T_MPI(MPI_Psend_init(NULL, 0, 0, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &req));
    T_MPI(MPI_Start(&req));
    T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    T_MPI(MPI_Request_free(&req));

    /* NULL buffers: an error only where data would move */
    T_EXPECT(MPI_Psend_init(NULL, 2, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
           MPI_ERR_BUFFER);
    T_EXPECT(MPI_Precv_init(NULL, 2, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
           MPI_ERR_BUFFER);

    if (rank < 2 && size >= 2) {
        /* zero partitions, zero count, between two requests with data on
         * the same tag: the order of matching holds */
        exchange(rank, 4, 8, 7, 3);
        empty(rank, 0, 0, 7, 5);
        empty(rank, 0, 5, 7, 5);
        exchange(rank, 3, 5, 7, 3);
        empty(rank, 3, 0, 7, 5);
        exchange(rank, 2, 9, 7, 2);
        /* NULL buffer with zero partitions or count: legal */
        if (0 == rank) {
            T_MPI(MPI_Psend_init(NULL, 0, 4, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        } else {
            T_MPI(MPI_Precv_init(NULL, 4, 0, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        }
        for (int e = 0; e < 4; ++e) {
            T_MPI(MPI_Start(&req));
            if (1 == rank) {
                for (int p = 0; p < 4; ++p) {
                    do {
                        T_MPI(MPI_Parrived(req, p, &flag));
                    } while (!flag);
                }
            }
            T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        T_MPI(MPI_Request_free(&req));
        exchange(rank, 5, 3, 8, 2);
    }
    return t_finish("t_conform");
}
