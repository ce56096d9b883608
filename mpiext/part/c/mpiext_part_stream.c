/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/* MPIX_Stream objects and stream communicators. Compiled once (not as
 * PMPIX_ and MPIX_ like the bindings): the bindings of both names share
 * the class and the keyval. */

#include "ompi_config.h"

#include <string.h>

#include "opal/class/opal_cstring.h"
#include "opal/mca/threads/mutex.h"
#include "opal/runtime/opal.h"
#include "ompi/attribute/attribute.h"
#include "ompi/instance/instance.h"

#include "ompi/mpiext/part/c/mpiext_part_c.h"
#include "ompi/mpiext/part/c/mpiext_part_stream.h"

#define MPIEXT_PART_STREAM_MAGIC UINT64_C(0x6d7069785374726d)

static void mpiext_part_stream_construct(ompi_mpix_stream_t *stream)
{
    stream->magic = MPIEXT_PART_STREAM_MAGIC;
    stream->has_gpu_stream = false;
    stream->gpu_stream = NULL;
}

static void mpiext_part_stream_destruct(ompi_mpix_stream_t *stream)
{
    stream->magic = 0;
}

OBJ_CLASS_INSTANCE(ompi_mpix_stream_t, opal_object_t, mpiext_part_stream_construct,
                   mpiext_part_stream_destruct);

/* The keyval of the stream attribute, made by the first
 * MPIX_Stream_comm_create and given back when the MPI instance ends (a
 * later instance has other keyvals). The lock guards it. */
static opal_mutex_t mpiext_part_stream_lock = OPAL_MUTEX_STATIC_INIT;
static int mpiext_part_stream_keyval = MPI_KEYVAL_INVALID;

bool mpiext_part_stream_valid(const ompi_mpix_stream_t *stream)
{
    return NULL != stream && MPIEXT_PART_STREAM_MAGIC == stream->magic;
}

static int mpiext_part_hex_digit(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* MPIX_Info_set_hex's encoding, two hex digits per byte in memory order,
 * of exactly `size` bytes. */
static bool mpiext_part_hex_decode(const char *hex, size_t len, void *out, size_t size)
{
    unsigned char *bytes = out;
    int hi, lo;

    if (len != 2 * size) {
        return false;
    }
    for (size_t i = 0; i < size; ++i) {
        hi = mpiext_part_hex_digit(hex[2 * i]);
        lo = mpiext_part_hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return false;
        }
        bytes[i] = (unsigned char) (hi << 4 | lo);
    }
    return true;
}

int mpiext_part_stream_from_info(ompi_info_t *info, ompi_mpix_stream_t **stream)
{
    opal_cstring_t *type = NULL, *value = NULL;
    ompi_mpix_stream_t *s;
    void *gpu_stream = NULL;
    int flag = 0, rc = MPI_SUCCESS;

    if (MPI_INFO_NULL != info) {
        if (OMPI_SUCCESS != ompi_info_get(info, "type", &type, &flag)) {
            return MPI_ERR_INFO;
        }
    }
    if (flag) {
        /* a CUDA stream only: another accelerator's would be handed to a
         * component that takes it for a cudaStream_t */
        if (0 != strcmp(type->string, MPIEXT_PART_STREAM_TYPE_CUDA)) {
            rc = MPI_ERR_ARG;
        } else if (OMPI_SUCCESS != ompi_info_get(info, "value", &value, &flag) || !flag ||
                   !mpiext_part_hex_decode(value->string, value->length, &gpu_stream,
                                           sizeof(gpu_stream))) {
            rc = MPI_ERR_ARG;
        }
        OBJ_RELEASE(type);
        if (NULL != value) {
            OBJ_RELEASE(value);
        }
        if (MPI_SUCCESS != rc) {
            return rc;
        }
    }
    s = OBJ_NEW(ompi_mpix_stream_t);
    if (NULL == s) {
        return MPI_ERR_NO_MEM;
    }
    /* the cudaStream_t 0, CUDA's legacy default stream, is a stream too */
    s->has_gpu_stream = (0 != flag);
    s->gpu_stream = gpu_stream;
    *stream = s;
    return MPI_SUCCESS;
}

static int mpiext_part_stream_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    ompi_mpix_stream_t *stream = value;

    (void) comm;
    (void) keyval;
    (void) extra;
    OBJ_RELEASE(stream);
    return MPI_SUCCESS;
}

/* At the end of the MPI instance (from its finalize cleanups). Stream
 * communicators still alive keep the keyval until they go. */
static void mpiext_part_stream_fini(void)
{
    OPAL_THREAD_LOCK(&mpiext_part_stream_lock);
    if (MPI_KEYVAL_INVALID != mpiext_part_stream_keyval) {
        (void) ompi_attr_free_keyval(COMM_ATTR, &mpiext_part_stream_keyval, false);
        (void) ompi_attr_put_ref();
        mpiext_part_stream_keyval = MPI_KEYVAL_INVALID;
    }
    OPAL_THREAD_UNLOCK(&mpiext_part_stream_lock);
}

int mpiext_part_stream_attach(ompi_communicator_t *comm, ompi_mpix_stream_t *stream)
{
    ompi_attribute_fn_ptr_union_t copy_fn, del_fn;
    int rc = OMPI_SUCCESS;

    if (NULL == stream) {
        return OMPI_SUCCESS;
    }
    OPAL_THREAD_LOCK(&mpiext_part_stream_lock);
    if (MPI_KEYVAL_INVALID == mpiext_part_stream_keyval) {
        /* MPI_Comm_dup of a stream communicator is an ordinary
         * communicator, as MPI_Comm_dup drops what it cannot copy */
        copy_fn.attr_communicator_copy_fn = (MPI_Comm_copy_attr_function *) MPI_COMM_NULL_COPY_FN;
        del_fn.attr_communicator_delete_fn = mpiext_part_stream_delete;
        /* a reference of our own on the attribute system, given back with
         * the keyval after the communicators' */
        rc = ompi_attr_get_ref();
        if (OMPI_SUCCESS == rc) {
            rc = ompi_attr_create_keyval(COMM_ATTR, copy_fn, del_fn, &mpiext_part_stream_keyval,
                                         NULL, 0, NULL);
            if (OMPI_SUCCESS == rc) {
                ompi_mpi_instance_append_finalize(mpiext_part_stream_fini);
            } else {
                mpiext_part_stream_keyval = MPI_KEYVAL_INVALID;
                (void) ompi_attr_put_ref();
            }
        }
    }
    if (OMPI_SUCCESS == rc) {
        OBJ_RETAIN(stream);
        rc = ompi_attr_set_c(COMM_ATTR, comm, &comm->c_keyhash, mpiext_part_stream_keyval, stream,
                             false);
        if (OMPI_SUCCESS != rc) {
            OBJ_RELEASE(stream);
        }
    }
    OPAL_THREAD_UNLOCK(&mpiext_part_stream_lock);
    return rc;
}

bool mpiext_part_stream_of_comm(ompi_communicator_t *comm, void **gpu_stream)
{
    ompi_mpix_stream_t *stream = NULL;
    int flag = 0;
    bool found = false;

    OPAL_THREAD_LOCK(&mpiext_part_stream_lock);
    if (MPI_KEYVAL_INVALID != mpiext_part_stream_keyval &&
        OMPI_SUCCESS == ompi_attr_get_c(comm->c_keyhash, mpiext_part_stream_keyval,
                                        (void **) &stream, &flag) &&
        flag && stream->has_gpu_stream) {
        *gpu_stream = stream->gpu_stream;
        found = true;
    }
    OPAL_THREAD_UNLOCK(&mpiext_part_stream_lock);
    return found;
}
