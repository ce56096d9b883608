/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Stream-ordered epochs (MPIX_Start_enqueue, MPIX_Wait_enqueue and their
 * *all forms; the bindings are in ompi/mpiext/part). This version refuses
 * every enqueue, as the stream-ordered path does where the device plugin
 * cannot run (no usable GPU): the extension's bindings and tests are
 * built and run against it.
 */

#include "ompi_config.h"

#include "part_ucx_device_plugin.h"
#include "part_ucx_mpix.h"

int mca_part_ucx_start_enqueue(size_t count, ompi_request_t **requests, void *stream)
{
    (void) count;
    (void) requests;
    (void) stream;
    if (NULL == mca_part_ucx_device()) {
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    return MPI_ERR_UNSUPPORTED_OPERATION;
}

int mca_part_ucx_wait_enqueue(size_t count, ompi_request_t **requests, void *stream)
{
    (void) count;
    (void) requests;
    (void) stream;
    if (NULL == mca_part_ucx_device()) {
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    return MPI_ERR_UNSUPPORTED_OPERATION;
}
