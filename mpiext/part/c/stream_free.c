/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#include "ompi_config.h"

#include "ompi/errhandler/errhandler.h"
#include "ompi/mpi/c/bindings.h"
#include "ompi/runtime/params.h"

#include "ompi/mpiext/part/c/mpiext_part_c.h"
#include "ompi/mpiext/part/c/mpiext_part_bindings.h"

#if OMPI_BUILD_MPI_PROFILING
#if OPAL_HAVE_WEAK_SYMBOLS
#pragma weak MPIX_Stream_free = PMPIX_Stream_free
#endif
#define MPIX_Stream_free PMPIX_Stream_free
#endif

static const char FUNC_NAME[] = "MPIX_Stream_free";

/* Drops the handle's reference: stream communicators made from the stream
 * keep it until they are freed. */
int MPIX_Stream_free(MPIX_Stream *stream)
{
    MPIEXT_PART_CHECK_INIT(FUNC_NAME);
    /* checked always: a freed stream is released once more otherwise */
    if (NULL == stream || !mpiext_part_stream_valid(*stream)) {
        return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_ARG, FUNC_NAME);
    }
    OBJ_RELEASE(*stream);
    *stream = MPIX_STREAM_NULL;
    return MPI_SUCCESS;
}
