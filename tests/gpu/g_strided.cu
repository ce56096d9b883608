/* Strided partitions (each contiguous, partitions apart: a block type
 * resized to leave a gap) in GPU memory, moved in place by active
 * messages; the receiver checks every partition and that gaps stay
 * untouched, after a copy back to the host.
 *   -p SENDER_PARTS -q RECEIVER_PARTS -n INTS per sender partition
 *   -s SENDER_GAP -r RECEIVER_GAP (ints)  -e EPOCHS */
#include <mpi.h>
#include <unistd.h>
#include <vector>
#include "tutil.h"
#include "gutil.h"

int main(int argc, char **argv)
{
    t_strided_opts_t o = {8, 8, 1024, 3, 5, 50};
    if (0 != t_strided_options(argc, argv, &o)) {
        return 2;
    }
    int sparts = o.sparts, rparts = o.rparts, ints = o.ints, sgap = o.sgap, rgap = o.rgap,
        epochs = o.epochs, rank, size;
    (void) g_select_gpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;
    long total = (long) sparts * ints;
    int rints = (int) (total / rparts);
    MPI_Datatype st = t_block_type(ints, sgap), rt = t_block_type(rints, rgap);
    MPI_Type_commit(&st);
    MPI_Type_commit(&rt);
    long slen = (long) sparts * (ints + sgap), rlen = (long) rparts * (rints + rgap);
    std::vector<int32_t> hs(slen, 0), hr(rlen);
    int32_t *sbuf, *rbuf;
    CUDA(cudaMalloc(&sbuf, slen * 4));
    CUDA(cudaMalloc(&rbuf, rlen * 4));
    MPI_Request req[2];
    T_MPI(MPI_Psend_init(sbuf, sparts, 1, st, dst, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    T_MPI(MPI_Precv_init(rbuf, rparts, 1, rt, src, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    for (int e = 1; e <= epochs; ++e) {
        t_strided_fill(hs.data(), rank, e, sparts, ints, sgap);
        for (long j = 0; j < rlen; ++j) hr[j] = -5;
        CUDA(cudaMemcpy(sbuf, hs.data(), slen * 4, cudaMemcpyHostToDevice));
        CUDA(cudaMemcpy(rbuf, hr.data(), rlen * 4, cudaMemcpyHostToDevice));
        CUDA(cudaDeviceSynchronize()); /* pageable copies may still be in flight */
        T_MPI(MPI_Startall(2, req));
        for (int p = sparts - 1; p >= 0; --p) T_MPI(MPI_Pready(p, req[0]));
        T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        CUDA(cudaMemcpy(hr.data(), rbuf, rlen * 4, cudaMemcpyDeviceToHost));
        for (int q = 0; q < rparts; ++q) t_strided_check(hr.data(), src, e, q, ints, rints, rgap);
        if (t_failures > 10) break;
    }
    T_MPI(MPI_Request_free(&req[0]));
    T_MPI(MPI_Request_free(&req[1]));
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
    CUDA(cudaFree(sbuf));
    CUDA(cudaFree(rbuf));
    return t_finish("g_strided");
}
