/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/* What the bindings of the partitioned extensions share (not installed). */

#ifndef OMPI_MPIEXT_PART_BINDINGS_H
#define OMPI_MPIEXT_PART_BINDINGS_H

#include "ompi_config.h"

#include "ompi/communicator/communicator.h"
#include "ompi/errhandler/errhandler.h"
#include "ompi/instance/instance.h"
#include "ompi/mca/part/part.h"
#include "ompi/request/request.h"
#include "ompi/runtime/params.h"

#include "ompi/mpiext/part/c/mpiext_part_stream.h"

/* Before MPI is initialized or after it is finalized there is no MPI
 * instance, and no part component: the call raises MPI_ERR_ARG on the
 * initial error handler (MPI 4.1, section 9.3) and returns without
 * touching its arguments. (OMPI_ERR_INIT_FINALIZE goes on after a handler
 * that returns.) Checked with or without MPI_PARAM_CHECK: the entries of
 * mca_part are not there to call. */
#define MPIEXT_PART_CHECK_INIT(name)                                        \
    do {                                                                    \
        if (OPAL_UNLIKELY(0 == ompi_instance_count)) {                      \
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_ARG, (name));    \
        }                                                                   \
    } while (0)

/* An error about a request goes to its communicator's error handler where
 * it is a partitioned request (its communicator is known), otherwise to
 * the handler for errors without a handle. */
static inline int mpiext_part_request_error(ompi_request_t *request, int rc, const char *name)
{
    if (NULL != request && MPI_REQUEST_NULL != request &&
        OMPI_REQUEST_PART == request->req_type && NULL != request->req_mpi_object.comm) {
        return OMPI_ERRHANDLER_INVOKE(request->req_mpi_object.comm, rc, name);
    }
    return OMPI_ERRHANDLER_NOHANDLE_INVOKE(rc, name);
}

/* MPIX_Pbuf_prepare(all): each request in turn, through the selected
 * component; the first error ends the call. */
static inline int mpiext_part_pbuf_prepare(int count, MPI_Request requests[], const char *name)
{
    int i, rc;

    for (i = 0; MPI_PARAM_CHECK && i < count; ++i) {
        if (NULL == requests[i] || MPI_REQUEST_NULL == requests[i] ||
            OMPI_REQUEST_PART != requests[i]->req_type) {
            return mpiext_part_request_error(requests[i], MPI_ERR_REQUEST, name);
        }
    }
    if (NULL == mca_part.part_pbuf_prepare) {
        return mpiext_part_request_error(0 < count ? requests[0] : NULL,
                                         MPI_ERR_UNSUPPORTED_OPERATION, name);
    }
    for (i = 0; i < count; ++i) {
        rc = mca_part.part_pbuf_prepare(requests[i]);
        if (MPI_SUCCESS != rc) {
            return mpiext_part_request_error(requests[i], rc, name);
        }
    }
    return MPI_SUCCESS;
}

/* MPIX_Start(all)_enqueue and MPIX_Wait(all)_enqueue: partitioned
 * requests (checked always, not only with MPI_PARAM_CHECK: their
 * communicator names the stream), each on a communicator whose stream has
 * an accelerator stream, all on the same accelerator stream; then the
 * selected component's entry with that stream. */
static inline int mpiext_part_enqueue(int count, MPI_Request requests[], bool start,
                                      const char *name)
{
    mca_part_base_module_start_enqueue_fn_t fn;
    void *stream = NULL, *s;
    int i, rc;

    for (i = 0; i < count; ++i) {
        if (NULL == requests[i] || MPI_REQUEST_NULL == requests[i] ||
            OMPI_REQUEST_PART != requests[i]->req_type) {
            return mpiext_part_request_error(requests[i], MPI_ERR_REQUEST, name);
        }
    }
    for (i = 0; i < count; ++i) {
        if (!mpiext_part_stream_of_comm(requests[i]->req_mpi_object.comm, &s) ||
            (i > 0 && s != stream)) {
            return mpiext_part_request_error(requests[i], MPI_ERR_ARG, name);
        }
        stream = s;
    }
    fn = start ? mca_part.part_start_enqueue : mca_part.part_wait_enqueue;
    if (NULL == fn) {
        return mpiext_part_request_error(0 < count ? requests[0] : NULL,
                                         MPI_ERR_UNSUPPORTED_OPERATION, name);
    }
    if (count <= 0) {
        return MPI_SUCCESS;
    }
    rc = fn((size_t) count, requests, stream);
    if (MPI_SUCCESS != rc) {
        return mpiext_part_request_error(requests[0], rc, name);
    }
    return MPI_SUCCESS;
}

#endif /* OMPI_MPIEXT_PART_BINDINGS_H */
