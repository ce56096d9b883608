/* Stream memory operations for the MPI benchmarks that order epochs on
 * CUDA streams (b_stream, b_ucx_device): cuStreamWriteValue64 and
 * cuStreamWaitValue64 through the runtime's driver entry points, so that
 * nothing links libcuda, and a check of their results. Include after
 * examples/common.h (CUDA()). */
#ifndef BENCH_STREAM_OPS_H
#define BENCH_STREAM_OPS_H

#include <cuda.h> /* types of cuStreamWriteValue64/cuStreamWaitValue64 */
#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>

typedef CUresult (*write_value_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
typedef CUresult (*wait_value_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
static write_value_fn write_value;
static wait_value_fn wait_value;

#define CU(call)                                                                         \
    do {                                                                                 \
        if (CUDA_SUCCESS != (call)) {                                                    \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call);            \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                \
        }                                                                                \
    } while (0)

/* write_value and wait_value; the run ends where the driver has neither. */
static void stream_ops_load(void)
{
    static const char *const names[2] = {"cuStreamWriteValue64", "cuStreamWaitValue64"};
    void *fn[2] = {NULL, NULL};
    cudaDriverEntryPointQueryResult found;

    for (int i = 0; i < 2; ++i) {
        CUDA(cudaGetDriverEntryPointByVersion(names[i], &fn[i], 12000, cudaEnableDefault,
                                              &found));
        if (NULL == fn[i] || cudaDriverEntryPointSuccess != found) {
            fprintf(stderr, "bench: no driver entry point %s\n", names[i]);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    write_value = (write_value_fn) fn[0];
    wait_value = (wait_value_fn) fn[1];
}

#endif /* BENCH_STREAM_OPS_H */
