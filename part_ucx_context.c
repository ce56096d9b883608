/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The lowest layer: the module's shared state with the parameters'
 * defaults, and the UCP context and workers every other layer uses.
 */

#include "ompi_config.h"

#include "opal/mca/common/ucx/common_ucx.h"
#include <stdarg.h>

#include "opal/util/show_help.h"
#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"

#include "part_ucx.h"

/* An item of the module's op_ctx free list. */
typedef struct {
    opal_free_list_item_t super;
    uint64_t payload[MCA_PART_UCX_OP_CTX_WORDS];
} mca_part_ucx_op_ctx_item_t;

static OBJ_CLASS_INSTANCE(mca_part_ucx_op_ctx_item_t, opal_free_list_item_t, NULL, NULL);

mca_part_ucx_module_t mca_part_ucx_module = {
    .params = {
        /* Above part/persist (priority 1) where UCX has a fast transport */
        .priority = 20,
        .num_workers = 1,
        .parrived_progress_interval = 64,
        .transfer = MCA_PART_UCX_TRANSFER_AUTO,
        .rtr = MCA_PART_UCX_TRANSFER_AUTO,
        .device_copy = MCA_PART_UCX_DEVICE_COPY_AUTO,
        .pready_aggregate = MCA_PART_UCX_PREADY_AGGREGATE_WARP,
        .allreduce_algorithm = MCA_PART_UCX_ALLREDUCE_AUTO,
        .allreduce_small = 4096,
        .allreduce_ring_two = 256 << 10,
        .coll_transport_bytes = 4096,
        .coll_transport_bytes_gpu = 4 << 20,
        .join_bytes = 1 << 20,
        .join_bytes_gpu = 16 << 20,
        .device_group_bytes = -1,
        .gpu_eager_bytes = 8192,
        .device_arrivals = true,
        .device_rtr_cache = true,
        .stream_kernel_ops = false,
        .stream_copy_engine = true,
        .stream_copy_after_bytes = 1 << 20,
        .stream_graph_join = true,
        .stream_graph_start = MCA_PART_UCX_GRAPH_START_AUTO,
        .gpu_host_copy = true,
        .gpu_host_copy_kernel = true,
        .epoch_ahead_bytes = 32768,
        .coll_gpu_engine = true,
        .coll_gpu_unit_bytes = 16384,
        .coll_gpu_span_unit_bytes = 4096,
        .coll_gpu_blocks = 32,
        .coll_gpu_span_blocks = 64,
        .coll_gpu_twoshot_bytes = 1 << 20,
        .coll_gpu_span_twoshot_bytes = 512 << 10,
        .coll_gpu_push_bytes = 8 << 10,
        .coll_gpu_span_push_bytes = 64 << 10,
        .coll_gpu_bulk_bytes = 2 << 20,
        .coll_gpu_bulk_one_gpu = false,
        .coll_gpu_ll128_bytes = 512 << 10,
        .coll_gpu_ll128_twoshot_bytes = 0,
        .coll_gpu_twoshot_push = 0,
        .coll_gpu_span_twoshot_push_bytes = 8 << 20,
        .coll_gpu_scope_fences = true,
        .coll_gpu_relay_bytes = 2 << 20,
        .coll_gpu_priority = 1,
        .coll_gpu_after_bytes = 0,
        .device_gpu_scope_fences = true,
    },
};

static int mca_part_ucx_ucp_init(void)
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

void *mca_part_ucx_op_ctx_get(void)
{
    mca_part_ucx_op_ctx_item_t *item =
        (mca_part_ucx_op_ctx_item_t *) opal_free_list_get(&mca_part_ucx_module.op_ctx);

    return (NULL == item) ? NULL : item->payload;
}

void mca_part_ucx_op_ctx_put(void *ctx)
{
    if (NULL != ctx) {
        opal_free_list_return(&mca_part_ucx_module.op_ctx,
                              &container_of(ctx, mca_part_ucx_op_ctx_item_t,
                                                      payload)->super);
    }
}

int mca_part_ucx_context_init(void)
{
    int rc;

    OBJ_CONSTRUCT(&mca_part_ucx_module.op_ctx, opal_free_list_t);
    rc = opal_free_list_init(&mca_part_ucx_module.op_ctx, sizeof(mca_part_ucx_op_ctx_item_t),
                             opal_cache_line_size, OBJ_CLASS(mca_part_ucx_op_ctx_item_t), 0,
                             opal_cache_line_size, 64, -1, 64, NULL, 0, NULL, NULL, NULL);
    if (OPAL_SUCCESS == rc) {
        rc = mca_part_ucx_ucp_init();
    }

    if (OMPI_SUCCESS == rc) {
        mca_part_ucx_scan_transports(&mca_part_ucx_module);
        rc = mca_part_ucx_workers_init();
    }
    return rc;
}

void mca_part_ucx_context_fini(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    int i;

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
    OBJ_DESTRUCT(&m->op_ctx);
}

/* opal_show_help's parser of help files is not reentrant, and messages of
 * the data path can come from several threads at once. */
static opal_mutex_t mca_part_ucx_help_lock = OPAL_MUTEX_STATIC_INIT;

void mca_part_ucx_show_help(opal_atomic_int32_t *shown, const char *topic, ...)
{
    int32_t no = 0;
    va_list args;

    if (NULL != shown && (0 != *shown || !opal_atomic_compare_exchange_strong_32(shown, &no, 1))) {
        return;
    }
    va_start(args, topic);
    OPAL_THREAD_LOCK(&mca_part_ucx_help_lock);
    (void) opal_show_vhelp("help-part-ucx.txt", topic, true, args);
    OPAL_THREAD_UNLOCK(&mca_part_ucx_help_lock);
    va_end(args);
}
