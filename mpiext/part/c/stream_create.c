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
#include "ompi/info/info.h"
#include "ompi/mpi/c/bindings.h"
#include "ompi/runtime/params.h"

#include "ompi/mpiext/part/c/mpiext_part_c.h"
#include "ompi/mpiext/part/c/mpiext_part_bindings.h"

#if OMPI_BUILD_MPI_PROFILING
#if OPAL_HAVE_WEAK_SYMBOLS
#pragma weak MPIX_Stream_create = PMPIX_Stream_create
#endif
#define MPIX_Stream_create PMPIX_Stream_create
#endif

static const char FUNC_NAME[] = "MPIX_Stream_create";

/* Info "type" "cudaStream_t" with the stream as "value" (MPIX_Info_set_hex);
 * MPI_INFO_NULL or no "type": a stream without an accelerator stream. */
int MPIX_Stream_create(MPI_Info info, MPIX_Stream *stream)
{
    int rc;

    MPIEXT_PART_CHECK_INIT(FUNC_NAME);
    if (MPI_PARAM_CHECK) {
        if (NULL == info || ompi_info_is_freed(info)) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_INFO, FUNC_NAME);
        }
        if (NULL == stream) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_ARG, FUNC_NAME);
        }
    }
    rc = mpiext_part_stream_from_info(info, stream);
    if (MPI_SUCCESS != rc) {
        return OMPI_ERRHANDLER_NOHANDLE_INVOKE(rc, FUNC_NAME);
    }
    return MPI_SUCCESS;
}
