/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * MPIX extensions of the part/ucx component. They live in libmpi, so a
 * program that includes this header links with the install's mpicc alone.
 */

#ifndef MPIX_PART_H
#define MPIX_PART_H

#include <mpi.h>

#define MPIX_PART_UCX 1

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* Block until the receive buffer of the request's current epoch is ready
 * at the peer: after it returns, MPI_Pready (and GPU kernels) put at once.
 * The first call also completes the request's setup. The request must
 * have been started; on a receive request it makes sure the sender has
 * been told that the buffer is ready. */
int MPIX_Pbuf_prepare(MPI_Request *request);
int MPIX_Pbuf_prepareall(int count, MPI_Request requests[]);

/* A device-side request for CUDA kernels (mpix_part_device.h), in GPU
 * memory. Blocking; call it after MPI_Start of the first epoch. One device
 * request serves every later epoch of its MPI_Request. MPI_Info key of
 * MPI_Psend_init: "mpix_pready_threads", the number of MPIX_Pready calls
 * (device threads) that make one partition ready (default 1). */
typedef struct mpix_prequest_s *MPIX_Prequest;
int MPIX_Prequest_create(MPI_Request request, MPIX_Prequest *preq);
int MPIX_Prequest_free(MPIX_Prequest *preq);

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* MPIX_PART_H */
