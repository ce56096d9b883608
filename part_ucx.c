/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#include "ompi_config.h"

#include "opal/mca/common/ucx/common_ucx.h"
#include "opal/util/show_help.h"
#include "ompi/attribute/attribute.h"
#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"

#include "part_ucx.h"
#include "part_ucx_ctrl.h"
#include "part_ucx_mem.h"
#include "part_ucx_mpix.h"
#include "part_ucx_request.h"
#include "part_ucx_devreq.h"
#include "part_ucx_stream.h"


static int mca_part_ucx_pready(size_t min_part, size_t max_part, ompi_request_t *request);
static int mca_part_ucx_parrived(size_t min_part, size_t max_part, int *flag,
                                 ompi_request_t *request);

static const mca_part_ucx_ctrl_handlers_t mca_part_ucx_handlers = {
    .matched = mca_part_ucx_recv_matched,
    .answer = mca_part_ucx_send_answer,
    .rtr = mca_part_ucx_send_rtr_arrived,
    .data = mca_part_ucx_recv_data,
};

int mca_part_ucx_module_init(const mca_base_component_t *version, bool enable_mpi_threads)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    int rc;

    m->super.part_progress = mca_part_ucx_progress;
    m->super.part_precv_init = mca_part_ucx_precv_init;
    m->super.part_psend_init = mca_part_ucx_psend_init;
    m->super.part_start = mca_part_ucx_start;
    m->super.part_pready = mca_part_ucx_pready;
    m->super.part_parrived = mca_part_ucx_parrived;
    m->super.part_pbuf_prepare = mca_part_ucx_pbuf_prepare;
    m->super.part_prequest_create = mca_part_ucx_prequest_create;
    m->super.part_prequest_free = mca_part_ucx_prequest_free;
    m->super.part_pallreduce_init = mca_part_ucx_pallreduce_init;
    m->super.part_preduce_init = mca_part_ucx_preduce_init;
    m->super.part_pbcast_init = mca_part_ucx_pbcast_init;
    m->super.part_pallgather_init = mca_part_ucx_pallgather_init;
    m->super.part_palltoall_init = mca_part_ucx_palltoall_init;
    m->super.part_start_enqueue = mca_part_ucx_start_enqueue;
    m->super.part_wait_enqueue = mca_part_ucx_wait_enqueue;
    m->version = version;
    m->num_workers = m->params.num_workers;
    OBJ_CONSTRUCT(&m->lock, opal_recursive_mutex_t);
    OBJ_CONSTRUCT(&m->peers, opal_hash_table_t);
    OBJ_CONSTRUCT(&m->seq_in, opal_hash_table_t);
    OBJ_CONSTRUCT(&m->seq_out, opal_hash_table_t);
    OBJ_CONSTRUCT(&m->requests, opal_pointer_array_t);
    opal_hash_table_init(&m->peers, 64);
    opal_hash_table_init(&m->seq_in, 64);
    opal_hash_table_init(&m->seq_out, 64);
    OBJ_CONSTRUCT(&m->match, opal_hash_table_t);
    OBJ_CONSTRUCT(&m->setup_ahead, opal_hash_table_t);
    opal_hash_table_init(&m->match, 256);
    opal_hash_table_init(&m->setup_ahead, 64);
    opal_atomic_lock_init(&m->requests_lock, OPAL_ATOMIC_LOCK_UNLOCKED);
    m->comm_keyval = MPI_KEYVAL_INVALID;
    opal_pointer_array_init(&m->requests, 64, INT32_MAX, 64);
    mca_part_ucx_link_init(&m->active);
    mca_part_ucx_link_init(&m->driven);
    m->num_driven = 0;
    m->num_active = 0;
    m->initialized = true;

    rc = mca_part_ucx_context_init();
    if (OMPI_SUCCESS == rc) {
        rc = mca_part_ucx_ctrl_init(&mca_part_ucx_handlers);
    }
    if (OMPI_SUCCESS != rc) {
        mca_part_ucx_module_fini();
    }
    return rc;
}

int mca_part_ucx_module_fini(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;

    if (!m->initialized) {
        return OMPI_SUCCESS;
    }
    mca_part_ucx_stream_fini();

    if (MPI_KEYVAL_INVALID != m->comm_keyval) {
        /* attributes still set keep it until their communicators go */
        (void) ompi_attr_free_keyval(COMM_ATTR, &m->comm_keyval, false);
        (void) ompi_attr_put_ref();
        m->comm_keyval = MPI_KEYVAL_INVALID;
    }
    mca_part_ucx_ctrl_fini();
    mca_part_ucx_send_fini(); /* no callback adds to it any more */
    mca_part_ucx_dev_fini(); /* takes the module lock */
    if (NULL != m->context) {
        mca_part_ucx_mem_fini();
    }
    mca_part_ucx_context_fini();
    OBJ_DESTRUCT(&m->requests);
    OBJ_DESTRUCT(&m->setup_ahead);
    OBJ_DESTRUCT(&m->match);
    OBJ_DESTRUCT(&m->seq_out);
    OBJ_DESTRUCT(&m->seq_in);
    OBJ_DESTRUCT(&m->peers);
    OBJ_DESTRUCT(&m->lock);
    m->initialized = false;
    return OMPI_SUCCESS;
}

void mca_part_ucx_dump(void)
{
    if (mca_part_ucx_module.initialized) {
        mca_part_ucx_request_dump();
        mca_part_ucx_send_dump_words();
    }
}

int mca_part_ucx_progress(void)
{
    return mca_part_ucx_request_progress();
}

/* The framework's MPI_Pready and MPI_Parrived: checked here, then done by
 * the request's kind (the MPI layer checks only the request pointer). */
static int mca_part_ucx_pready(size_t min_part, size_t max_part, ompi_request_t *request)
{
    mca_part_ucx_request_t *req = (mca_part_ucx_request_t *) request;

    /* In a stream-ordered epoch only kernels make partitions ready: the
     * host does not know whether the stream has started the epoch. */
    if (NULL == req->ops->pready || OMPI_REQUEST_ACTIVE != req->super.req_state ||
        req->enqueued) {
        return MPI_ERR_REQUEST;
    }
    if (min_part > max_part || max_part >= req->parts) {
        return MPI_ERR_ARG;
    }
    /* a rank of a collective that only receives (a bcast's non-root) */
    return req->takes_pready ? req->ops->pready(req, min_part, max_part) : MPI_ERR_REQUEST;
}

static int mca_part_ucx_parrived(size_t min_part, size_t max_part, int *flag,
                                 ompi_request_t *request)
{
    mca_part_ucx_request_t *req = (mca_part_ucx_request_t *) request;

    if (NULL == req->ops->parrived) {
        return MPI_ERR_REQUEST;
    }
    if (min_part > max_part || max_part >= req->parts) {
        return MPI_ERR_ARG;
    }
    if (OMPI_REQUEST_ACTIVE != req->super.req_state || req->proc_null) {
        *flag = 1; /* inactive or MPI_PROC_NULL: nothing to wait for */
        return OMPI_SUCCESS;
    }
    return req->ops->parrived(req, min_part, max_part, flag);
}
