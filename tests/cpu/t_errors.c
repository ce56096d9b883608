/* Bad input gets the error class the standard names, through the error
 * handler (MPI_ERRORS_RETURN here), and leaves other requests' data alone.
 * Rank 0 sends to rank 1; other ranks only run the local checks. */
#include "../tutil.h"
#include <mpix_part.h>

int main(int argc, char **argv)
{
    int rank, size, buf[64], rbuf[64];
    MPI_Request sreq, rreq, tmp;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* errors without a handle (MPI_REQUEST_NULL, an unknown device
     * request) go to MPI_COMM_SELF's handler with mpi_compat_mpi3 0 */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* Local argument checks. */
    T_EXPECT(MPI_Precv_init(rbuf, 4, 4, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &tmp), MPI_ERR_RANK);
    T_EXPECT(MPI_Precv_init(rbuf, 4, 4, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &tmp), MPI_ERR_TAG);
    T_EXPECT(MPI_Psend_init(buf, -3, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &tmp),
           MPI_ERR_ARG);
    T_EXPECT(MPI_Psend_init(buf, 4, 4, MPI_INT, size, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &tmp),
           MPI_ERR_RANK);
    T_EXPECT(MPI_Psend_init(buf, 4, 4, MPI_DATATYPE_NULL, 0, 1, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &tmp), MPI_ERR_TYPE);

    /* Info keys of the device bindings, and device requests made wrongly. */
    MPI_Info info;
    MPIX_Prequest preq = NULL;
    T_MPI(MPI_Info_create(&info));
    T_MPI(MPI_Info_set(info, "mpix_pready_threads", "0"));
    T_EXPECT(MPI_Psend_init(buf, 4, 4, MPI_INT, rank, 1, MPI_COMM_WORLD, info, &tmp),
           MPI_ERR_INFO_VALUE);
    T_MPI(MPI_Info_set(info, "mpix_pready_threads", "32"));
    T_MPI(MPI_Info_set(info, "mpix_device_copy", "sideways"));
    T_EXPECT(MPI_Psend_init(buf, 4, 4, MPI_INT, rank, 1, MPI_COMM_WORLD, info, &tmp),
           MPI_ERR_INFO_VALUE);
    T_MPI(MPI_Info_set(info, "mpix_device_copy", "progress"));
    T_MPI(MPI_Info_set(info, "mpix_pready_aggregate", "grid"));
    T_EXPECT(MPI_Psend_init(buf, 4, 4, MPI_INT, rank, 1, MPI_COMM_WORLD, info, &tmp),
           MPI_ERR_INFO_VALUE);
    T_MPI(MPI_Info_set(info, "mpix_pready_aggregate", "block"));
    T_MPI(MPI_Info_set(info, "mpix_device_group_bytes", "-1"));
    T_EXPECT(MPI_Psend_init(buf, 4, 4, MPI_INT, rank, 1, MPI_COMM_WORLD, info, &tmp),
           MPI_ERR_INFO_VALUE);
    T_MPI(MPI_Info_set(info, "mpix_device_group_bytes", "many"));
    T_EXPECT(MPI_Psend_init(buf, 4, 4, MPI_INT, rank, 1, MPI_COMM_WORLD, info, &tmp),
           MPI_ERR_INFO_VALUE);
    T_MPI(MPI_Info_set(info, "mpix_device_group_bytes", "65536"));
    T_MPI(MPI_Psend_init(buf, 4, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, info, &tmp));
    T_EXPECT(MPIX_Prequest_create(tmp, NULL), MPI_ERR_ARG); /* between epochs */
    T_MPI(MPI_Start(&tmp));
    T_EXPECT(MPIX_Prequest_create(tmp, NULL), MPI_ERR_ARG);
    T_EXPECT(MPIX_Prequest_create(MPI_REQUEST_NULL, &preq), MPI_ERR_REQUEST);
    T_CHECK(NULL == preq, "a failed MPIX_Prequest_create set its handle");
    T_EXPECT(MPIX_Prequest_free(&preq), MPI_ERR_ARG); /* no such device request */
    T_EXPECT(MPIX_Prequest_free(NULL), MPI_ERR_ARG);
    T_MPI(MPI_Wait(&tmp, MPI_STATUS_IGNORE));
    T_MPI(MPI_Request_free(&tmp));
    T_MPI(MPI_Info_free(&info));

    /* Non-partitioned requests are refused by the partitioned calls. */
    int flag = 0;
    T_MPI(MPI_Send_init(buf, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &tmp));
    T_EXPECT(MPIX_Prequest_create(tmp, &preq), MPI_ERR_REQUEST);
    T_EXPECT(MPI_Pready(0, tmp), MPI_ERR_REQUEST);
    T_EXPECT(MPI_Parrived(tmp, 0, &flag), MPI_ERR_REQUEST);
    MPI_Request_free(&tmp);

    /* MPI_PROC_NULL completes at once with the empty status. */
    MPI_Status st;
    int cnt = -1;
    T_MPI(MPI_Precv_init(rbuf, 4, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &tmp));
    T_MPI(MPI_Start(&tmp));
    T_MPI(MPI_Parrived(tmp, 3, &flag));
    T_CHECK(flag, "MPI_Parrived on a MPI_PROC_NULL receive gave 0");
    T_MPI(MPI_Wait(&tmp, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    T_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0,
            "PROC_NULL status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
    T_MPI(MPI_Request_free(&tmp));
    T_MPI(MPI_Psend_init(buf, 4, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &tmp));
    T_MPI(MPI_Start(&tmp));
    T_MPI(MPI_Pready_range(0, 3, tmp));
    T_MPI(MPI_Wait(&tmp, MPI_STATUS_IGNORE));
    T_MPI(MPI_Request_free(&tmp));

    if (rank < 2) {
        int peer = 1 - rank;
        MPI_Request mine;
        /* 1: a correct exchange, alive through all the misuse below. */
        if (0 == rank) {
            T_MPI(MPI_Psend_init(buf, 4, 16, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &mine));
        } else {
            T_MPI(MPI_Precv_init(rbuf, 4, 16, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &mine));
        }
        for (int e = 1; e <= 3; ++e) {
            for (int i = 0; i < 64; ++i) {
                buf[i] = t_value(0, e, i / 16, i);
                rbuf[i] = -7;
            }
            if (1 == rank) {
                /* Inactive receive: MPI_Parrived says arrived. */
                T_MPI(MPI_Parrived(mine, 0, &flag));
                T_CHECK(flag, "inactive MPI_Parrived gave 0");
            }
            T_MPI(MPI_Start(&mine));
            T_EXPECT(MPI_Request_free(&mine), MPI_ERR_REQUEST);
            T_EXPECT(MPI_Cancel(&mine), MPI_ERR_REQUEST);
            T_EXPECT(MPI_Start(&mine), MPI_ERR_REQUEST);
            if (0 == rank) {
                T_EXPECT(MPI_Parrived(mine, 0, &flag), MPI_ERR_REQUEST);
                T_EXPECT(MPI_Pready(4, mine), MPI_ERR_ARG);
                T_EXPECT(MPI_Pready(-1, mine), MPI_ERR_ARG);
                T_EXPECT(MPI_Pready_range(2, 1, mine), MPI_ERR_ARG);
                T_MPI(MPI_Pready(1, mine));
                T_EXPECT(MPI_Pready(1, mine), MPI_ERR_ARG);
                int dup[3] = {2, 0, 2};
                T_EXPECT(MPI_Pready_list(3, dup, mine), MPI_ERR_ARG);
                T_MPI(MPI_Pready(3, mine));
            } else {
                T_EXPECT(MPI_Pready(0, mine), MPI_ERR_REQUEST);
                T_EXPECT(MPI_Parrived(mine, 4, &flag), MPI_ERR_ARG);
            }
            T_MPI(MPI_Wait(&mine, MPI_STATUS_IGNORE));
            if (1 == rank) {
                for (int i = 0; i < 64; ++i) {
                    T_CHECK(rbuf[i] == t_value(0, e, i / 16, i), "epoch %d elem %d: %d", e, i,
                            rbuf[i]);
                }
            }
        }
        T_MPI(MPI_Request_free(&mine));
        T_CHECK(MPI_REQUEST_NULL == mine, "free did not null the handle");

        /* 2: size mismatch is an error on both sides, and nothing is written. */
        for (int i = 0; i < 64; ++i) rbuf[i] = -9;
        if (0 == rank) {
            T_MPI(MPI_Psend_init(buf, 4, 8, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
            T_MPI(MPI_Start(&sreq));
            T_MPI(MPI_Pready_range(0, 3, sreq));
            T_EXPECT(MPI_Wait(&sreq, &st), MPI_ERR_TRUNCATE);
            /* Open MPI frees a request whose completion failed. */
            if (MPI_REQUEST_NULL != sreq) T_MPI(MPI_Request_free(&sreq));
        } else {
            T_MPI(MPI_Precv_init(rbuf, 4, 4, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
            T_MPI(MPI_Start(&rreq));
            T_EXPECT(MPI_Wait(&rreq, &st), MPI_ERR_TRUNCATE);
            if (MPI_REQUEST_NULL != rreq) T_MPI(MPI_Request_free(&rreq));
            for (int i = 0; i < 64; ++i) {
                T_CHECK(rbuf[i] == -9, "mismatched send wrote element %d", i);
            }
        }

        /* 3: zero-count partitions. */
        if (0 == rank) {
            T_MPI(MPI_Psend_init(buf, 3, 0, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
        } else {
            T_MPI(MPI_Precv_init(rbuf, 3, 0, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
        }
        for (int e = 0; e < 3; ++e) {
            T_MPI(MPI_Start(&sreq));
            if (0 == rank) {
                T_MPI(MPI_Pready_range(0, 2, sreq));
            }
            T_MPI(MPI_Wait(&sreq, &st));
            if (1 == rank) {
                MPI_Get_count(&st, MPI_INT, &cnt);
                T_CHECK(0 == cnt && 0 == st.MPI_SOURCE, "zero-count status: %d from %d", cnt,
                        st.MPI_SOURCE);
            }
        }
        T_MPI(MPI_Request_free(&sreq));
    }
    return t_finish("t_errors");
}
