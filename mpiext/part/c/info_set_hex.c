/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/errhandler/errhandler.h"
#include "ompi/info/info.h"
#include "ompi/mpi/c/bindings.h"
#include "ompi/runtime/params.h"

#include "ompi/mpiext/part/c/mpiext_part_c.h"
#include "ompi/mpiext/part/c/mpiext_part_bindings.h"

#if OMPI_BUILD_MPI_PROFILING
#if OPAL_HAVE_WEAK_SYMBOLS
#pragma weak MPIX_Info_set_hex = PMPIX_Info_set_hex
#endif
#define MPIX_Info_set_hex PMPIX_Info_set_hex
#endif

static const char FUNC_NAME[] = "MPIX_Info_set_hex";

/* MPICH's encoding: two lowercase hex digits per byte, in memory order
 * (MPIX_Stream_create reads a cudaStream_t from it). The checks of
 * MPI_Info_set apply to the encoded value. */
int MPIX_Info_set_hex(MPI_Info info, const char *key, const void *value, int value_size)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *bytes = value;
    char *hex;
    size_t key_length;
    int rc;

    MPIEXT_PART_CHECK_INIT(FUNC_NAME);
    if (MPI_PARAM_CHECK) {
        if (NULL == info || MPI_INFO_NULL == info || ompi_info_is_freed(info)) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_INFO, FUNC_NAME);
        }
        key_length = (NULL == key) ? 0 : strlen(key);
        if (0 == key_length || MPI_MAX_INFO_KEY <= key_length) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_INFO_KEY, FUNC_NAME);
        }
        if (value_size < 0 || (NULL == value && value_size > 0)) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_ARG, FUNC_NAME);
        }
        if (0 == value_size || MPI_MAX_INFO_VAL / 2 <= value_size) {
            return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_INFO_VALUE, FUNC_NAME);
        }
    }
    hex = malloc(2 * (size_t) value_size + 1);
    if (NULL == hex) {
        return OMPI_ERRHANDLER_NOHANDLE_INVOKE(MPI_ERR_NO_MEM, FUNC_NAME);
    }
    for (int i = 0; i < value_size; ++i) {
        hex[2 * i] = digits[bytes[i] >> 4];
        hex[2 * i + 1] = digits[bytes[i] & 0xf];
    }
    hex[2 * (size_t) value_size] = '\0';
    rc = ompi_info_set(info, key, hex);
    free(hex);
    OMPI_ERRHANDLER_NOHANDLE_RETURN(rc, rc, FUNC_NAME);
}
