/* Shared by the examples: CUDA error checks and one GPU per local rank. */
#ifndef EXAMPLES_COMMON_H
#define EXAMPLES_COMMON_H

#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA(call)                                                                       \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (cudaSuccess != e_) {                                                         \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));  \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                \
        }                                                                                \
    } while (0)

/* Before MPI_Init: one GPU per local rank, wrapping around. */
static inline int example_select_gpu(void)
{
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    int ndev = 0;
    CUDA(cudaGetDeviceCount(&ndev));
    CUDA(cudaSetDevice((NULL != lr ? atoi(lr) : 0) % ndev));
    return ndev;
}

#endif /* EXAMPLES_COMMON_H */
