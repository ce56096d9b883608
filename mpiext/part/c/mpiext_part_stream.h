/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/* Streams of the partitioned extensions (MPIX_Stream) and the stream
 * communicators that carry them (not installed). A stream is opaque to
 * Open MPI: the accelerator's stream is kept as a pointer and handed to
 * the part component, which alone interprets it, so neither the extension
 * nor libmpi link an accelerator runtime. */

#ifndef OMPI_MPIEXT_PART_STREAM_H
#define OMPI_MPIEXT_PART_STREAM_H

#include "ompi_config.h"

#include "opal/class/opal_object.h"
#include "ompi/communicator/communicator.h"
#include "ompi/info/info.h"

/* "type" of MPIX_Stream_create's info for a CUDA stream, whose "value" is
 * the cudaStream_t in MPIX_Info_set_hex's encoding (MPICH's convention). */
#define MPIEXT_PART_STREAM_TYPE_CUDA "cudaStream_t"

struct ompi_mpix_stream_t {
    opal_object_t super;    /* reference counted: the handle and each
                               stream communicator hold one */
    uint64_t magic;         /* MPIEXT_PART_STREAM_MAGIC while alive */
    bool has_gpu_stream;    /* false: a stream without an accelerator stream */
    void *gpu_stream;       /* the cudaStream_t */
};
typedef struct ompi_mpix_stream_t ompi_mpix_stream_t;
OBJ_CLASS_DECLARATION(ompi_mpix_stream_t);

/* A handle that is not MPIX_STREAM_NULL and names a live stream (a
 * dangling handle is caught where its memory was not reused). */
bool mpiext_part_stream_valid(const ompi_mpix_stream_t *stream);

/* A new stream from MPIX_Stream_create's info (MPI_INFO_NULL: no
 * accelerator stream); an MPI error class. */
int mpiext_part_stream_from_info(ompi_info_t *info, ompi_mpix_stream_t **stream);

/* Bind `stream` (MPIX_STREAM_NULL: none) to `comm`, a communicator just
 * made: the communicator holds a reference until it is freed. An Open MPI
 * error code. */
int mpiext_part_stream_attach(ompi_communicator_t *comm, ompi_mpix_stream_t *stream);

/* The accelerator stream of comm's stream: true and *gpu_stream set where
 * comm is a stream communicator whose stream has one. */
bool mpiext_part_stream_of_comm(ompi_communicator_t *comm, void **gpu_stream);

#endif /* OMPI_MPIEXT_PART_STREAM_H */
