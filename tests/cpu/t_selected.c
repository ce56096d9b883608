/* The component doing the work must be part/ucx: only its requests accept
 * MPIX_Pbuf_prepare. With -x the test expects another component (it is run
 * with --mca part persist, which shows the check can fail). */
#include "../tutil.h"
#include <mpix_part.h>

int main(int argc, char **argv)
{
    int expect_other = (argc > 1 && 0 == strcmp(argv[1], "-x"));
    int rank, size, buf[4] = {0}, rbuf[4];
    MPI_Request req[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;

    T_MPI(MPI_Psend_init(buf, 2, 2, MPI_INT, dst, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    T_MPI(MPI_Precv_init(rbuf, 2, 2, MPI_INT, src, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    T_MPI(MPI_Startall(2, req));
    int rc = MPIX_Pbuf_prepare(&req[0]);
    if (expect_other) {
        T_CHECK(MPI_SUCCESS != rc, "MPIX_Pbuf_prepare accepted a request of another component");
    } else {
        T_CHECK(MPI_SUCCESS == rc, "MPIX_Pbuf_prepare refused the request: part/ucx not selected");
    }
    for (int i = 0; i < 4; ++i) buf[i] = t_value(rank, 1, i / 2, i);
    T_MPI(MPI_Pready_range(0, 1, req[0]));
    T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 4; ++i) {
        T_CHECK(rbuf[i] == t_value(src, 1, i / 2, i), "elem %d: %d", i, rbuf[i]);
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    return t_finish(expect_other ? "t_selected -x" : "t_selected");
}
