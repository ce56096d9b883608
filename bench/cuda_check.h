/* CUDA error checks for the benchmarks that run without MPI (b_limits,
 * b_tail, b_lines): a failed call ends the program with its message. */
#ifndef BENCH_CUDA_CHECK_H
#define BENCH_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA(call)                                                                       \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (cudaSuccess != e_) {                                                         \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));  \
            exit(3);                                                                     \
        }                                                                                \
    } while (0)

#endif /* BENCH_CUDA_CHECK_H */
