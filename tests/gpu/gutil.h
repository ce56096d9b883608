/* Shared by the GPU tests: a failed CUDA call aborts the whole job. */
#ifndef GUTIL_H
#define GUTIL_H

#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>

#define CUDA(call)                                                               \
    do {                                                                         \
        cudaError_t _e = (call);                                                 \
        if (cudaSuccess != _e) {                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
                    cudaGetErrorString(_e));                                     \
            MPI_Abort(MPI_COMM_WORLD, 3);                                        \
        }                                                                        \
    } while (0)

#endif /* GUTIL_H */
