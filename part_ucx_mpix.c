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
#include "part_ucx_coll.h"

static const char FUNC_NAME[] = "MPIX_Pbuf_prepare";

static bool mca_part_ucx_buf_ready(const mca_part_ucx_request_t *req)
{
    if (MCA_PART_UCX_SEND == req->kind) {
        return mca_part_ucx_receiver_ready(req);
    }
    return MCA_PART_UCX_SETUP_DONE == req->setup;
}

int mca_part_ucx_pbuf_prepare(ompi_request_t *request)
{
    mca_part_ucx_request_t *req = (mca_part_ucx_request_t *) request;

    if (NULL == request || OMPI_REQUEST_PART != request->req_type ||
        mca_part_ucx_start != request->req_start ||
        OMPI_REQUEST_ACTIVE != request->req_state) {
        return MPI_ERR_REQUEST;
    }
    if (req->proc_null) {
        return MPI_SUCCESS;
    }
    if (MCA_PART_UCX_COLL == req->kind) {
        return mca_part_ucx_coll_prepare(req); /* every channel of this rank */
    }
    while (!mca_part_ucx_buf_ready(req) && MCA_PART_UCX_SETUP_FAILED != req->setup) {
        opal_progress();
    }
    if (MCA_PART_UCX_SETUP_FAILED == req->setup) {
        return req->error;
    }
    if (NULL != req->dev && MCA_PART_UCX_SEND == req->kind) {
        mca_part_ucx_dev_rtr(req); /* kernels of this epoch may store */
    }
    if (MCA_PART_UCX_RECV == req->kind) {
        /* The sender learns readiness from this put: make sure it is out. */
        mca_part_ucx_recv_rtr_flush(req);
        mca_part_ucx_recv_rtr_wait(req);
    }
    return MPI_SUCCESS;
}

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
