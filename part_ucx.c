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
#include "part_ucx_coll.h"

mca_part_ucx_module_t mca_part_ucx_module = {
    .super = {
        .part_progress = mca_part_ucx_progress,
        .part_precv_init = mca_part_ucx_precv_init,
        .part_psend_init = mca_part_ucx_psend_init,
        .part_start = mca_part_ucx_start,
        .part_pready = mca_part_ucx_pready,
        .part_parrived = mca_part_ucx_parrived,
        .part_pbuf_prepare = mca_part_ucx_pbuf_prepare,
        .part_prequest_create = mca_part_ucx_prequest_create,
        .part_prequest_free = mca_part_ucx_prequest_free,
        .part_pallreduce_init = mca_part_ucx_pallreduce_init,
        .part_preduce_init = mca_part_ucx_preduce_init,
        .part_pbcast_init = mca_part_ucx_pbcast_init,
        .part_pallgather_init = mca_part_ucx_pallgather_init,
        .part_palltoall_init = mca_part_ucx_palltoall_init,
    },
};

static int mca_part_ucx_context_init(void)
{
    ucp_params_t params = {0};
    ucp_config_t *config;
    ucs_status_t status;

    status = ucp_config_read("MPI", NULL, &config);
    if (UCS_OK != status) {
        opal_show_help("help-part-ucx.txt", "ucx init failed", true,
                       "ucp_config_read", ucs_status_string(status));
        return OMPI_ERROR;
    }

    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                        UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AM;
    params.mt_workers_shared = 0; /* each worker protects itself */
    params.estimated_num_eps = ompi_proc_world_size();

    status = ucp_init(&params, config, &mca_part_ucx_module.context);
    ucp_config_release(config);
    if (UCS_OK != status) {
        opal_show_help("help-part-ucx.txt", "ucx init failed", true, "ucp_init",
                       ucs_status_string(status));
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

/* Transports of the context, read from ucp_context_print_info's resource
 * lines ("# resource 3 : md 2 dev 3 flags -- sysv/memory") as
 * opal_common_ucx_support_level reads them. */
static void mca_part_ucx_scan_transports(mca_part_ucx_module_t *m)
{
    static const char *const shm[] = {"sysv", "posix", "xpmem", "cma", "knem", NULL};
    static const char *const rdma[] = {"rc_verbs", "rc_mlx5", "dc_mlx5", NULL};
    char *buffer = NULL, line[256], tl[64];
    size_t size = 0;
    FILE *stream = open_memstream(&buffer, &size);
    int i;

    m->rma_local = m->rma_remote = true; /* unknown: as UCX 1.13 would do */
    if (NULL == stream) {
        return;
    }
    ucp_context_print_info(m->context, stream);
    fflush(stream);
    m->rma_local = m->rma_remote = false;
    rewind(stream);
    while (NULL != fgets(line, sizeof(line), stream)) {
        if (1 != sscanf(line, "# resource %*d : md %*d dev %*d flags -- %63[^/ \n\r]", tl)) {
            continue;
        }
        for (i = 0; NULL != shm[i]; ++i) {
            m->rma_local = m->rma_local || 0 == strcmp(tl, shm[i]);
        }
        for (i = 0; NULL != rdma[i]; ++i) {
            m->rma_remote = m->rma_remote || 0 == strcmp(tl, rdma[i]);
        }
    }
    fclose(stream);
    free(buffer);
    MCA_PART_UCX_VERBOSE(5, "RMA without the target's progress: this node %s, other nodes %s",
                         m->rma_local ? "yes" : "no", m->rma_remote ? "yes" : "no");
}

static int mca_part_ucx_workers_init(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    ucp_worker_params_t params = {0};
    ucp_worker_attr_t attr;
    ucs_status_t status;
    int i;

    m->workers = calloc(m->num_workers, sizeof(*m->workers));
    if (NULL == m->workers) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }

    params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    params.thread_mode = opal_common_ucx_thread_mode(ompi_mpi_thread_provided);
    for (i = 0; i < m->num_workers; ++i) {
        status = ucp_worker_create(m->context, &params, &m->workers[i]);
        if (UCS_OK != status) {
            opal_show_help("help-part-ucx.txt", "ucx init failed", true,
                           "ucp_worker_create", ucs_status_string(status));
            return OMPI_ERROR;
        }
        /* As pml/ucx: a UCX built without thread support grants less than
         * asked, and MPI_THREAD_MULTIPLE would then race inside the worker;
         * decline, so that another part component is selected. */
        attr.field_mask = UCP_WORKER_ATTR_FIELD_THREAD_MODE;
        status = ucp_worker_query(m->workers[i], &attr);
        if (UCS_OK != status || attr.thread_mode < params.thread_mode) {
            MCA_PART_UCX_ERROR("the UCP worker does not support the thread level of this "
                               "process (MPI_THREAD_MULTIPLE needs a UCX built with "
                               "--enable-mt): part/ucx declines");
            return OMPI_ERR_NOT_SUPPORTED;
        }
    }
    return OMPI_SUCCESS;
}

int mca_part_ucx_module_init(bool enable_mpi_threads)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    int rc;

    m->num_workers = mca_part_ucx_component.num_workers;
    OBJ_CONSTRUCT(&m->lock, opal_recursive_mutex_t);
    OBJ_CONSTRUCT(&m->peers, opal_hash_table_t);
    OBJ_CONSTRUCT(&m->seq_in, opal_hash_table_t);
    OBJ_CONSTRUCT(&m->seq_out, opal_hash_table_t);
    OBJ_CONSTRUCT(&m->requests, opal_pointer_array_t);
    opal_hash_table_init(&m->peers, 64);
    opal_hash_table_init(&m->seq_in, 64);
    opal_hash_table_init(&m->seq_out, 64);
    OBJ_CONSTRUCT(&m->match, opal_hash_table_t);
    OBJ_CONSTRUCT(&m->held, opal_hash_table_t);
    opal_hash_table_init(&m->match, 256);
    opal_hash_table_init(&m->held, 64);
    opal_atomic_lock_init(&m->requests_lock, OPAL_ATOMIC_LOCK_UNLOCKED);
    m->comm_keyval = MPI_KEYVAL_INVALID;
    opal_pointer_array_init(&m->requests, 64, INT32_MAX, 64);
    mca_part_ucx_link_init(&m->active);
    m->num_active = 0;
    m->initialized = true;

    rc = mca_part_ucx_context_init();
    if (OMPI_SUCCESS == rc) {
        mca_part_ucx_scan_transports(m);
        rc = mca_part_ucx_workers_init();
    }
    if (OMPI_SUCCESS == rc) {
        rc = mca_part_ucx_ctrl_init();
    }
    if (OMPI_SUCCESS != rc) {
        mca_part_ucx_module_fini();
    }
    return rc;
}

int mca_part_ucx_module_fini(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    int i;

    if (!m->initialized) {
        return OMPI_SUCCESS;
    }

    if (MPI_KEYVAL_INVALID != m->comm_keyval) {
        /* attributes still set keep it until their communicators go */
        (void) ompi_attr_free_keyval(COMM_ATTR, &m->comm_keyval, false);
        (void) ompi_attr_put_ref();
        m->comm_keyval = MPI_KEYVAL_INVALID;
    }
    mca_part_ucx_ctrl_fini();
    mca_part_ucx_dev_fini(); /* takes the module lock */
    if (NULL != m->context) {
        mca_part_ucx_mem_fini();
    }
    if (NULL != m->workers) {
        for (i = 0; i < m->num_workers; ++i) {
            if (NULL != m->workers[i]) {
                ucp_worker_destroy(m->workers[i]);
            }
        }
        free(m->workers);
        m->workers = NULL;
    }
    if (NULL != m->context) {
        ucp_cleanup(m->context);
        m->context = NULL;
    }
    OBJ_DESTRUCT(&m->requests);
    OBJ_DESTRUCT(&m->held);
    OBJ_DESTRUCT(&m->match);
    OBJ_DESTRUCT(&m->seq_out);
    OBJ_DESTRUCT(&m->seq_in);
    OBJ_DESTRUCT(&m->peers);
    OBJ_DESTRUCT(&m->lock);
    m->initialized = false;
    return OMPI_SUCCESS;
}

int mca_part_ucx_progress(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_link_t *item, *next;
    mca_part_ucx_request_t *req;
    int i, count = 0;
    bool done;

    for (i = 0; i < m->num_workers; ++i) {
        count += ucp_worker_progress(m->workers[i]);
    }
    count += mca_part_ucx_ctrl_progress();

    if (0 == m->num_active || 0 != opal_mutex_trylock(&m->lock)) {
        return count;
    }
    for (item = m->active.next; item != &m->active; item = next) {
        next = item->next;
        req = MCA_PART_UCX_CONTAINER(item, mca_part_ucx_request_t, link);
        done = (MCA_PART_UCX_SEND == req->kind)   ? mca_part_ucx_send_progress(req)
               : (MCA_PART_UCX_RECV == req->kind) ? mca_part_ucx_recv_progress(req)
                                                  : mca_part_ucx_coll_progress(req);
        if (done) {
            mca_part_ucx_link_remove(item);
            opal_atomic_add_fetch_32(&m->num_active, -1);
            mca_part_ucx_request_complete(req);
            ++count;
        }
    }
    opal_mutex_unlock(&m->lock);
    return count;
}
