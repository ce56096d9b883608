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
#include "ompi/mpi/c/bindings.h"
#include "ompi/runtime/params.h"

#include "ompi/mpiext/part/c/mpiext_part_c.h"
#include "ompi/mpiext/part/c/mpiext_part_bindings.h"

#if OMPI_BUILD_MPI_PROFILING
#if OPAL_HAVE_WEAK_SYMBOLS
#pragma weak MPIX_Stream_comm_create = PMPIX_Stream_comm_create
#endif
#define MPIX_Stream_comm_create PMPIX_Stream_comm_create
#endif

static const char FUNC_NAME[] = "MPIX_Stream_comm_create";

/* Collective over comm, as MPI_Comm_dup: a duplicate of comm (its error
 * handler included) bound to the stream, MPIX_STREAM_NULL for none. */
int MPIX_Stream_comm_create(MPI_Comm comm, MPIX_Stream stream, MPI_Comm *newcomm)
{
    ompi_communicator_t *newcomp = NULL;
    int rc;

    MPIEXT_PART_CHECK_INIT(FUNC_NAME);
    if (MPI_PARAM_CHECK) {
        if (ompi_comm_invalid(comm)) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_COMM, FUNC_NAME);
        }
        if (NULL == newcomm) {
            return OMPI_ERRHANDLER_INVOKE(comm, MPI_ERR_ARG, FUNC_NAME);
        }
    }
    /* checked always: the new communicator holds a reference on it */
    if (MPIX_STREAM_NULL != stream && !mpiext_part_stream_valid(stream)) {
        return OMPI_ERRHANDLER_INVOKE(comm, MPI_ERR_ARG, FUNC_NAME);
    }
    rc = ompi_comm_dup(comm, &newcomp);
    if (OMPI_SUCCESS != rc) {
        return OMPI_ERRHANDLER_INVOKE(comm, rc, FUNC_NAME);
    }
    rc = mpiext_part_stream_attach(newcomp, stream);
    if (OMPI_SUCCESS != rc) {
        ompi_comm_free(&newcomp);
        return OMPI_ERRHANDLER_INVOKE(comm, rc, FUNC_NAME);
    }
    *newcomm = newcomp;
    return MPI_SUCCESS;
}
