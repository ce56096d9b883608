/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#include "ompi_config.h"

#include "opal/mca/base/mca_base_pvar.h"
#include "ompi/constants.h"

#include "part_ucx_pvar.h"

mca_part_ucx_counter_t mca_part_ucx_counters[MCA_PART_UCX_PVAR_COUNT]
    __attribute__((aligned(64)));

static const struct {
    const char *name, *help;
} mca_part_ucx_pvar_names[MCA_PART_UCX_PVAR_COUNT] = {
    [MCA_PART_UCX_PVAR_PARTS_PUT] = {"parts_put",
        "Partitions sent by put into the receive buffer"},
    [MCA_PART_UCX_PVAR_PARTS_AM] = {"parts_am",
        "Partitions sent as active messages"},
    [MCA_PART_UCX_PVAR_PARTS_HOST_COPY] = {"parts_host_copy",
        "GPU partitions the host copied into a peer's mapped buffer"},
    [MCA_PART_UCX_PVAR_PARTS_KERNEL_COPY] = {"parts_kernel_copy",
        "GPU partitions a kernel's MPIX_Pready stored into a peer's mapped buffer"},
    [MCA_PART_UCX_PVAR_BYTES_SENT] = {"bytes_sent",
        "Bytes of the partitions sent, by every path"},
    [MCA_PART_UCX_PVAR_PARTS_HELD] = {"parts_held",
        "Partitions that came one epoch ahead and were held until MPI_Start"},
    [MCA_PART_UCX_PVAR_RTR_RIDING] = {"rtr_riding",
        "Ready-to-receive notices carried by a partition message"},
    [MCA_PART_UCX_PVAR_RTR_ALONE] = {"rtr_alone",
        "Ready-to-receive notices sent on their own (a put or an active message)"},
    [MCA_PART_UCX_PVAR_SETUP_UNEXPECTED] = {"setup_unexpected",
        "Setup records of partitioned sends that came before their receive was initialized"},
    [MCA_PART_UCX_PVAR_COLL_GPU_EPOCHS] = {"coll_gpu_epochs",
        "Epochs of partitioned collectives run by the GPU engine (one kernel an epoch, "
        "within a node)"},
    [MCA_PART_UCX_PVAR_COLL_GPU_TWOSHOT] = {"coll_gpu_twoshot_epochs",
        "Of the GPU engine's epochs, those of two-shot allreduces (each rank reduces a slice "
        "and stores it into every rank's result)"},
    [MCA_PART_UCX_PVAR_COLL_GPU_PUSH] = {"coll_gpu_push_epochs",
        "Of the GPU engine's epochs, those of push allreduces (each rank stores its "
        "contribution into every peer's window, the epoch in every 8 bytes)"},
    [MCA_PART_UCX_PVAR_COLL_GPU_BULK] = {"coll_gpu_bulk_epochs",
        "Of the GPU engine's epochs, those of bulk push allreduces (each rank stores its "
        "contribution into every peer's window, then a flag a unit), bulk-pushed two-shot "
        "ones included (part_ucx_coll_gpu_twoshot_push)"},
    [MCA_PART_UCX_PVAR_COLL_GPU_LL128] = {"coll_gpu_ll128_epochs",
        "Of the bulk push and two-shot allreduces' epochs, those whose data went as 128-byte "
        "lines with the epoch in each (part_ucx_coll_gpu_ll128_bytes, "
        "part_ucx_coll_gpu_ll128_twoshot_bytes)"},
    [MCA_PART_UCX_PVAR_COLL_GPU_AFTER] = {"coll_gpu_after_epochs",
        "Of the GPU engine's stream-ordered epochs, those whose kernel ran after the "
        "producing kernels, on this rank's share of the GPU (part_ucx_coll_gpu_after_bytes; "
        "a captured epoch counts once)"},
};

static int mca_part_ucx_pvar_read(const mca_base_pvar_t *pvar, void *value, void *obj)
{
    const mca_part_ucx_counter_t *c = pvar->ctx;

    *(unsigned long long *) value = (unsigned long long) c->value;
    return OPAL_SUCCESS;
}

int mca_part_ucx_pvar_register(const mca_base_component_t *component)
{
    int i;

    /* Counters of the whole process, started and stopped by MPI_T sessions:
     * a handle counts what happened while it was started. */
    for (i = 0; i < MCA_PART_UCX_PVAR_COUNT; ++i) {
        (void) mca_base_component_pvar_register(component, mca_part_ucx_pvar_names[i].name,
                                                mca_part_ucx_pvar_names[i].help, OPAL_INFO_LVL_4,
                                                MCA_BASE_PVAR_CLASS_COUNTER,
                                                MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, NULL,
                                                MCA_BASE_VAR_BIND_NO_OBJECT,
                                                MCA_BASE_PVAR_FLAG_READONLY,
                                                mca_part_ucx_pvar_read, NULL, NULL,
                                                &mca_part_ucx_counters[i]);
    }
    return OMPI_SUCCESS;
}
