/* Shared by the GPU tests: a failed CUDA call aborts the whole job. */
#ifndef GUTIL_H
#define GUTIL_H

#include <cuda_runtime.h>
#include <mpi.h>
#include <mpi-ext.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA(call)                                                               \
    do {                                                                         \
        cudaError_t _e = (call);                                                 \
        if (cudaSuccess != _e) {                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
                    cudaGetErrorString(_e));                                     \
            MPI_Abort(MPI_COMM_WORLD, 3);                                        \
        }                                                                        \
    } while (0)

/* Before MPI_Init: one GPU per local rank, wrapping around when ranks
 * outnumber GPUs. Returns the number of GPUs. */
static inline int g_select_gpu(void)
{
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    int ndev = 0;
    CUDA(cudaGetDeviceCount(&ndev));
    CUDA(cudaSetDevice((lr ? atoi(lr) : 0) % ndev));
    return ndev;
}

/* The MPIX_Stream of CUDA stream s (MPICH's encoding of "value"); a failed
 * call aborts the job. */
static inline MPIX_Stream g_mpix_stream(cudaStream_t s)
{
    MPIX_Stream ms = MPIX_STREAM_NULL;
    MPI_Info info;

    if (MPI_SUCCESS != MPI_Info_create(&info) ||
        MPI_SUCCESS != MPI_Info_set(info, "type", "cudaStream_t") ||
        MPI_SUCCESS != MPIX_Info_set_hex(info, "value", &s, sizeof(s)) ||
        MPI_SUCCESS != MPIX_Stream_create(info, &ms) || MPI_SUCCESS != MPI_Info_free(&info)) {
        fprintf(stderr, "%s:%d: an MPIX_Stream of a CUDA stream failed\n", __FILE__, __LINE__);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return ms;
}

/* Whether the ranks of MPI_COMM_WORLD run on more than one GPU (by PCI
 * address); collective. */
static inline int g_spans_gpus(void)
{
    cudaDeviceProp prop;
    int dev;
    long long id[2];

    CUDA(cudaGetDevice(&dev));
    CUDA(cudaGetDeviceProperties(&prop, dev));
    id[0] = ((long long) prop.pciDomainID << 32) | (prop.pciBusID << 8) | prop.pciDeviceID;
    id[1] = -id[0];
    if (MPI_SUCCESS != MPI_Allreduce(MPI_IN_PLACE, id, 2, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD)) {
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return id[0] != -id[1];
}

#endif /* GUTIL_H */
