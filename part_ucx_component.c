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
#include "opal/util/printf.h"
#include "opal/util/proc.h"
#include "ompi/instance/instance.h"
#include "ompi/proc/proc.h"
#include "opal/util/show_help.h"

#include "part_ucx.h"
#include "part_ucx_pvar.h"

static int mca_part_ucx_component_register(void);
static int mca_part_ucx_component_open(void);
static int mca_part_ucx_component_close(void);
static mca_part_base_module_t *
mca_part_ucx_component_init(int *priority, bool enable_progress_threads,
                            bool enable_mpi_threads);
static int mca_part_ucx_component_fini(void);
static void mca_part_ucx_instance_fini(void *arg);

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

static const mca_base_var_enum_value_t mca_part_ucx_graph_start_values[] = {
    {MCA_PART_UCX_GRAPH_START_AUTO, "auto"},
    {MCA_PART_UCX_GRAPH_START_KERNEL, "kernel"},
    {MCA_PART_UCX_GRAPH_START_COPY, "copy"},
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

/* A parameter of the component: its level says who tunes it (3 users, 4-5
 * tuners, 9 developers' switches) and its scope whether every rank must
 * give it the same value. */
static void mca_part_ucx_var(const char *name, const char *help, mca_base_var_type_t type,
                             mca_base_var_enum_t *values, mca_base_var_info_lvl_t level,
                             mca_base_var_scope_t scope, void *storage)
{
    (void) mca_base_component_var_register(&mca_part_ucx_component.super.partm_version, name,
                                           help, type, values, 0, 0, level, scope, storage);
}

/* An enumerated parameter; where `keep` is given, the enumerator stays
 * there for info keys of the same values (released at close). */
static void mca_part_ucx_enum_var(const char *name, const char *help,
                                  const mca_base_var_enum_value_t *values,
                                  mca_base_var_info_lvl_t level, mca_base_var_scope_t scope,
                                  int *storage, mca_base_var_enum_t **keep)
{
    mca_base_var_enum_t *e = NULL;
    char *enum_name = NULL;

    opal_asprintf(&enum_name, "part_ucx_%s", name);
    (void) mca_base_var_enum_create(enum_name, values, &e);
    free(enum_name);
    mca_part_ucx_var(name, help, MCA_BASE_VAR_TYPE_INT, e, level, scope, storage);
    if (NULL != keep && NULL == *keep) {
        *keep = e;
    } else if (NULL != e) {
        OBJ_RELEASE(e);
    }
}

/* Of opal/mca/common/ucx's parameters, the ones this component reads under
 * its own name: tls and devices decide its priority (component init), the
 * memory hooks are installed at open. */
static void mca_part_ucx_common_synonyms(const mca_base_component_t *c)
{
    static const char *const names[] = {"tls", "devices", "opal_mem_hooks", NULL};
    int i, index;

    opal_common_ucx_mca_var_register(NULL);
    for (i = 0; NULL != names[i]; ++i) {
        index = mca_base_var_find("opal", "opal_common", "ucx", names[i]);
        if (0 <= index) {
            (void) mca_base_var_register_synonym(index, c->mca_project_name, c->mca_type_name,
                                                 c->mca_component_name, names[i], 0);
        }
    }
}

static int mca_part_ucx_component_register(void)
{
    const mca_base_component_t *version = &mca_part_ucx_component.super.partm_version;
    mca_part_ucx_params_t *c = &mca_part_ucx_module.params;

    mca_part_ucx_var("priority",
        "Priority of part/ucx where UCX has a fast transport to every peer "
        "(a device of part_ucx_devices, or shared memory within one node); "
        "elsewhere it is 0, below part/persist",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_3, MCA_BASE_VAR_SCOPE_READONLY, &c->priority);

    /* tuners: how partitions move */
    mca_part_ucx_enum_var("transfer",
        "How partitions move: put (RMA into the receive buffer), am (active messages), "
        "or auto (put to other nodes over RDMA, am elsewhere); GPU buffers always move as am",
        mca_part_ucx_transfer_values, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &c->transfer,
        NULL);
    mca_part_ucx_enum_var("rtr",
        "How a receiver tells the sender it is ready for an epoch: put, am, or auto "
        "(am where UCX would emulate the put)",
        mca_part_ucx_transfer_values, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &c->rtr,
        NULL);
    mca_part_ucx_var("num_workers",
        "Number of UCP workers; partitions are spread over them round robin "
        "(the same on every process)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_ALL_EQ, &c->num_workers);
    mca_part_ucx_var("join_bytes",
        "Largest message or put (bytes) into which adjacent partitions that are ready "
        "together are joined (0: one per partition)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &c->join_bytes);
    mca_part_ucx_var("parrived_progress_interval",
        "Calls of MPI_Parrived that find a partition missing between two progress calls "
        "(0: MPI_Parrived never progresses)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_LOCAL,
        &c->parrived_progress_interval);

    /* tuners: collectives (schedules must match on every rank) */
    mca_part_ucx_enum_var("allreduce_algorithm",
        "Schedule of MPIX_Pallreduce_init: ring, recursive_doubling, or auto (by size)",
        mca_part_ucx_allreduce_values, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->allreduce_algorithm, &mca_part_ucx_module.enums[MCA_PART_UCX_ENUM_ALLREDUCE]);
    mca_part_ucx_var("coll_transport_bytes",
        "Partitioned collectives: consecutive user partitions share one transport "
        "partition up to this many bytes (0: one per user partition)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_transport_bytes);

    /* tuners: GPU buffers */
    mca_part_ucx_enum_var("device_copy",
        "How a kernel's MPIX_Pready moves a partition: kernel (stores into the peer's mapped "
        "GPU buffer), progress (the host sends it), or auto (kernel where the peer's buffer "
        "maps)",
        mca_part_ucx_device_copy_values, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->device_copy, &mca_part_ucx_module.enums[MCA_PART_UCX_ENUM_DEVICE_COPY]);
    mca_part_ucx_enum_var("pready_aggregate",
        "What a kernel's MPIX_Pready combines into one counter update: warp or block "
        "(every thread of the block calls it for one partition)",
        mca_part_ucx_pready_aggregate_values, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->pready_aggregate,
        &mca_part_ucx_module.enums[MCA_PART_UCX_ENUM_PREADY_AGGREGATE]);
    mca_part_ucx_var("device_group_bytes",
        "Device send requests: consecutive partitions that kernels complete together, in bytes "
        "(-1: by the copy mechanism, 0: every partition alone)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->device_group_bytes);

    /* developers' switches and thresholds */
    mca_part_ucx_var("allreduce_small",
        "Automatic MPIX_Pallreduce_init schedule: recursive doubling up to this many "
        "bytes a partition, ring above",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->allreduce_small);
    mca_part_ucx_var("allreduce_ring_two",
        "Automatic MPIX_Pallreduce_init schedule on two ranks and host buffers: ring from "
        "this many bytes a partition (0: never)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->allreduce_ring_two);
    mca_part_ucx_var("coll_transport_bytes_gpu",
        "part_ucx_coll_transport_bytes for collectives on GPU buffers",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_transport_bytes_gpu);
    mca_part_ucx_var("coll_gpu_engine",
        "Partitioned collectives whose ranks are all on one node with GPU buffers that map "
        "into each other's GPU: one kernel an epoch runs them on the GPU (else the schedule "
        "engine's point-to-point channels)",
        MCA_BASE_VAR_TYPE_BOOL, NULL, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_engine);
    mca_part_ucx_var("coll_gpu_unit_bytes",
        "GPU engine: bytes of the partition space one block moves at a time, at least (units "
        "grow with the data: up to four times this for small data, one unit a block for "
        "large data)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_unit_bytes);
    mca_part_ucx_var("coll_gpu_span_unit_bytes",
        "GPU engine: part_ucx_coll_gpu_unit_bytes where the ranks are on more than one GPU: "
        "there smaller units, more of them, move the data over the links in parallel, where "
        "on one GPU their fixed costs weigh more",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_span_unit_bytes);
    mca_part_ucx_var("coll_gpu_blocks",
        "GPU engine: blocks of its kernel, at most (they spin while they wait, beside the "
        "application's kernels; the engines of the ranks sharing a GPU take at most half "
        "its SMs together)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_blocks);
    mca_part_ucx_var("coll_gpu_span_blocks",
        "GPU engine: part_ucx_coll_gpu_blocks where the ranks are on more than one GPU: "
        "there each rank has a GPU of its own, and more blocks move more units over the "
        "links at once",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_span_blocks);
    mca_part_ucx_var("coll_gpu_twoshot_bytes",
        "GPU engine: an allreduce of at least this many bytes is "
        "two-shot (each rank reduces a slice and stores it into every result), smaller "
        "ones one-shot (0: always one-shot)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_twoshot_bytes);
    mca_part_ucx_var("coll_gpu_span_twoshot_bytes",
        "GPU engine: where the ranks are on more than one GPU, an allreduce is two-shot from "
        "the smaller of this and part_ucx_coll_gpu_twoshot_bytes (0 there: never; 0 here: "
        "that one alone); only sizes that neither push nor bulk push takes reach it (four "
        "ranks from about 683 KiB by default)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_span_twoshot_bytes);
    mca_part_ucx_var("coll_gpu_push_bytes",
        "GPU engine: an allreduce of at most this many bytes (a multiple of 8, and below "
        "part_ucx_coll_gpu_twoshot_bytes) is pushed: each rank stores its contribution into "
        "every peer's window with the epoch in every 8 bytes, so that no rank waits for a "
        "release or for its data to be read; larger ones are pulled (0: never pushed)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_push_bytes);
    mca_part_ucx_var("coll_gpu_span_push_bytes",
        "GPU engine: part_ucx_coll_gpu_push_bytes where the ranks are on more than one GPU: "
        "there a pushed line's one trip over the link beats a release and a flag, and the "
        "smaller units there (part_ucx_coll_gpu_span_unit_bytes) push in parallel",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_span_push_bytes);
    mca_part_ucx_var("coll_gpu_bulk_bytes",
        "GPU engine: an allreduce that is not pushed by lines is pushed whole where each "
        "rank's copies, (ranks - 1) times the data, take at most this many bytes: each rank "
        "stores its contribution into every peer's window, with one flag a unit after it, "
        "and reduces the copies in its own memory, so that no rank reads another's memory "
        "or waits for its data to be read; larger ones are two-shot or pulled (0: never). "
        "Only where the ranks are on more than one GPU, unless "
        "part_ucx_coll_gpu_bulk_one_gpu",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_bulk_bytes);
    mca_part_ucx_var("coll_gpu_bulk_one_gpu",
        "GPU engine: bulk push (part_ucx_coll_gpu_bulk_bytes) also where every rank shares "
        "one GPU (CUDA MPS), where a pull reads the peers' buffers as fast as its own memory "
        "and the copies only add work",
        MCA_BASE_VAR_TYPE_BOOL, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_bulk_one_gpu);
    mca_part_ucx_var("coll_gpu_ll128_bytes",
        "GPU engine: a bulk push (part_ucx_coll_gpu_bulk_bytes) of at most this many bytes "
        "stores its copies as 128-byte lines, each with the epoch beside 120 bytes of data "
        "(NCCL's LL128), where NVLink links every pair of the ranks' GPUs (it delivers a "
        "warp's 128-byte store whole) and every buffer is 8-byte aligned: no release and no "
        "separate flag a unit; larger ones, whose lines would move in more rounds than the "
        "release costs, keep the flags (0: never)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_ll128_bytes);
    mca_part_ucx_var("coll_gpu_ll128_twoshot_bytes",
        "GPU engine: a two-shot allreduce of at most this many bytes moves its slices as "
        "128-byte lines (part_ucx_coll_gpu_ll128_bytes: where NVLink links the ranks' GPUs "
        "and buffers are 8-byte aligned): each rank pushes slice s to rank s, which reduces "
        "it and pushes the result to every rank, with no release, no slice word and no read "
        "of a peer's memory (0: never)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_ll128_twoshot_bytes);
    mca_part_ucx_var("coll_gpu_twoshot_push",
        "GPU engine: a two-shot allreduce not in lines moves its slices by stores alone: "
        "each rank copies slice s of its contribution into rank s's window, with one flag a "
        "unit after it, and rank s stores the reduced slice into every rank's result, so "
        "that no rank loads from another's memory (a load over NVLink waits a round trip, "
        "stores stream). 0: the slices are read from the peers' buffers (but for two or three "
        "ranks across GPUs: part_ucx_coll_gpu_span_twoshot_push_bytes); 1: pushed where the "
        "ranks are on more than one GPU; 2: also where every rank shares one GPU",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_twoshot_push);
    mca_part_ucx_var("coll_gpu_span_twoshot_push_bytes",
        "GPU engine: where two or three ranks are on more than one GPU, a two-shot allreduce "
        "not in lines of at least this many bytes pushes its slices as "
        "part_ucx_coll_gpu_twoshot_push describes, whatever that says: each link then carries "
        "one or two streams of slices each way, which stores keep fuller than loads (0: never)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_span_twoshot_push_bytes);
    mca_part_ucx_var("coll_gpu_scope_fences",
        "GPU engine: fences no wider than the words' readers: where every rank runs on one "
        "GPU (CUDA MPS), GPU scope between the ranks' words and in the kernels' MPIX_Pready; "
        "GPU scope before the host words that publish results in GPU memory; no fence "
        "before a word that only says a peer's data was read; 0: system-scope fences "
        "always",
        MCA_BASE_VAR_TYPE_BOOL, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_scope_fences);
    mca_part_ucx_var("coll_gpu_relay_bytes",
        "GPU engine, where the ranks are on more than one GPU and read each other's data, for "
        "collectives of at most this many bytes: the kernels' MPIX_Pready release at GPU scope, "
        "and the engine block that sees a unit ready releases it to the peers at system scope "
        "with one word a unit: one fence a unit, off the application's kernels, instead of one "
        "in every MPIX_Pready group that completes a partition. Larger collectives have few "
        "units a block, whose waits the engine's fence then lengthens more than the kernels' "
        "fences, spread over their many blocks, cost (needs part_ucx_coll_gpu_scope_fences; "
        "0: never)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_ALL_EQ,
        &c->coll_gpu_relay_bytes);
    mca_part_ucx_var("coll_gpu_priority",
        "GPU engine: its kernel launched at the device's greatest stream priority, so that "
        "its blocks reach the GPU ahead of the rest of a producing kernel's and move "
        "partitions while that kernel runs (at equal priority a large kernel has every "
        "block on the GPU first). A CUDA graph keeps it where instantiated with "
        "cudaGraphInstantiateFlagUseNodePriority. 0: never; 1: where the ranks are on more "
        "than one GPU; 2: also where every rank shares one GPU, whose SMs and memory the "
        "engine then takes from the producer earlier",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->coll_gpu_priority);
    mca_part_ucx_var("coll_gpu_after_bytes",
        "GPU engine, ranks sharing one GPU: a stream-ordered epoch (MPIX_Start_enqueue) of at "
        "least this many bytes runs its kernel after the work enqueued before "
        "MPIX_Wait_enqueue on the application's stream, on up to the GPU's share of this "
        "rank, behind a small kernel that waits until every rank made every partition "
        "ready; partitions then move only after the producing kernels, which then run "
        "alone. A kernel between MPIX_Start_enqueue and MPIX_Wait_enqueue on that stream "
        "must not wait for MPIX_Parrived of such a collective (it would wait forever). "
        "0: never (the kernel runs beside the producers)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->coll_gpu_after_bytes);
    mca_part_ucx_var("join_bytes_gpu",
        "part_ucx_join_bytes for GPU data",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->join_bytes_gpu);
    mca_part_ucx_var("gpu_eager_bytes",
        "GPU data to a peer without a cuda_ipc mapping: eager up to this many bytes "
        "(0: as UCX picks)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->gpu_eager_bytes);
    mca_part_ucx_var("gpu_host_copy",
        "GPU data to a peer of this node whose buffer maps here: the host copies it on a "
        "stream instead of a UCX rendezvous",
        MCA_BASE_VAR_TYPE_BOOL, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->gpu_host_copy);
    mca_part_ucx_var("gpu_host_copy_kernel",
        "The host's copies of GPU partitions (gpu_host_copy): runs of up to 256 KiB by a "
        "one-block kernel that sets a word the host reads, instead of a copy and an event",
        MCA_BASE_VAR_TYPE_BOOL, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->gpu_host_copy_kernel);
    mca_part_ucx_var("device_arrivals",
        "Kernel copy: kernels also set the receiver's arrival flags where its memory maps",
        MCA_BASE_VAR_TYPE_BOOL, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->device_arrivals);
    mca_part_ucx_var("device_rtr_cache",
        "Kernel copy: one group at a time reads the receiver-ready word in host memory, "
        "the others a copy in GPU memory",
        MCA_BASE_VAR_TYPE_BOOL, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->device_rtr_cache);
    mca_part_ucx_var("device_gpu_scope_fences",
        "Kernel copy where the receive buffer, the sender's kernels and the receiver all "
        "are on one GPU (ranks sharing it, CUDA MPS): GPU-scope fences in the kernels' "
        "MPIX_Pready and in the receiver's waits; 0: system scope always, as between GPUs",
        MCA_BASE_VAR_TYPE_BOOL, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->device_gpu_scope_fences);
    mca_part_ucx_var("stream_kernel_ops",
        "MPIX_Start_enqueue and MPIX_Wait_enqueue of epochs without a host: one-thread "
        "kernels write and wait for the epoch instead of stream memory operations (which "
        "stall the other streams sharing their hardware queue while they wait; epochs "
        "the host runs always use kernels)",
        MCA_BASE_VAR_TYPE_BOOL, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->stream_kernel_ops);
    mca_part_ucx_var("stream_copy_engine",
        "MPIX_Start_enqueue of a device send on the progress engine (info "
        "\"mpix_device_copy\" \"progress\") whose receiver's GPU buffer is mapped here (one "
        "node): its stream moves the epoch, with no host: at MPIX_Wait_enqueue it waits for "
        "the kernels' marks and the receiver's ready-to-receive, copies the buffer with a copy "
        "engine and sets the receiver's arrival flags; epochs captured into a CUDA graph "
        "too. 0: the progress thread runs such epochs as MPI_Start would (needs "
        "MPI_THREAD_MULTIPLE)",
        MCA_BASE_VAR_TYPE_BOOL, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->stream_copy_engine);
    mca_part_ucx_var("stream_copy_after_bytes",
        "A device send declared stream-only (info \"mpix_stream_kernels\") whose kernels "
        "store into the receiver's GPU buffer (kernel copy, one node) and whose buffer has at "
        "least this many bytes: its MPIX_Pready only marks the partition, and "
        "MPIX_Wait_enqueue copies the epoch in a kernel of its own on every SM once the "
        "kernels before it have ended, rather than the kernels copy each group as it "
        "completes. Partitions then arrive only after the producing kernels: a kernel "
        "between MPIX_Start_enqueue and MPIX_Wait_enqueue must not wait for anything the "
        "receiver does once the data arrived. 0: never",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->stream_copy_after_bytes);
    mca_part_ucx_enum_var("stream_graph_start",
        "MPIX_Start_enqueue in a stream being captured into a CUDA graph: a one-thread "
        "kernel (kernel), or copies from host memory, which need no SM but take longer "
        "(copy); auto: copies where the sender's kernels run on the receiver's GPU (ranks "
        "sharing a GPU under CUDA MPS), which could otherwise fill the GPU waiting for the "
        "start",
        mca_part_ucx_graph_start_values, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->stream_graph_start, NULL);
    mca_part_ucx_var("stream_graph_join",
        "MPIX_Start_enqueue captured into a CUDA graph right after a MPIX_Wait_enqueue "
        "(nothing on the stream between them): the wait's kernel makes the start once it "
        "has waited, instead of a node of its own (kernel or copies) after it",
        MCA_BASE_VAR_TYPE_BOOL, NULL, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &c->stream_graph_join);
    mca_part_ucx_var("epoch_ahead_bytes",
        "Epochs of up to this many bytes over active messages: senders may run one epoch "
        "ahead and the ready-to-receive rides on partition messages (0: off)",
        MCA_BASE_VAR_TYPE_INT, NULL, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &c->epoch_ahead_bytes);

    mca_part_ucx_common_synonyms(version);
    return mca_part_ucx_pvar_register(version);
}

static int mca_part_ucx_component_open(void)
{
    opal_common_ucx_mca_register();
    return OMPI_SUCCESS;
}

static int mca_part_ucx_component_close(void)
{
    int i;

    for (i = 0; i < MCA_PART_UCX_ENUM_COUNT; ++i) {
        if (NULL != mca_part_ucx_module.enums[i]) {
            OBJ_RELEASE(mca_part_ucx_module.enums[i]);
        }
    }
    opal_common_ucx_mca_deregister();
    return OMPI_SUCCESS;
}

/* The configured priority where UCX reaches every peer by a fast
 * transport: a device of part_ucx_devices (opal_common_ucx_support_level,
 * as pml/ucx decides), or shared memory where the whole job runs on this
 * node. Elsewhere (tcp between nodes or only tcp) part/persist over the PML
 * has the lower latency, so part/ucx goes below it; named alone
 * (--mca part ucx) it is still the one selected. */
static int mca_part_ucx_priority(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    bool one_node = (int) opal_process_info.num_local_peers + 1 >= ompi_proc_world_size();

    if (OPAL_COMMON_UCX_SUPPORT_DEVICE == opal_common_ucx_support_level(m->context)) {
        MCA_PART_UCX_VERBOSE(1, "UCX has a supported device: priority %d",
                             m->params.priority);
        return m->params.priority;
    }
    if (one_node && m->rma_local) {
        MCA_PART_UCX_VERBOSE(1, "one node with shared memory: priority %d",
                             m->params.priority);
        return m->params.priority;
    }
    MCA_PART_UCX_VERBOSE(1, "no supported device%s: priority 0, below part/persist",
                         one_node ? " and no shared memory" : " and peers on other nodes");
    return 0;
}

static mca_part_base_module_t *
mca_part_ucx_component_init(int *priority, bool enable_progress_threads,
                            bool enable_mpi_threads)
{
    int rc;

    if (mca_part_ucx_module.params.num_workers < 1) {
        opal_show_help("help-part-ucx.txt", "bad num_workers", true,
                       mca_part_ucx_module.params.num_workers);
        return NULL;
    }

    rc = mca_part_ucx_module_init(&mca_part_ucx_component.super.partm_version,
                                  enable_mpi_threads);
    if (OMPI_SUCCESS != rc) {
        /* A component that cannot run declines; part/persist takes over. */
        return NULL;
    }

    opal_progress_register(mca_part_ucx_progress);
    ompi_mpi_instance_append_finalize(mca_part_ucx_instance_fini);
    *priority = mca_part_ucx_priority();
    MCA_PART_UCX_VERBOSE(1, "initialized with %d worker(s), priority %d",
                         mca_part_ucx_module.num_workers, *priority);
    return &mca_part_ucx_module.super;
}

/* Open MPI 5.0 calls partm_finalize only on the part components it does
 * not select, so the selected one registers it among MPI_Finalize's
 * cleanups, which run while the CUDA driver still does: UCX's workers
 * would otherwise outlive MPI_Finalize, and UCX 1.22 would close the CUDA
 * IPC mappings they cached from its library destructors at exit, after the
 * driver has shut down (cuda_ctx.c: CUDA_ERROR_DEINITIALIZED). A second
 * call does nothing. */
static void mca_part_ucx_instance_fini(void *arg)
{
    (void) arg;
    (void) mca_part_ucx_component_fini();
}

static int mca_part_ucx_component_fini(void)
{
    if (mca_part_ucx_module.initialized) {
        opal_progress_unregister(mca_part_ucx_progress);
    }
    return mca_part_ucx_module_fini();
}
