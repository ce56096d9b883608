/* Shared by the GPU tests: a failed CUDA call aborts the whole job. */
#ifndef GUTIL_H
#define GUTIL_H

#include <cuda_runtime.h>
#include <mpi.h>
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

#endif /* GUTIL_H */
