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
#pragma weak MPIX_Startall_enqueue = PMPIX_Startall_enqueue
#endif
#define MPIX_Startall_enqueue PMPIX_Startall_enqueue
#endif

static const char FUNC_NAME[] = "MPIX_Startall_enqueue";

int MPIX_Startall_enqueue(int count, MPI_Request array_of_requests[])
{
    MPIEXT_PART_CHECK_INIT(FUNC_NAME);
    if (MPI_PARAM_CHECK) {
        if (count < 0) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_COUNT, FUNC_NAME);
        }
        if (NULL == array_of_requests && count > 0) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_ARG, FUNC_NAME);
        }
    }
    return mpiext_part_enqueue(count, array_of_requests, true, FUNC_NAME);
}
