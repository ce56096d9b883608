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

#include "part_ucx.h"
#include "part_ucx_request.h"
#include "part_ucx_coll.h"

static bool mca_part_ucx_buf_ready(const mca_part_ucx_request_t *req)
{
    if (MCA_PART_UCX_SEND == req->kind) {
        return mca_part_ucx_receiver_ready(req);
    }
    return MCA_PART_UCX_SETUP_DONE == req->setup;
}

/* MPIX_Pbuf_prepare of one request (the module's part_pbuf_prepare; the
 * binding is in ompi/mpiext/part). */
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
