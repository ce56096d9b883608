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
#pragma weak MPIX_Wait_enqueue = PMPIX_Wait_enqueue
#endif
#define MPIX_Wait_enqueue PMPIX_Wait_enqueue
#endif

static const char FUNC_NAME[] = "MPIX_Wait_enqueue";

/* The status is not written: nothing is known of the epoch when the wait
 * is enqueued. */
int MPIX_Wait_enqueue(MPI_Request *request, MPI_Status *status)
{
    (void) status;
    MPIEXT_PART_CHECK_INIT(FUNC_NAME);
    if (MPI_PARAM_CHECK) {
        if (NULL == request) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_ARG, FUNC_NAME);
        }
    }
    return mpiext_part_enqueue(1, request, false, FUNC_NAME);
}
