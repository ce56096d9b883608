/* Shared by the examples: CUDA error checks and one GPU per local rank. */
#ifndef EXAMPLES_COMMON_H
#define EXAMPLES_COMMON_H

#include <cuda_runtime.h>
#include <mpi.h>
#include <mpi-ext.h>
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

/* A communicator bound to CUDA stream s (MPIX_Stream_comm_create): its
 * partitioned requests take stream-ordered epochs on s. *ms to free after
 * the communicator. */
static inline MPI_Comm example_stream_comm(cudaStream_t s, MPIX_Stream *ms)
{
    MPI_Info info;
    MPI_Comm comm;
    MPI_Info_create(&info);
    MPI_Info_set(info, "type", "cudaStream_t");
    MPIX_Info_set_hex(info, "value", &s, sizeof(s));
    MPIX_Stream_create(info, ms);
    MPI_Info_free(&info);
    MPIX_Stream_comm_create(MPI_COMM_WORLD, *ms, &comm);
    return comm;
}

/* Before MPI_Init: one GPU per local rank, wrapping around. */
static inline int example_select_gpu(void)
{
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    int ndev = 0;
    CUDA(cudaGetDeviceCount(&ndev));
    CUDA(cudaSetDevice((NULL != lr ? atoi(lr) : 0) % ndev));
    return ndev;
}

#ifdef HAVE_NCCL
#include <nccl.h>

/* A NCCL communicator over MPI_COMM_WORLD, or NULL on every rank (with one
 * line from `who` on rank 0). NCCL needs a GPU per rank: ranks sharing one
 * would spin against each other's kernels. */
static inline ncclComm_t example_nccl_init(const char *who)
{
    int rank, size, ndev = 0, local = 0, most = 0, ok, all = 0;
    ncclComm_t comm = NULL;
    ncclUniqueId id;
    MPI_Comm node;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CUDA(cudaGetDeviceCount(&ndev));
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    MPI_Allreduce(&local, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (most > ndev) {
        if (0 == rank) fprintf(stderr, "%s: %d ranks on %d GPUs: no NCCL\n", who, most, ndev);
        return NULL;
    }
    if (0 == rank) ncclGetUniqueId(&id);
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    ok = (ncclSuccess == ncclCommInitRank(&comm, size, id, rank));
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) { /* every rank or none */
        if (0 == rank) fprintf(stderr, "%s: NCCL refused these GPUs: no NCCL\n", who);
        if (ok) ncclCommDestroy(comm);
        return NULL;
    }
    return comm;
}
#endif

#endif /* EXAMPLES_COMMON_H */
