/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The MPIX_ partitioned extensions are declared in <mpi-ext.h> (the MPI
 * extension "part", OMPI_HAVE_MPI_EXT_PART); this header includes it, for
 * programs written against part/ucx, and says that part/ucx is installed
 * (MPIX_PART_UCX). Device functions: mpix_part_device.h.
 */

#ifndef MPIX_PART_H
#define MPIX_PART_H

#include <mpi.h>
#include <mpi-ext.h>

#if !defined(OMPI_HAVE_MPI_EXT_PART)
#error "this Open MPI was built without the MPI extension part (configure --enable-mpi-ext)"
#endif

#define MPIX_PART_UCX 1

#endif /* MPIX_PART_H */
