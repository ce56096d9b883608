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
#pragma weak MPIX_Prequest_free = PMPIX_Prequest_free
#endif
#define MPIX_Prequest_free PMPIX_Prequest_free
#endif

static const char FUNC_NAME[] = "MPIX_Prequest_free";

int MPIX_Prequest_free(MPIX_Prequest *preq)
{
    ompi_request_t *request = NULL;
    int rc;

    MPIEXT_PART_CHECK_INIT(FUNC_NAME);
    if (MPI_PARAM_CHECK) {
        if (NULL == preq || NULL == *preq) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_ARG, FUNC_NAME);
        }
    }
    if (NULL == mca_part.part_prequest_free) {
        return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_UNSUPPORTED_OPERATION, FUNC_NAME);
    }
    /* The component names the request the handle belongs to, whose
     * communicator's handler reports the error; a handle it does not
     * know has none. */
    rc = mca_part.part_prequest_free(preq, &request);
    if (MPI_SUCCESS != rc) {
        return mpiext_part_request_error(request, rc, FUNC_NAME);
    }
    return MPI_SUCCESS;
}
