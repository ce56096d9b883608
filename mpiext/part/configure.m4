# -*- shell-script -*-
#
# Copyright (c) 2026      The part/ucx developers. All rights reserved.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#

# OMPI_MPIEXT_part_CONFIG([action-if-found], [action-if-not-found])
# -----------------------------------------------------------------
# The partitioned extensions (MPIX_Pbuf_prepare, device requests,
# partitioned collectives) reach the selected part component through its
# module; the bindings need nothing else, so they always build. Where the
# selected component lacks an entry, the call fails with
# MPI_ERR_UNSUPPORTED_OPERATION.
AC_DEFUN([OMPI_MPIEXT_part_CONFIG], [
    AC_CONFIG_FILES([ompi/mpiext/part/Makefile])
    AC_CONFIG_FILES([ompi/mpiext/part/c/Makefile])

    AS_IF([test "$ENABLE_part" = "1" || \
           test "$ENABLE_EXT_ALL" = "1"],
          [$1],
          [$2])
])
