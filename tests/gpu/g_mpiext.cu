/* The layout check of device requests (MPI extension "part"): a program
 * compiled against another layout of struct mpix_prequest_s gets
 * MPI_ERR_UNSUPPORTED_OPERATION from MPIX_Prequest_create, through the
 * request's communicator, and no handle; the headers of one install agree
 * (mpi-ext.h and mpix_part_device.h), and the device request records its
 * layout. Then a ring exchange whose kernel marks every partition with
 * device MPIX_Pready, checked on the receiver. Needs 2 or more ranks. */
#include <cuda_runtime.h>
#include <mpi.h>
#include <mpi-ext.h>
#include <mpix_part_device.h>
#include "tutil.h"
#include "gutil.h"

static_assert(MPIX_PREQUEST_LAYOUT == MPIX_PART_DEVICE_LAYOUT,
              "mpi-ext.h and mpix_part_device.h disagree on the device request layout");

__global__ void produce(int32_t *buf, MPIX_Prequest preq, int rank, int epoch)
{
    long i = (long) blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t v = (uint32_t) rank * 2654435761u ^ (uint32_t) epoch * 40503u ^ (uint32_t) i * 13u;
    buf[i] = (int32_t) v;
    MPIX_Pready(blockIdx.x, preq);
}

int main(int argc, char **argv)
{
    const int parts = 8, threads = 128, epochs = 20;
    const size_t n = (size_t) parts * threads;
    int rank, size, cls;
    int32_t *sbuf, *rbuf;
    MPIX_Prequest preq = NULL;
    MPI_Request req[2];
    MPI_Info info;
    MPI_Comm comm;
    char nthreads[16];

    g_select_gpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    T_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    T_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    CUDA(cudaMalloc(&sbuf, n * sizeof(int32_t)));
    CUDA(cudaMalloc(&rbuf, n * sizeof(int32_t)));
    snprintf(nthreads, sizeof(nthreads), "%d", threads);
    T_MPI(MPI_Info_create(&info));
    T_MPI(MPI_Info_set(info, "mpix_pready_threads", nthreads));
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;
    T_MPI(MPI_Psend_init(sbuf, parts, threads, MPI_INT32_T, dst, 3, comm, info, &req[0]));
    T_MPI(MPI_Precv_init(rbuf, parts, threads, MPI_INT32_T, src, 3, comm, MPI_INFO_NULL,
                         &req[1]));
    T_MPI(MPI_Info_free(&info));

    for (int e = 1; e <= epochs; ++e) {
        T_MPI(MPI_Startall(2, req));
        if (1 == e) {
            cls = t_class(MPIX_Prequest_create_layout(req[0], &preq, MPIX_PREQUEST_LAYOUT + 1));
            T_CHECK(MPI_ERR_UNSUPPORTED_OPERATION == cls && NULL == preq,
                    "another layout: class %d, handle %p", cls, (void *) preq);
            T_MPI(MPIX_Prequest_create(req[0], &preq));
            struct mpix_prequest_s d;
            CUDA(cudaMemcpy(&d, mpix_prequest_ptr(preq), sizeof(d), cudaMemcpyDeviceToHost));
            T_CHECK(MPIX_PREQUEST_MAGIC == d.magic && MPIX_PART_DEVICE_LAYOUT == d.layout,
                    "device request: magic %#x, layout %u", d.magic, d.layout);
        }
        T_MPI(MPIX_Pbuf_prepare(&req[0]));
        produce<<<parts, threads>>>(sbuf, preq, rank, e);
        CUDA(cudaGetLastError());
        T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        int32_t host[parts * threads];
        CUDA(cudaMemcpy(host, rbuf, sizeof(host), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; ++i) {
            uint32_t v = (uint32_t) src * 2654435761u ^ (uint32_t) e * 40503u ^
                         (uint32_t) i * 13u;
            if ((int32_t) v != host[i]) {
                T_CHECK((int32_t) v == host[i], "epoch %d elem %zu: %d", e, i, host[i]);
                break;
            }
        }
    }
    T_MPI(MPIX_Prequest_free(&preq));
    T_MPI(MPI_Request_free(&req[0]));
    T_MPI(MPI_Request_free(&req[1]));
    CUDA(cudaFree(sbuf));
    CUDA(cudaFree(rbuf));
    MPI_Comm_free(&comm);
    return t_finish("g_mpiext");
}
