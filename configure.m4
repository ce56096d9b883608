# -*- shell-script -*-
#
# Copyright (c) 2026      The part/ucx developers. All rights reserved.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#

# The component is linked into libmpi (the framework's default) rather than
# built as a DSO: the MPIX_ partitioned extensions it defines must resolve
# with a plain `mpicc` link. It needs UCX and never links the CUDA runtime;
# CUDA code is compiled by nvcc only into the separate device plugin.

# MCA_ompi_part_ucx_CONFIG([action-if-can-compile],
#                          [action-if-cant-compile])
# ------------------------------------------------
AC_DEFUN([MCA_ompi_part_ucx_CONFIG], [
    AC_CONFIG_FILES([ompi/mca/part/ucx/Makefile])

    OMPI_CHECK_UCX([part_ucx],
                   [part_ucx_happy="yes"],
                   [part_ucx_happy="no"])

    AS_IF([test "$part_ucx_happy" = "yes"],
          [OPAL_MCA_CHECK_DEPENDENCY([ompi], [part], [ucx], [opal], [common], [ucx])])

    # nvcc compiles the device plugin only when Open MPI itself was
    # configured with CUDA.
    part_ucx_nvcc=
    AS_IF([test "$part_ucx_happy" = "yes" && test "x$CUDA_SUPPORT" = "x1"],
          [AC_PATH_PROG([part_ucx_nvcc], [nvcc], [],
                        [$with_cuda/bin$PATH_SEPARATOR$PATH])])
    AM_CONDITIONAL([PART_UCX_HAVE_NVCC], [test -n "$part_ucx_nvcc"])
    AC_SUBST([PART_UCX_NVCC], [$part_ucx_nvcc])
    AC_SUBST([PART_UCX_CUDA_DIR], [$with_cuda])

    AS_IF([test "$part_ucx_happy" = "yes"],
          [$1],
          [$2])

    AC_SUBST([part_ucx_CPPFLAGS])
    AC_SUBST([part_ucx_LDFLAGS])
    AC_SUBST([part_ucx_LIBS])
])dnl
