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
#include "opal/runtime/opal_progress.h"
#include "opal/util/show_help.h"

#include "part_ucx.h"

static int mca_part_ucx_component_register(void);
static int mca_part_ucx_component_open(void);
static int mca_part_ucx_component_close(void);
static mca_part_base_module_t *
mca_part_ucx_component_init(int *priority, bool enable_progress_threads,
                            bool enable_mpi_threads);
static int mca_part_ucx_component_fini(void);

mca_part_ucx_component_t mca_part_ucx_component = {
    .super = {
        .partm_version = {
            MCA_PART_BASE_VERSION_2_0_0,
            .mca_component_name = "ucx",
            MCA_BASE_MAKE_VERSION(component, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                                  OMPI_RELEASE_VERSION),
            .mca_open_component = mca_part_ucx_component_open,
            .mca_close_component = mca_part_ucx_component_close,
            .mca_register_component_params = mca_part_ucx_component_register,
        },
        .partm_data = {
            .param_field = MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .partm_init = mca_part_ucx_component_init,
        .partm_finalize = mca_part_ucx_component_fini,
    },
    /* Above part/persist (priority 1): selected by default where UCX works. */
    .priority = 20,
    .verbose = 0,
    .output = -1,
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
    .gpu_host_copy = true,
    .epoch_ahead_bytes = 32768,
};

static const mca_base_var_enum_value_t mca_part_ucx_allreduce_values[] = {
    {MCA_PART_UCX_ALLREDUCE_AUTO, "auto"},
    {MCA_PART_UCX_ALLREDUCE_RING, "ring"},
    {MCA_PART_UCX_ALLREDUCE_RD, "recursive_doubling"},
    {0, NULL}
};

static const mca_base_var_enum_value_t mca_part_ucx_pready_aggregate_values[] = {
    {MCA_PART_UCX_PREADY_AGGREGATE_WARP, "warp"},
    {MCA_PART_UCX_PREADY_AGGREGATE_BLOCK, "block"},
    {0, NULL}
};

static const mca_base_var_enum_value_t mca_part_ucx_device_copy_values[] = {
    {MCA_PART_UCX_DEVICE_COPY_AUTO, "auto"},
    {MCA_PART_UCX_DEVICE_COPY_PROGRESS, "progress"},
    {MCA_PART_UCX_DEVICE_COPY_KERNEL, "kernel"},
    {0, NULL}
};

/* Partitions (part_ucx_transfer) and the ready-to-receive (part_ucx_rtr)
 * move by the same means: auto, put or am. */
static const mca_base_var_enum_value_t mca_part_ucx_transfer_values[] = {
    {MCA_PART_UCX_TRANSFER_AUTO, "auto"},
    {MCA_PART_UCX_TRANSFER_PUT, "put"},
    {MCA_PART_UCX_TRANSFER_AM, "am"},
    {0, NULL}
};

static int mca_part_ucx_component_register(void)
{
    mca_base_component_t *c = &mca_part_ucx_component.super.partm_version;

    (void) mca_base_component_var_register(c, "priority",
        "Priority of the part ucx component (part/persist has 1)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_3,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.priority);

    (void) mca_base_component_var_register(c, "verbose",
        "Verbosity of the part ucx component (0: errors only, 10: every control message)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_3,
        MCA_BASE_VAR_SCOPE_LOCAL, &mca_part_ucx_component.verbose);

    (void) mca_base_component_var_register(c, "num_workers",
        "Number of UCP workers; partitions are spread over them round robin "
        "(more than one uses several rails or paths of the network)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.num_workers);

    (void) mca_base_component_var_register(c, "parrived_progress_interval",
        "MPI_Parrived reads arrival flags only; after this many calls that find "
        "a partition missing it also progresses communication once, so that a "
        "program that only polls MPI_Parrived cannot starve transports that need "
        "target-side progress (0: never)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_LOCAL, &mca_part_ucx_component.parrived_progress_interval);

    mca_base_var_enum_t *transfer_enum = NULL;
    (void) mca_base_var_enum_create("part_ucx_transfer", mca_part_ucx_transfer_values,
                                    &transfer_enum);
    (void) mca_base_component_var_register(c, "transfer",
        "How partitions move: put (ucp_put_nbx into the registered receive buffer, "
        "then the arrival flag), am (one UCP active message per partition, or per run of "
        "adjacent partitions ready together (part_ucx_join_bytes), copied "
        "or fetched zero-copy into place by the receiver, which sets the flag), or "
        "auto (am between processes of one node, where UCX 1.13 has no RMA into "
        "user memory and emulates it, and to other nodes where no RDMA transport "
        "(rc, dc) is there to do the puts; put elsewhere). GPU buffers always move "
        "as am: UCX 1.13 RMA cannot reach them zero-copy",
        MCA_BASE_VAR_TYPE_INT, transfer_enum, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.transfer);
    OBJ_RELEASE(transfer_enum);

    mca_base_var_enum_t *rtr_enum = NULL;
    (void) mca_base_var_enum_create("part_ucx_rtr", mca_part_ucx_transfer_values, &rtr_enum);
    (void) mca_base_component_var_register(c, "rtr",
        "How a receiver tells the sender it is ready for an epoch: put (into the "
        "sender's word, no sender involvement where a transport does RMA), am (an "
        "active message the sender's progress writes into that word), or auto (am "
        "where UCX would emulate the put, which costs a round trip: no shared "
        "memory to a peer of this node, no RDMA to one of another; put elsewhere)",
        MCA_BASE_VAR_TYPE_INT, rtr_enum, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.rtr);
    OBJ_RELEASE(rtr_enum);

    mca_base_var_enum_t *copy_enum = NULL;
    (void) mca_base_var_enum_create("part_ucx_device_copy", mca_part_ucx_device_copy_values,
                                    &copy_enum);
    (void) mca_base_component_var_register(c, "device_copy",
        "How a kernel's MPIX_Pready moves a partition: kernel (the kernel stores it "
        "into the receiver's GPU buffer through a cuda_ipc mapping, NVLink or PCIe "
        "peer access; the host then only sends the arrival), progress (the kernel "
        "marks the partition and the host progress engine sends it), or auto "
        "(kernel where the receiver's buffer can be mapped, progress elsewhere). "
        "The info key \"mpix_device_copy\" of MPI_Psend_init overrides it",
        MCA_BASE_VAR_TYPE_INT, copy_enum, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.device_copy);
    OBJ_RELEASE(copy_enum);

    mca_base_var_enum_t *agg_enum = NULL;
    (void) mca_base_var_enum_create("part_ucx_pready_aggregate",
                                    mca_part_ucx_pready_aggregate_values, &agg_enum);
    (void) mca_base_component_var_register(c, "pready_aggregate",
        "What a kernel's MPIX_Pready combines into one counter update: warp (the "
        "lanes of a warp that name one partition; safe in any control flow) or "
        "block (every thread of the block, which must all call it for one "
        "partition, as they would __syncthreads: one update per block, and a "
        "kernel copy by the whole block). The info key \"mpix_pready_aggregate\" "
        "of the init call overrides it",
        MCA_BASE_VAR_TYPE_INT, agg_enum, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.pready_aggregate);
    OBJ_RELEASE(agg_enum);

    mca_base_var_enum_t *ar_enum = NULL;
    (void) mca_base_var_enum_create("part_ucx_allreduce_algorithm", mca_part_ucx_allreduce_values,
                                    &ar_enum);
    (void) mca_base_component_var_register(c, "allreduce_algorithm",
        "Schedule of MPIX_Pallreduce_init: ring (reduce-scatter + allgather, "
        "bandwidth-optimal), recursive_doubling (log2(n) whole-partition exchanges, "
        "latency-optimal; ranks beyond a power of two fold in), or auto (recursive "
        "doubling up to part_ucx_allreduce_small bytes per partition, ring above; on "
        "two ranks recursive doubling below part_ucx_allreduce_ring_two bytes per "
        "partition and on GPU buffers, ring from there on host buffers)",
        MCA_BASE_VAR_TYPE_INT, ar_enum, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.allreduce_algorithm);
    OBJ_RELEASE(ar_enum);
    (void) mca_base_component_var_register(c, "allreduce_small",
        "Largest partition (bytes) for which the automatic MPIX_Pallreduce_init "
        "schedule is recursive doubling",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.allreduce_small);
    (void) mca_base_component_var_register(c, "allreduce_ring_two",
        "Two ranks, host buffers: smallest partition (bytes) for which the automatic "
        "MPIX_Pallreduce_init schedule is the ring, whose two steps each reduce half "
        "of a partition, where recursive doubling reduces all of it in one step "
        "(0: recursive doubling at every size)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.allreduce_ring_two);

    (void) mca_base_component_var_register(c, "coll_transport_bytes",
        "Partitioned collectives move transport partitions, distinct from the "
        "user's: consecutive user partitions share one as long as it stays within "
        "this many bytes (a transport partition starts once all of its user "
        "partitions are ready; per-partition costs then count once per group). "
        "0: one transport partition per user partition",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.coll_transport_bytes);

    (void) mca_base_component_var_register(c, "join_bytes",
        "Partitions that are ready together and adjacent on both sides move in one "
        "active message or one put (and their flags in one put) of up to this many "
        "bytes (a partition larger than this goes alone; 0: one per partition)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.join_bytes);

    (void) mca_base_component_var_register(c, "join_bytes_gpu",
        "part_ucx_join_bytes for GPU data (0: one message per partition; joining "
        "saves a UCX cuda_ipc rendezvous, about 10 us, or a host copy of about 5 us "
        "per partition it adds). Only partitions ready together join, so a large cap "
        "delays nothing: on one H100 the progress engine at 1024 blocks of 8 KiB went "
        "from 96 to 191 GB/s with 16 MiB instead of 1 MiB",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.join_bytes_gpu);

    (void) mca_base_component_var_register(c, "device_group_bytes",
        "Device send requests (MPIX_Prequest): consecutive partitions share one "
        "counter up to this many bytes (a power of two of them); the kernel's "
        "MPIX_Pready call that completes such a transport group copies (kernel "
        "copy) and marks all of its partitions with one system-scope fence "
        "(-1: for kernel copy, where the completing block copies the group, 1/32 of "
        "the buffer up to 128 KiB; for the progress engine, where each group costs a "
        "host copy or message, 1 MiB; 0: every partition on its own). The info key "
        "\"mpix_device_group_bytes\" of MPI_Psend_init overrides it",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.device_group_bytes);

    (void) mca_base_component_var_register(c, "gpu_eager_bytes",
        "GPU data to a peer whose buffer cuda_ipc cannot map (another node, or "
        "UCX without cuda_ipc): messages up to this many bytes go eager, staged "
        "through host memory at once, instead of the rendezvous UCX picks for "
        "GPU memory (0: as UCX picks). Over tcp on an H100 the progress engine's "
        "goodput at one block of 8 KiB went from 0.09 to 0.13-0.14 GB/s with it; "
        "32 KiB messages were slower eager than by rendezvous",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.gpu_eager_bytes);

    (void) mca_base_component_var_register(c, "device_arrivals",
        "Kernel copy: the kernels also set the receiver's arrival flags (its shared "
        "memory, mapped and registered for this GPU) instead of the host sending them "
        "(one message per 64 partitions). On one H100 (MPS): equal from 1 to 16 "
        "blocks, 10% more goodput at 256, 22% more at 1024; where the receiver's "
        "memory cannot be registered the host sends them",
        MCA_BASE_VAR_TYPE_BOOL, NULL, 0, 0, OPAL_INFO_LVL_6,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.device_arrivals);

    (void) mca_base_component_var_register(c, "device_rtr_cache",
        "Kernel copy: one copying group at a time reads the receiver-ready word in "
        "host memory and the others a copy in GPU memory (kernel reads of host "
        "memory are serialised across blocks)",
        MCA_BASE_VAR_TYPE_BOOL, NULL, 0, 0, OPAL_INFO_LVL_6,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.device_rtr_cache);

    (void) mca_base_component_var_register(c, "epoch_ahead_bytes",
        "Data of up to this many bytes an epoch, sent as active messages with the "
        "ready-to-receive as a message too (tcp between nodes): a sender may send an "
        "epoch's partitions once the receiver has started the previous epoch, the "
        "receiver keeps early ones until its MPI_Start, and its ready-to-receive rides on "
        "the next partition message to the same process (or goes alone from progress) "
        "instead of leaving from MPI_Start ahead of the caller's data (0: off). On the "
        "2-core CI box over tcp: 8-byte half round trip 9.9 -> 7.2 us, bandwidth of 4 KiB "
        "epochs 336 -> 409 MB/s; equal at 8-32 KiB; larger epochs lost bandwidth (-7% at "
        "64 KiB, -27% at 1 MiB), as early partitions are copied aside or their "
        "rendezvous waits for MPI_Start",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.epoch_ahead_bytes);

    (void) mca_base_component_var_register(c, "gpu_host_copy",
        "GPU data between processes of a node whose receive buffer cuda_ipc maps "
        "here (progress engine, host MPI_Pready, collectives): the host copies "
        "partitions on a CUDA stream and sends their arrivals when the copy is done, "
        "instead of a UCX rendezvous per message",
        MCA_BASE_VAR_TYPE_BOOL, NULL, 0, 0, OPAL_INFO_LVL_6,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.gpu_host_copy);

    (void) mca_base_component_var_register(c, "coll_transport_bytes_gpu",
        "part_ucx_coll_transport_bytes for collectives on GPU buffers, where every "
        "transport partition costs GPU work (copies, reduction kernels, an event) at "
        "each step (0: one transport partition per user partition)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_part_ucx_component.coll_transport_bytes_gpu);

    opal_common_ucx_mca_var_register(c);
    return OMPI_SUCCESS;
}

static int mca_part_ucx_component_open(void)
{
    mca_part_ucx_component.output = opal_output_open(NULL);
    opal_output_set_verbosity(mca_part_ucx_component.output,
                              mca_part_ucx_component.verbose);
    opal_common_ucx_mca_register();
    return OMPI_SUCCESS;
}

static int mca_part_ucx_component_close(void)
{
    opal_common_ucx_mca_deregister();
    if (mca_part_ucx_component.output >= 0) {
        opal_output_close(mca_part_ucx_component.output);
        mca_part_ucx_component.output = -1;
    }
    return OMPI_SUCCESS;
}

static mca_part_base_module_t *
mca_part_ucx_component_init(int *priority, bool enable_progress_threads,
                            bool enable_mpi_threads)
{
    int rc;

    if (mca_part_ucx_component.num_workers < 1) {
        opal_show_help("help-part-ucx.txt", "bad num_workers", true,
                       mca_part_ucx_component.num_workers);
        return NULL;
    }

    rc = mca_part_ucx_module_init(enable_mpi_threads);
    if (OMPI_SUCCESS != rc) {
        /* A component that cannot run declines; part/persist takes over. */
        return NULL;
    }

    opal_progress_register(mca_part_ucx_progress);
    *priority = mca_part_ucx_component.priority;
    PART_UCX_VERBOSE(1, "initialized with %d worker(s), priority %d",
                     mca_part_ucx_module.num_workers, *priority);
    return &mca_part_ucx_module.super;
}

static int mca_part_ucx_component_fini(void)
{
    if (mca_part_ucx_module.initialized) {
        opal_progress_unregister(mca_part_ucx_progress);
    }
    return mca_part_ucx_module_fini();
}
