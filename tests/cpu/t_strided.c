/* Partitions that are each contiguous but lie apart (a block type resized
 * to leave a gap, count 1 per partition): moved in place, without packing,
 * when both sides have the same number of partitions; packed otherwise.
 * Gaps must stay untouched, data must change per epoch and partition.
 *   -p SENDER_PARTS -q RECEIVER_PARTS -n INTS per sender partition
 *   -s SENDER_GAP -r RECEIVER_GAP (ints; 0: contiguous)  -e EPOCHS */
#include "../tutil.h"
#include <unistd.h>

int main(int argc, char **argv)
{
    t_strided_opts_t o = {6, 6, 40, 3, 5, 50};
    if (0 != t_strided_options(argc, argv, &o)) {
        return 2;
    }
    int sparts = o.sparts, rparts = o.rparts, ints = o.ints, sgap = o.sgap, rgap = o.rgap,
        epochs = o.epochs, rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;
    long total = (long) sparts * ints;          /* ints moved */
    int rints = (int) (total / rparts);          /* ints per receiver partition */
    MPI_Datatype st = t_block_type(ints, sgap), rt = t_block_type(rints, rgap);
    MPI_Type_commit(&st);
    MPI_Type_commit(&rt);
    long slen = (long) sparts * (ints + sgap), rlen = (long) rparts * (rints + rgap);
    int32_t *sbuf = malloc(slen * 4), *rbuf = malloc(rlen * 4);
    MPI_Request req[2];
    T_MPI(MPI_Psend_init(sbuf, sparts, 1, st, dst, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    T_MPI(MPI_Precv_init(rbuf, rparts, 1, rt, src, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    for (int e = 1; e <= epochs; ++e) {
        t_strided_fill(sbuf, rank, e, sparts, ints, sgap);
        for (long j = 0; j < rlen; ++j) rbuf[j] = -5;
        T_MPI(MPI_Startall(2, req));
        for (int p = sparts - 1; p >= 0; --p) T_MPI(MPI_Pready(p, req[0]));
        for (int q = 0; q < rparts; ++q) {
            int flag = 0;
            while (!flag) T_MPI(MPI_Parrived(req[1], q, &flag));
            /* in place at arrival: the partition's ints, its gap untouched */
            t_strided_check(rbuf, src, e, q, ints, rints, rgap);
        }
        T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        if (t_failures > 10) break;
    }
    T_MPI(MPI_Request_free(&req[0]));
    T_MPI(MPI_Request_free(&req[1]));
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
    free(sbuf);
    free(rbuf);
    return t_finish("t_strided");
}
