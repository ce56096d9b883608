/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The module's entries for the partitioned MPI extensions (ompi/mpiext/part
 * holds their MPIX_ bindings, which call these through mca_part and report
 * the MPI error class they return).
 */

#ifndef MCA_PART_UCX_MPIX_H
#define MCA_PART_UCX_MPIX_H

#include "ompi_config.h"

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/info/info.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"

BEGIN_C_DECLS

struct mpix_prequest_s;

/* mca_part_ucx_pbuf_prepare: part_ucx_request.h */

int mca_part_ucx_prequest_create(ompi_request_t *request, int layout,
                                 struct mpix_prequest_s **preq);
int mca_part_ucx_prequest_free(struct mpix_prequest_s **preq, ompi_request_t **request);

int mca_part_ucx_pallreduce_init(const void *sendbuf, void *recvbuf, int partitions, int count,
                                 ompi_datatype_t *datatype, ompi_op_t *op,
                                 ompi_communicator_t *comm, ompi_info_t *info,
                                 ompi_request_t **request);
int mca_part_ucx_preduce_init(const void *sendbuf, void *recvbuf, int partitions, int count,
                              ompi_datatype_t *datatype, ompi_op_t *op, int root,
                              ompi_communicator_t *comm, ompi_info_t *info,
                              ompi_request_t **request);
int mca_part_ucx_pbcast_init(void *buffer, int partitions, int count, ompi_datatype_t *datatype,
                             int root, ompi_communicator_t *comm, ompi_info_t *info,
                             ompi_request_t **request);
int mca_part_ucx_pallgather_init(const void *sendbuf, void *recvbuf, int partitions, int count,
                                 ompi_datatype_t *datatype, ompi_communicator_t *comm,
                                 ompi_info_t *info, ompi_request_t **request);
int mca_part_ucx_palltoall_init(const void *sendbuf, void *recvbuf, int partitions, int count,
                                ompi_datatype_t *datatype, ompi_communicator_t *comm,
                                ompi_info_t *info, ompi_request_t **request);

/* Stream-ordered starts and waits (MPIX_Start(all)_enqueue,
 * MPIX_Wait(all)_enqueue): `requests` are partitioned requests, checked by
 * the binding, all on the CUDA stream `stream` (a cudaStream_t); an MPI
 * error class. */
int mca_part_ucx_start_enqueue(size_t count, ompi_request_t **requests, void *stream);
int mca_part_ucx_wait_enqueue(size_t count, ompi_request_t **requests, void *stream);

END_C_DECLS

#endif /* MCA_PART_UCX_MPIX_H */
