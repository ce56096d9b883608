/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Loads the device plugin (part_ucx_device.h) the first time a collective
 * has GPU buffers, and maps MPI ops and datatypes onto its kernels.
 */

#include "ompi_config.h"

#include "opal/mca/accelerator/accelerator.h"
#include "opal/mca/dl/base/base.h"
#include "opal/mca/installdirs/installdirs.h"
#include "opal/util/show_help.h"
#include "opal/util/printf.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include "part_ucx.h"
#include "part_ucx_device.h"
#include "part_ucx_device_plugin.h"

static opal_mutex_t mca_part_ucx_device_lock = OPAL_MUTEX_STATIC_INIT;
static const mca_part_ucx_device_ops_t *mca_part_ucx_device_table = NULL;
/* Never closed: the CUDA runtime inside may still run exit handlers. */
static opal_dl_handle_t *mca_part_ucx_device_handle = NULL;
static bool mca_part_ucx_device_tried = false;

static const mca_part_ucx_device_ops_t *mca_part_ucx_device_open(void)
{
    const mca_part_ucx_device_ops_t *(*entry)(void) = NULL;
    const mca_part_ucx_device_ops_t *ops = NULL;
    char *path = NULL, *err = NULL;

    opal_asprintf(&path, "%s/part_ucx_device.so", opal_install_dirs.opallibdir);
    if (NULL == path) {
        return NULL;
    }
    if (OPAL_SUCCESS != opal_dl_open(path, false, true, &mca_part_ucx_device_handle, &err)) {
        opal_show_help("help-part-ucx.txt", "device plugin", true, path,
                       (NULL != err) ? err : "cannot be opened");
    } else if (OPAL_SUCCESS != opal_dl_lookup(mca_part_ucx_device_handle,
                                              MCA_PART_UCX_DEVICE_SYMBOL, (void **) &entry,
                                              &err) ||
               NULL == (ops = entry()) || MCA_PART_UCX_DEVICE_ABI != ops->abi) {
        opal_show_help("help-part-ucx.txt", "device plugin", true, path,
                       "not a part/ucx device plugin of this version");
        ops = NULL;
        opal_dl_close(mca_part_ucx_device_handle);
        mca_part_ucx_device_handle = NULL;
    } else {
        MCA_PART_UCX_VERBOSE(5, "device plugin %s loaded", path);
    }
    free(err);
    free(path);
    return ops;
}

const mca_part_ucx_device_ops_t *mca_part_ucx_device(void)
{
    OPAL_THREAD_LOCK(&mca_part_ucx_device_lock);
    if (!mca_part_ucx_device_tried) {
        mca_part_ucx_device_tried = true; /* one message, not one per collective */
        mca_part_ucx_device_table = mca_part_ucx_device_open();
    }
    OPAL_THREAD_UNLOCK(&mca_part_ucx_device_lock);
    return mca_part_ucx_device_table;
}

/* CUDA events and streams outlive the collectives that used them:
 * creating them at every MPIX_P*_init (an event per partition) cost more
 * than the rest of the init. A collective returns them once its GPU work
 * is complete (its requests cannot be freed while active). */
typedef struct {
    void **items;
    size_t count, size;
} mca_part_ucx_handle_pool_t;

static mca_part_ucx_handle_pool_t mca_part_ucx_events, mca_part_ucx_streams;

static int mca_part_ucx_pool_get(mca_part_ucx_handle_pool_t *pool, void **item,
                                 int (*create)(void **))
{
    int rc = 0;

    OPAL_THREAD_LOCK(&mca_part_ucx_device_lock);
    if (pool->count > 0) {
        *item = pool->items[--pool->count];
    } else {
        rc = create(item);
    }
    OPAL_THREAD_UNLOCK(&mca_part_ucx_device_lock);
    return rc;
}

static void mca_part_ucx_pool_put(mca_part_ucx_handle_pool_t *pool, void *item,
                                  void (*destroy)(void *))
{
    OPAL_THREAD_LOCK(&mca_part_ucx_device_lock);
    if (!mca_part_ucx_grow((void **) &pool->items, pool->count, &pool->size, sizeof(void *))) {
        destroy(item);
        OPAL_THREAD_UNLOCK(&mca_part_ucx_device_lock);
        return;
    }
    pool->items[pool->count++] = item;
    OPAL_THREAD_UNLOCK(&mca_part_ucx_device_lock);
}

int mca_part_ucx_device_event_get(void **event)
{
    return mca_part_ucx_pool_get(&mca_part_ucx_events, event,
                                 mca_part_ucx_device_table->event_create);
}

void mca_part_ucx_device_event_put(void *event)
{
    mca_part_ucx_pool_put(&mca_part_ucx_events, event, mca_part_ucx_device_table->event_destroy);
}

int mca_part_ucx_device_stream_get(void **stream)
{
    return mca_part_ucx_pool_get(&mca_part_ucx_streams, stream,
                                 mca_part_ucx_device_table->stream_create);
}

void mca_part_ucx_device_stream_put(void *stream)
{
    mca_part_ucx_pool_put(&mca_part_ucx_streams, stream,
                          mca_part_ucx_device_table->stream_destroy);
}

/* The stream of mca_part_ucx_device_copy_in, taken from the pool once. */
static void *mca_part_ucx_copy_in_stream = NULL;

/* The copy-in stream, made on first use; NULL without the plugin. */
static void *mca_part_ucx_copy_in_get(const mca_part_ucx_device_ops_t *gpu)
{
    void *stream;

    OPAL_THREAD_LOCK(&mca_part_ucx_device_lock);
    if (NULL == mca_part_ucx_copy_in_stream &&
        0 != gpu->stream_create(&mca_part_ucx_copy_in_stream)) {
        mca_part_ucx_copy_in_stream = NULL;
    }
    stream = mca_part_ucx_copy_in_stream;
    OPAL_THREAD_UNLOCK(&mca_part_ucx_device_lock);
    return stream;
}

void mca_part_ucx_device_copy_in_warm(void)
{
    const mca_part_ucx_device_ops_t *gpu = mca_part_ucx_device();

    if (NULL != gpu) {
        (void) mca_part_ucx_copy_in_get(gpu);
    }
}

int mca_part_ucx_device_copy_in(void *dst, const void *src, size_t len)
{
    const mca_part_ucx_device_ops_t *gpu = mca_part_ucx_device();
    void *stream;

    if (NULL == gpu) {
        return opal_accelerator.mem_copy(MCA_ACCELERATOR_NO_DEVICE_ID,
                                         MCA_ACCELERATOR_NO_DEVICE_ID, dst, src, len,
                                         MCA_ACCELERATOR_TRANSFER_HTOD);
    }
    stream = mca_part_ucx_copy_in_get(gpu);
    /* concurrent callers share the stream: each waits for its copy */
    if (NULL == stream || 0 != gpu->copy(dst, src, len, stream) ||
        0 != gpu->stream_sync(stream)) {
        MCA_PART_UCX_ERROR("GPU copy of a partition failed: %s", gpu->last_error());
        return OPAL_ERROR;
    }
    return OPAL_SUCCESS;
}

static void mca_part_ucx_pool_destroy(mca_part_ucx_handle_pool_t *pool, void (*destroy)(void *))
{
    while (pool->count > 0) {
        destroy(pool->items[--pool->count]);
    }
    free(pool->items);
    pool->items = NULL;
    pool->size = 0;
}

void mca_part_ucx_device_fini(void)
{
    const mca_part_ucx_device_ops_t *gpu = mca_part_ucx_device_table;

    if (NULL == gpu) {
        return; /* never loaded: nothing was created */
    }
    OPAL_THREAD_LOCK(&mca_part_ucx_device_lock);
    mca_part_ucx_pool_destroy(&mca_part_ucx_events, gpu->event_destroy);
    mca_part_ucx_pool_destroy(&mca_part_ucx_streams, gpu->stream_destroy);
    if (NULL != mca_part_ucx_copy_in_stream) {
        gpu->stream_destroy(mca_part_ucx_copy_in_stream);
        mca_part_ucx_copy_in_stream = NULL;
    }
    OPAL_THREAD_UNLOCK(&mca_part_ucx_device_lock);
}

int mca_part_ucx_device_dt(ompi_datatype_t *dtype)
{
    static const struct {
        ompi_datatype_t *type;
        int kind; /* 0 signed, 1 unsigned, 2 floating point */
    } table[] = {
        {MPI_SIGNED_CHAR, 0}, {MPI_SHORT, 0}, {MPI_INT, 0}, {MPI_LONG, 0},
        {MPI_LONG_LONG, 0}, {MPI_INT8_T, 0}, {MPI_INT16_T, 0}, {MPI_INT32_T, 0},
        {MPI_INT64_T, 0}, {MPI_AINT, 0}, {MPI_OFFSET, 0}, {MPI_COUNT, 0},
        {MPI_UNSIGNED_CHAR, 1}, {MPI_UNSIGNED_SHORT, 1}, {MPI_UNSIGNED, 1},
        {MPI_UNSIGNED_LONG, 1}, {MPI_UNSIGNED_LONG_LONG, 1}, {MPI_UINT8_T, 1},
        {MPI_UINT16_T, 1}, {MPI_UINT32_T, 1}, {MPI_UINT64_T, 1}, {MPI_BYTE, 1},
        {MPI_C_BOOL, 1}, {MPI_FLOAT, 2}, {MPI_DOUBLE, 2},
    };
    size_t i, size = 0;
    int log2 = 0;

    ompi_datatype_type_size(dtype, &size);
    for (i = 0; i < sizeof(table) / sizeof(table[0]); ++i) {
        if (table[i].type != dtype) {
            continue;
        }
        if (2 == table[i].kind) {
            return (4 == size) ? MCA_PART_UCX_DT_FLOAT : MCA_PART_UCX_DT_DOUBLE;
        }
        while ((size_t) 1 << log2 < size) {
            ++log2;
        }
        if (log2 > 3 || (size_t) 1 << log2 != size) {
            return -1;
        }
        return (0 == table[i].kind ? MCA_PART_UCX_DT_INT8 : MCA_PART_UCX_DT_UINT8) + log2;
    }
    return -1;
}

int mca_part_ucx_device_op(ompi_op_t *op)
{
    if (NULL == op || !ompi_op_is_intrinsic(op) || op->op_type < OMPI_OP_MAX ||
        op->op_type > OMPI_OP_BXOR) {
        return -1; /* user-defined, MAXLOC/MINLOC, REPLACE/NO_OP */
    }
    return (int) op->op_type; /* mca_part_ucx_opk_t follows enum ompi_op_type */
}
