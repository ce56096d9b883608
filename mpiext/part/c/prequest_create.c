/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#include "ompi_config.h"

#include "ompi/communicator/communicator.h"
#include "ompi/errhandler/errhandler.h"
#include "ompi/mca/part/part.h"
#include "ompi/mpi/c/bindings.h"
#include "ompi/runtime/params.h"

#include "ompi/mpiext/part/c/mpiext_part_c.h"
#include "ompi/mpiext/part/c/mpiext_part_bindings.h"

#if OMPI_BUILD_MPI_PROFILING
#if OPAL_HAVE_WEAK_SYMBOLS
#pragma weak MPIX_Prequest_create_layout = PMPIX_Prequest_create_layout
#endif
#define MPIX_Prequest_create_layout PMPIX_Prequest_create_layout
#endif

static const char FUNC_NAME[] = "MPIX_Prequest_create";

/* MPIX_Prequest_create(request, preq) expands to this call with the
 * layout of the device request the program was compiled against
 * (mpiext_part_c.h); the component refuses one it does not have. */
int MPIX_Prequest_create_layout(MPI_Request request, MPIX_Prequest *preq, int layout)
{
    int rc;

    MPIEXT_PART_CHECK_INIT(FUNC_NAME);
    if (MPI_PARAM_CHECK) {
        if (NULL == request || MPI_REQUEST_NULL == request ||
            OMPI_REQUEST_PART != request->req_type) {
            return mpiext_part_request_error(request, MPI_ERR_REQUEST, FUNC_NAME);
        }
        if (NULL == preq) {
            return mpiext_part_request_error(request, MPI_ERR_ARG, FUNC_NAME);
        }
    }
    if (NULL == mca_part.part_prequest_create) {
        return mpiext_part_request_error(request, MPI_ERR_UNSUPPORTED_OPERATION, FUNC_NAME);
    }
    rc = mca_part.part_prequest_create(request, layout, preq);
    if (MPI_SUCCESS != rc) {
        return mpiext_part_request_error(request, rc, FUNC_NAME);
    }
    return MPI_SUCCESS;
}
