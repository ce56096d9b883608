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
#pragma weak MPIX_Pbcast_init = PMPIX_Pbcast_init
#endif
#define MPIX_Pbcast_init PMPIX_Pbcast_init
#endif

static const char FUNC_NAME[] = "MPIX_Pbcast_init";

/* The component checks the arguments other than the communicator: every
 * rank joins its agreement at init, so that an invalid argument on one
 * rank fails the call on all of them instead of leaving them waiting. */
int MPIX_Pbcast_init(void *buffer, int partitions, int count, MPI_Datatype datatype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc;

    MPIEXT_PART_CHECK_INIT(FUNC_NAME);
    if (MPI_PARAM_CHECK) {
        if (ompi_comm_invalid(comm)) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_COMM, FUNC_NAME);
        }
    }
    if (NULL == mca_part.part_pbcast_init) {
        return OMPI_ERRHANDLER_INVOKE(comm, MPI_ERR_UNSUPPORTED_OPERATION, FUNC_NAME);
    }
    rc = mca_part.part_pbcast_init(buffer, partitions, count, datatype, root, comm, info, request);
    OMPI_ERRHANDLER_RETURN(rc, comm, rc, FUNC_NAME);
}
