/* Partitioned ring exchange on GPU memory (cudaMalloc) with host-side
 * MPI_Pready: UCX moves the partitions with cuda_ipc or cuda_copy. Every
 * epoch a kernel writes values that depend on sender, epoch, partition and
 * element; the receiver checks them on the host after a copy back.
 *   -p N send partitions  -c N int32 per send partition  -e N epochs
 *   -q N receive partitions (default -p; the totals must match)
 *   -b MPIX_Pbuf_prepare  -a poll MPI_Parrived on every receive partition
 *   -H s|r  the send (s) or receive (r) buffer in host memory instead
 *   -r  MPI_Pready_range over two halves (second half first) instead of
 *       one MPI_Pready per partition in random order
 *   -V NAME=VALUE  MCA variable NAME set in the odd ranks only (tests/tutil.h) */
#include <cuda_runtime.h>
#include <mpi.h>
#include <mpix_part.h>
#include <unistd.h>
#include <vector>
#include "tutil.h"
#include "gutil.h"


__host__ __device__ static inline int32_t g_value(int src, long epoch, long part, long idx)
{
    uint32_t v = (uint32_t) src * 2654435761u ^ (uint32_t) epoch * 40503u ^
                 (uint32_t) part * 977u ^ (uint32_t) idx * 13u;
    return (int32_t) (v ^ (v >> 15));
}

__global__ void fill(int32_t *buf, long n, int count, int rank, int epoch)
{
    for (long j = blockIdx.x * (long) blockDim.x + threadIdx.x; j < n;
         j += (long) gridDim.x * blockDim.x) {
        buf[j] = g_value(rank, epoch, j / count, j);
    }
}

int main(int argc, char **argv)
{
    int parts = 8, count = 4096, epochs = 20, prepare = 0, poll = 0, rparts = 0;
    int host_send = 0, host_recv = 0, range = 0, opt, rank, size;
    while ((opt = getopt(argc, argv, "p:c:e:q:baH:rV:")) != -1) {
        switch (opt) {
        case 'p': parts = atoi(optarg); break;
        case 'c': count = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        case 'q': rparts = atoi(optarg); break;
        case 'b': prepare = 1; break;
        case 'a': poll = 1; break;
        case 'r': range = 1; break;
        case 'V': t_mca_odd_ranks(optarg); break;
        case 'H': host_send = ('s' == optarg[0]); host_recv = ('r' == optarg[0]); break;
        default: return 2;
        }
    }
    if (0 == rparts) rparts = parts;
    (void) g_select_gpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;
    long n = (long) parts * count;
    if (n % rparts != 0) {
        fprintf(stderr, "g_exchange: %ld elements do not split into %d partitions\n", n, rparts);
        return 2;
    }
    int rcount = (int) (n / rparts);
    int32_t *sbuf, *rbuf;
    if (host_send) CUDA(cudaMallocHost(&sbuf, n * sizeof(int32_t)));
    else CUDA(cudaMalloc(&sbuf, n * sizeof(int32_t)));
    if (host_recv) rbuf = (int32_t *) malloc(n * sizeof(int32_t));
    else CUDA(cudaMalloc(&rbuf, n * sizeof(int32_t)));
    std::vector<int32_t> host(n);
    std::vector<int> order(parts);
    unsigned seed = 99u + rank;
    MPI_Request req[2];
    T_MPI(MPI_Psend_init(sbuf, parts, count, MPI_INT32_T, dst, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    T_MPI(MPI_Precv_init(rbuf, rparts, rcount, MPI_INT32_T, src, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    for (int e = 1; e <= epochs; ++e) {
        if (host_recv) memset(rbuf, 0xff, n * sizeof(int32_t));
        else CUDA(cudaMemset(rbuf, 0xff, n * sizeof(int32_t)));
        fill<<<64, 256>>>(sbuf, n, count, rank, e);
        CUDA(cudaDeviceSynchronize());
        T_MPI(MPI_Startall(2, req));
        if (prepare) T_MPI(MPIX_Pbuf_prepare(&req[0]));
        for (int p = 0; p < parts; ++p) order[p] = p;
        t_shuffle(order.data(), parts, &seed);
        if (range) {
            if (parts > 1) T_MPI(MPI_Pready_range(parts / 2, parts - 1, req[0]));
            T_MPI(MPI_Pready_range(0, (parts > 1 ? parts / 2 : 1) - 1, req[0]));
        } else {
            for (int p = 0; p < parts; ++p) T_MPI(MPI_Pready(order[p], req[0]));
        }
        for (int p = 0; poll && p < rparts; ++p) {
            int flag = 0;
            while (!flag) T_MPI(MPI_Parrived(req[1], p, &flag));
        }
        T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        CUDA(cudaMemcpy(host.data(), rbuf, n * sizeof(int32_t), cudaMemcpyDefault));
        for (long j = 0; j < n; ++j) {
            if (host[j] != g_value(src, e, j / count, j)) {
                T_CHECK(0, "epoch %d elem %ld: %d != %d", e, j, host[j], g_value(src, e, j / count, j));
                break;
            }
        }
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    if (host_send) CUDA(cudaFreeHost(sbuf));
    else CUDA(cudaFree(sbuf));
    if (host_recv) free(rbuf);
    else CUDA(cudaFree(rbuf));
    return t_finish("g_exchange");
}
