/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#include "ompi_config.h"

#include "opal/runtime/opal_progress.h"
#include "ompi/errhandler/errhandler.h"
#include "ompi/runtime/params.h"

#include "mpix_part.h"
#include "part_ucx.h"
#include "part_ucx_request.h"

static const char FUNC_NAME[] = "MPIX_Pbuf_prepare";

OMPI_DECLSPEC int MPIX_Pbuf_prepareall(int count, MPI_Request requests[])
{
    ompi_communicator_t *comm = &ompi_mpi_comm_world.comm;
    int i, rc = MPI_SUCCESS;

    if (MPI_PARAM_CHECK && (count < 0 || (count > 0 && NULL == requests))) {
        return OMPI_ERRHANDLER_INVOKE(comm, MPI_ERR_ARG, FUNC_NAME);
    }
    for (i = 0; i < count && MPI_SUCCESS == rc; ++i) {
        rc = mca_part_ucx_pbuf_prepare(requests[i]);
        if (MPI_SUCCESS != rc && MPI_REQUEST_NULL != requests[i] &&
            OMPI_REQUEST_PART == requests[i]->req_type) {
            comm = requests[i]->req_mpi_object.comm;
        }
    }
    OMPI_ERRHANDLER_RETURN(rc, comm, rc, FUNC_NAME);
}

OMPI_DECLSPEC int MPIX_Pbuf_prepare(MPI_Request *request)
{
    if (MPI_PARAM_CHECK && NULL == request) {
        return OMPI_ERRHANDLER_INVOKE(&ompi_mpi_comm_world.comm, MPI_ERR_ARG, FUNC_NAME);
    }
    return MPIX_Pbuf_prepareall(1, request);
}
