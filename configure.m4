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
    OPAL_VAR_SCOPE_PUSH([part_ucx_save_CPPFLAGS part_ucx_missing part_ucx_device_api])

    OMPI_CHECK_UCX([part_ucx],
                   [part_ucx_happy="yes"],
                   [part_ucx_happy="no"])

    # UCX's headers are system headers to this component: the warnings they
    # raise in its code (UCX 1.22's ucs/sys/compiler_def.h trips
    # -Wsign-compare) are UCX's, and the component's own code stays
    # warning-free under -Wall -Wextra.
    part_ucx_CPPFLAGS=`echo " $part_ucx_CPPFLAGS" | sed 's/ -I */ -isystem /g'`

    part_ucx_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $part_ucx_CPPFLAGS"

    # What the component calls: active messages with the rendezvous receive,
    # direct access to remote memory, memory queries.
    part_ucx_missing=
    AS_IF([test "$part_ucx_happy" = "yes"],
          [m4_foreach([part_ucx_decl],
                      [[ucp_am_send_nbx], [ucp_am_recv_data_nbx],
                       [ucp_worker_set_am_recv_handler], [UCP_AM_RECV_ATTR_FLAG_RNDV],
                       [ucp_rkey_ptr], [ucp_mem_query]],
                      [AC_CHECK_DECL(part_ucx_decl, [],
                                     [part_ucx_missing="$part_ucx_missing part_ucx_decl"],
                                     [[#include <ucp/api/ucp.h>]])
                      ])
           AS_IF([test -n "$part_ucx_missing"],
                 [AC_MSG_WARN([UCX lacks$part_ucx_missing: part/ucx is not built])
                  part_ucx_happy="no"])])

    # GPU buffers of peers on the node: cuda_ipc's rkey_ptr (UCX >= 1.21)
    # lets kernels (kernel copy) and the host (host copy) store into them.
    AS_IF([test "$part_ucx_happy" = "yes"],
          [AC_MSG_CHECKING([whether UCX's cuda_ipc maps peer GPU buffers (rkey_ptr, UCX >= 1.21)])
           AC_PREPROC_IFELSE([AC_LANG_PROGRAM([[#include <ucp/api/ucp_version.h>]], [[
#if UCP_API_VERSION < UCP_VERSION(1, 21)
#error "UCX older than 1.21"
#endif
                              ]])],
                             [AC_MSG_RESULT([yes])],
                             [AC_MSG_RESULT([no])
                              AC_MSG_WARN([UCX < 1.21 has no cuda_ipc rkey_ptr (ucx-patches/README): device requests use the progress engine and GPU data moves by UCX rendezvous, with no kernel copy or host copy])])])

    # UCX's device API (kernel-initiated transfers), for the device path.
    part_ucx_device_api=0
    AS_IF([test "$part_ucx_happy" = "yes"],
          [AC_CHECK_HEADER([ucp/api/device/ucp_host.h],
                           [AC_CHECK_DECL([ucp_device_remote_mem_list_create],
                                          [part_ucx_device_api=1], [],
                                          [[#include <ucp/api/ucp.h>
#include <ucp/api/device/ucp_host.h>]])])
           AC_MSG_CHECKING([whether part/ucx can use UCX's device API])
           AS_IF([test "$part_ucx_device_api" = "1"],
                 [AC_MSG_RESULT([yes])],
                 [AC_MSG_RESULT([no (ucp/api/device/ucp_host.h of UCX >= 1.21 missing)])])])
    AC_DEFINE_UNQUOTED([PART_UCX_HAVE_UCP_DEVICE_API], [$part_ucx_device_api],
                       [Whether UCX's device API (ucp/api/device/ucp_host.h) is available])

    CPPFLAGS=$part_ucx_save_CPPFLAGS

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
    # The plugin is compiled for several GPU architectures: nvcc (>= 11.3)
    # compiles them in parallel with --threads, which keeps a build's other
    # cores busy while make waits on this one target.
    part_ucx_nvcc_threads=
    AS_IF([test -n "$part_ucx_nvcc"],
          [AC_MSG_CHECKING([whether nvcc accepts --threads])
           AS_IF(["$part_ucx_nvcc" --threads 0 --version >/dev/null 2>&1],
                 [part_ucx_nvcc_threads="--threads 0"
                  AC_MSG_RESULT([yes])],
                 [AC_MSG_RESULT([no])])])
    AC_SUBST([PART_UCX_NVCC_THREADS], [$part_ucx_nvcc_threads])
    AC_SUBST([PART_UCX_CUDA_DIR], [$with_cuda])

    AS_IF([test "$part_ucx_happy" = "yes"],
          [$1],
          [$2])

    AC_SUBST([part_ucx_CPPFLAGS])
    AC_SUBST([part_ucx_LDFLAGS])
    AC_SUBST([part_ucx_LIBS])
    OPAL_VAR_SCOPE_POP
])dnl
