/* mca_part_ucx_dump, what tools/hangdump.c prints for a hung test: the
 * state of every active request, here a pair in the middle of its second
 * epoch (one of four partitions sent and arrived), then none once the
 * epoch is complete. Data checked in both epochs. Two ranks. */
#include "../tutil.h"

enum { PARTS = 4, COUNT = 16, TAG = 5 };


int main(int argc, char **argv)
{
    int32_t buf[PARTS * COUNT];
    int rank, size, flag = 0, e, p, i;
    MPI_Request req;
    char want[160], *text;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (2 != size) {
        if (0 == rank) fprintf(stderr, "t_dump: needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    if (0 == rank) {
        T_MPI(MPI_Precv_init(buf, PARTS, COUNT, MPI_INT32_T, 1, TAG, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &req));
    } else {
        T_MPI(MPI_Psend_init(buf, PARTS, COUNT, MPI_INT32_T, 0, TAG, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &req));
    }
    for (e = 1; e <= 2; ++e) {
        if (1 == rank) {
            for (i = 0; i < PARTS * COUNT; ++i) buf[i] = t_value(1, e, i / COUNT, i % COUNT);
        }
        T_MPI(MPI_Start(&req));
        /* epoch 2: partition 0 only, then the dump on both sides */
        for (p = 0; 1 == rank && p < (2 == e ? 1 : PARTS); ++p) {
            T_MPI(MPI_Pready(p, req));
        }
        if (2 == e) {
            if (0 == rank) {
                do {
                    T_MPI(MPI_Parrived(req, 0, &flag));
                } while (!flag);
            }
            MPI_Barrier(MPI_COMM_WORLD); /* partition 0 arrived: its send was issued */
            text = t_dump_text();
            snprintf(want, sizeof(want), "kind %d peer %d tag %d parts %d: epoch 2 state 2 "
                     "complete 0", 0 == rank ? 1 : 0, 1 - rank, TAG, PARTS);
            t_dump_expect(text, want);
            t_dump_expect(text, 0 == rank ? "receive: 1 of 4 sender partitions arrived"
                                   : "send: 0 queued 1 issued");
            t_dump_expect(text, "1 active, 0 driven");
            free(text);
            MPI_Barrier(MPI_COMM_WORLD);
            for (p = 1; 1 == rank && p < PARTS; ++p) {
                T_MPI(MPI_Pready(p, req));
            }
        }
        T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (i = 0; 0 == rank && i < PARTS * COUNT; ++i) {
            T_CHECK(buf[i] == t_value(1, e, i / COUNT, i % COUNT), "epoch %d element %d", e, i);
        }
    }
    text = t_dump_text();
    t_dump_expect(text, "0 active, 0 driven");
    free(text);
    T_MPI(MPI_Request_free(&req));
    MPI_Finalize();
    if (0 == rank) printf("t_dump: %s (%d failed checks)\n", t_failures ? "FAIL" : "OK", t_failures);
    return t_failures ? 1 : 0;
}
