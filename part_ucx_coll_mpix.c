/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The partitioned collectives' entries of the module (MPIX_Pallreduce_init
 * and the others, whose bindings are in ompi/mpiext/part): argument
 * checks, the collective request, and the builder that fills its schedule.
 */

#include "ompi_config.h"

#include "opal/mca/timer/base/base.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/info/info.h"
#include "opal/util/show_help.h"

#include "part_ucx.h"
#include "part_ucx_coll.h"
#include "part_ucx_coll_gpu.h"
#include "part_ucx_memtype.h"
#include "part_ucx_mpix.h"

typedef enum {
    MCA_PART_UCX_ALLREDUCE,
    MCA_PART_UCX_REDUCE,
    MCA_PART_UCX_BCAST,
    MCA_PART_UCX_ALLGATHER,
    MCA_PART_UCX_ALLTOALL
} mca_part_ucx_coll_kind_t;

/* Arguments this rank can check alone. Buffers: MPI_IN_PLACE is a send
 * buffer (of the root only, for reduce), never a receive buffer; a
 * non-root reduce ignores its receive buffer, as MPI_Reduce does. */
static int mca_part_ucx_coll_check(mca_part_ucx_coll_kind_t kind, const void *sendbuf,
                                   const void *recvbuf, ompi_communicator_t *comm,
                                   int partitions, int count, ompi_datatype_t *dtype,
                                   ompi_op_t *op, int root, MPI_Request *request)
{
    bool need_op = MCA_PART_UCX_ALLREDUCE == kind || MCA_PART_UCX_REDUCE == kind;
    bool need_root = MCA_PART_UCX_REDUCE == kind || MCA_PART_UCX_BCAST == kind;
    int n = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    size_t type_size, span, blocks;
    ptrdiff_t lb, extent;

    if (NULL == request || partitions < 0) {
        return MPI_ERR_ARG;
    }
    if (count < 0) {
        return MPI_ERR_COUNT;
    }
    if (NULL == dtype || MPI_DATATYPE_NULL == dtype || !opal_datatype_is_committed(&dtype->super)) {
        return MPI_ERR_TYPE;
    }
    if (need_op) {
        char *msg = NULL;
        /* MPI_REPLACE and MPI_NO_OP are for accumulate operations only
         * (MPI 4.0 §12.3.4); Open MPI's op framework defines them on every
         * type, for one-sided communication. */
        bool ok = NULL != op && MPI_OP_NULL != op && MPI_REPLACE != op && MPI_NO_OP != op &&
                  ompi_op_is_commute(op) &&
                  ompi_op_is_valid(op, dtype, &msg, "partitioned reduction");
        if (NULL != msg) {
            MCA_PART_UCX_VERBOSE(5, "%s", msg);
            free(msg);
        }
        if (!ok) {
            return MPI_ERR_OP;
        }
    }
    if (need_root && (root < 0 || root >= n)) {
        return MPI_ERR_ROOT;
    }
    if (MCA_PART_UCX_ALLTOALL == kind && MPI_IN_PLACE == sendbuf) {
        return MPI_ERR_ARG; /* blocks would be overwritten while still to be sent */
    }
    if ((MPI_IN_PLACE == recvbuf && (MCA_PART_UCX_REDUCE != kind || rank == root)) ||
        (MCA_PART_UCX_REDUCE == kind && rank != root && MPI_IN_PLACE == sendbuf)) {
        return MPI_ERR_BUFFER;
    }
    /* Byte and element offsets of the largest buffer (n blocks for
     * allgather and alltoall) must fit a ptrdiff_t. */
    ompi_datatype_type_size(dtype, &type_size);
    ompi_datatype_get_extent(dtype, &lb, &extent);
    span = (size_t) (extent < 0 ? -extent : extent);
    span = (span > type_size) ? span : type_size;
    blocks = (MCA_PART_UCX_ALLGATHER == kind || MCA_PART_UCX_ALLTOALL == kind) ? (size_t) n : 1;
    if (0 < partitions && 0 < span &&
        (size_t) count > (size_t) PTRDIFF_MAX / span / (size_t) partitions / blocks) {
        return MPI_ERR_COUNT;
    }
    return MPI_SUCCESS;
}

/* Transport partitions: the largest group of consecutive user partitions
 * (a divisor of their number, so that all groups are alike) that stays
 * within part_ucx_coll_transport_bytes (_gpu for GPU buffers), or the info key
 * "mpix_coll_transport_bytes" (0 for one transport partition per user
 * partition, e.g. where a partition is made ready only after another one
 * has arrived). Counted in bytes moved (the type's size), so that ranks
 * with the same type signature in other datatypes choose alike; ranks that
 * still differ (info keys, GPU and host buffers) take the smallest group
 * (mca_part_ucx_coll_agree), a divisor too. */
static int mca_part_ucx_coll_group(const mca_part_ucx_coll_t *c,
                                   const mca_part_ucx_request_t *req, ompi_info_t *info,
                                   size_t *group)
{
    int limit = c->device ? mca_part_ucx_module.params.coll_transport_bytes_gpu
                          : mca_part_ucx_module.params.coll_transport_bytes;
    size_t bytes = req->part_bytes, g;
    int rc = mca_part_ucx_info_int(info, "mpix_coll_transport_bytes", 0, &limit);

    if (MPI_SUCCESS != rc) {
        return rc;
    }

    *group = 1;
    for (g = 2; g <= req->parts && 0 < bytes && limit > 0 && g * bytes <= (size_t) limit; ++g) {
        if (0 == req->parts % g) {
            *group = g;
        }
    }
    return MPI_SUCCESS;
}

/* The signature every rank of the communicator contributes at init. The
 * fields from KIND to ALG must be equal everywhere; GROUP, DEVICE and GPU
 * are settled (smallest group, whether any rank has GPU buffers, whether
 * every rank can run the GPU engine), and so are the GPU engine's settings
 * from GUNIT on (the smallest of each, mca_part_ucx_gcoll_params_t). */
enum {
    MCA_PART_UCX_SIG_ERROR,  /* this rank's error class, 0 if none */
    MCA_PART_UCX_SIG_KIND,
    MCA_PART_UCX_SIG_ROOT,   /* reduce, bcast */
    MCA_PART_UCX_SIG_OP,     /* reductions: predefined op, or "a user op" */
    MCA_PART_UCX_SIG_PARTS,
    MCA_PART_UCX_SIG_BYTES,  /* type signature of a partition: bytes, */
    MCA_PART_UCX_SIG_ELEMS,  /* basic elements */
    MCA_PART_UCX_SIG_BASIC,  /* and which basic types */
    MCA_PART_UCX_SIG_COUNT,  /* reductions: the count itself (chunks are in elements) */
    MCA_PART_UCX_SIG_ALG,    /* allreduce: the schedule asked for */
    MCA_PART_UCX_SIG_GROUP,
    MCA_PART_UCX_SIG_DEVICE,
    MCA_PART_UCX_SIG_GPU,    /* whether this rank can run the GPU engine */
    MCA_PART_UCX_SIG_GUNIT,  /* mca_part_ucx_gcoll_params_t, field by field */
    MCA_PART_UCX_SIG_GBLOCKS,
    MCA_PART_UCX_SIG_GTWOSHOT,
    MCA_PART_UCX_SIG_GPUSH,
    MCA_PART_UCX_SIG_GBULK,
    MCA_PART_UCX_SIG_GFENCES,
    MCA_PART_UCX_SIG_GBULK1,
    MCA_PART_UCX_SIG_GSPAN,
    MCA_PART_UCX_SIG_GSPANPUSH,
    MCA_PART_UCX_SIG_GLL128,
    MCA_PART_UCX_SIG_GSPANBLOCKS,
    MCA_PART_UCX_SIG_GLL128TWO,
    MCA_PART_UCX_SIG_GTWOSHOTPUSH,
    MCA_PART_UCX_SIG_GRELAY,
    MCA_PART_UCX_SIG_GSPANTWOPUSH,
    MCA_PART_UCX_SIG_GSPANTWO,
    MCA_PART_UCX_SIG_N
};

/* The GPU engine's settings in the signature, in their order there from
 * MCA_PART_UCX_SIG_GUNIT on: each one's field of mca_part_ucx_gcoll_params_t
 * and its MCA variable's name (part_ucx_coll_gpu_NAME). */
#define MCA_PART_UCX_GSETTING(name) {#name, offsetof(mca_part_ucx_gcoll_params_t, name)}
static const struct {
    const char *name;
    size_t offset;
} mca_part_ucx_coll_gsettings[] = {
    MCA_PART_UCX_GSETTING(unit_bytes),      MCA_PART_UCX_GSETTING(blocks),
    MCA_PART_UCX_GSETTING(twoshot_bytes),   MCA_PART_UCX_GSETTING(push_bytes),
    MCA_PART_UCX_GSETTING(bulk_bytes),      MCA_PART_UCX_GSETTING(scope_fences),
    MCA_PART_UCX_GSETTING(bulk_one_gpu),    MCA_PART_UCX_GSETTING(span_unit_bytes),
    MCA_PART_UCX_GSETTING(span_push_bytes), MCA_PART_UCX_GSETTING(ll128_bytes),
    MCA_PART_UCX_GSETTING(span_blocks),     MCA_PART_UCX_GSETTING(ll128_twoshot_bytes),
    MCA_PART_UCX_GSETTING(twoshot_push),    MCA_PART_UCX_GSETTING(relay_bytes),
    MCA_PART_UCX_GSETTING(span_twoshot_push_bytes), MCA_PART_UCX_GSETTING(span_twoshot_bytes)};
#undef MCA_PART_UCX_GSETTING
_Static_assert(sizeof(mca_part_ucx_coll_gsettings) / sizeof(mca_part_ucx_coll_gsettings[0]) ==
                   MCA_PART_UCX_SIG_N - MCA_PART_UCX_SIG_GUNIT,
               "one entry for each GPU engine setting of the signature");

static uint64_t *mca_part_ucx_coll_gfield(mca_part_ucx_gcoll_params_t *p, int i)
{
    size_t offset = mca_part_ucx_coll_gsettings[i - MCA_PART_UCX_SIG_GUNIT].offset;

    return (uint64_t *) ((char *) p + offset);
}

/* Arguments of a collective must agree across ranks (for reductions the
 * same count, datatype, op and root; elsewhere the same type signature);
 * where they do not, schedules of different shape or size are built and
 * their channels carry wrong data or never match. Channels cannot find
 * every mismatch alone: with another root or collective some of them never
 * meet their peer, so nothing would end the wait. So every rank
 * contributes its signature to one allreduce over the communicator at
 * init (initialization of a persistent collective is nonlocal, MPI 4.1
 * §6.13, and follows the ordering rules of collectives, so it cannot
 * cross another collective on the communicator): the maximum of each field
 * and of its complement give every rank the maximum and the minimum of
 * every field, one allreduce of 2 x 25 words, O(log n) and a few
 * microseconds on a node. Every rank then fails alike: a rank with an
 * invalid argument (it joins the allreduce anyway, so that the others do
 * not wait for it) returns its own error class and the others the largest
 * class reported; a difference between valid arguments is MPI_ERR_ARG on
 * every rank, whichever argument differs (MPI_ERR_OP or MPI_ERR_ROOT would
 * say that this rank's op or root is invalid, which it is not), with a help
 * message from the lowest rank (the first mismatch of the process; each
 * one at opal_common_ucx_verbose 1). The type signature is compared by bytes,
 * basic elements and the set of basic types of a partition: the same
 * signature in other datatypes is legal (bcast, allgather, alltoall: MPI_INT
 * x 4 and a contiguous type of two MPI_INTs x 2 both work), permutations of
 * mixed basic types are not told apart. User ops are compared only as
 * "user" (their identity is local). */
static int mca_part_ucx_coll_agree(ompi_communicator_t *comm, int local_rc,
                                   uint64_t sig[MCA_PART_UCX_SIG_N])
{
    static const char *const names[MCA_PART_UCX_SIG_ALG + 1] = {
        NULL, "collective", "root", "operation", "partitions", "bytes per partition",
        "basic elements per partition", "basic types", "count", "allreduce algorithm"};
    static opal_atomic_int32_t told = 0;
    uint64_t v[2 * MCA_PART_UCX_SIG_N], lo, hi;
    char differ[256] = "";
    int i, rc;

    sig[MCA_PART_UCX_SIG_ERROR] = (uint64_t) local_rc;
    if (1 == ompi_comm_size(comm)) {
        return local_rc;
    }
    for (i = 0; i < MCA_PART_UCX_SIG_N; ++i) {
        v[i] = sig[i];
        v[MCA_PART_UCX_SIG_N + i] = ~sig[i];
    }
    rc = comm->c_coll->coll_allreduce(MPI_IN_PLACE, v, 2 * MCA_PART_UCX_SIG_N,
                                      &ompi_mpi_uint64_t.dt, &ompi_mpi_op_max.op, comm,
                                      comm->c_coll->coll_allreduce_module);
    if (OMPI_SUCCESS != rc) {
        return (MPI_SUCCESS != local_rc) ? local_rc : MPI_ERR_INTERN;
    }
    if (MPI_SUCCESS != local_rc || 0 != v[MCA_PART_UCX_SIG_ERROR]) {
        return (MPI_SUCCESS != local_rc) ? local_rc : (int) v[MCA_PART_UCX_SIG_ERROR];
    }
    for (i = MCA_PART_UCX_SIG_KIND; i <= MCA_PART_UCX_SIG_ALG; ++i) {
        hi = v[i];
        lo = ~v[MCA_PART_UCX_SIG_N + i];
        if (lo != hi) {
            if ('\0' != differ[0]) {
                strncat(differ, ", ", sizeof(differ) - strlen(differ) - 1);
            }
            strncat(differ, names[i], sizeof(differ) - strlen(differ) - 1);
        }
    }
    if ('\0' != differ[0]) {
        MCA_PART_UCX_VERBOSE(1, "partitioned collective: arguments differ across ranks: %s",
                             differ);
        if (0 == ompi_comm_rank(comm)) {
            mca_part_ucx_show_help(&told, "coll mismatch", differ, ompi_comm_print_cid(comm));
        }
        return MPI_ERR_ARG;
    }
    sig[MCA_PART_UCX_SIG_GROUP] = ~v[MCA_PART_UCX_SIG_N + MCA_PART_UCX_SIG_GROUP];
    sig[MCA_PART_UCX_SIG_DEVICE] = v[MCA_PART_UCX_SIG_DEVICE];
    sig[MCA_PART_UCX_SIG_GPU] = ~v[MCA_PART_UCX_SIG_N + MCA_PART_UCX_SIG_GPU];
    for (i = MCA_PART_UCX_SIG_GUNIT; i < MCA_PART_UCX_SIG_N; ++i) {
        lo = ~v[MCA_PART_UCX_SIG_N + i];
        if (lo != v[i] && 0 != sig[MCA_PART_UCX_SIG_GPU]) {
            MCA_PART_UCX_VERBOSE(1, "partitioned collective: part_ucx_coll_gpu_%s differs "
                                 "across ranks (%" PRIu64 " to %" PRIu64 "): every rank "
                                 "takes %" PRIu64,
                                 mca_part_ucx_coll_gsettings[i - MCA_PART_UCX_SIG_GUNIT].name,
                                 lo, v[i], lo);
        }
        sig[i] = lo;
    }
    return MPI_SUCCESS;
}

/* The GPU engine's kind of a collective. */
static int mca_part_ucx_coll_gkind(mca_part_ucx_coll_kind_t kind)
{
    switch (kind) {
    case MCA_PART_UCX_ALLREDUCE: return MCA_PART_UCX_GCOLL_ALLREDUCE;
    case MCA_PART_UCX_REDUCE: return MCA_PART_UCX_GCOLL_REDUCE;
    case MCA_PART_UCX_BCAST: return MCA_PART_UCX_GCOLL_BCAST;
    case MCA_PART_UCX_ALLGATHER: return MCA_PART_UCX_GCOLL_ALLGATHER;
    case MCA_PART_UCX_ALLTOALL: return MCA_PART_UCX_GCOLL_ALLTOALL;
    }
    return -1;
}

/* The request and what this rank decides alone: buffers, GPU, group,
 * schedule asked for; the signature for mca_part_ucx_coll_agree. */
static int mca_part_ucx_coll_local(mca_part_ucx_coll_kind_t kind, const void *sendbuf,
                                   void *recvbuf, int partitions, int count,
                                   ompi_datatype_t *dtype, ompi_op_t *op, int root,
                                   ompi_communicator_t *comm, ompi_info_t *info,
                                   mca_part_ucx_request_t **out, uint64_t *sig)
{
    int n = ompi_comm_size(comm), rank = ompi_comm_rank(comm), rc, alg = 0, i;
    mca_part_ucx_collreq_t *creq;
    mca_part_ucx_request_t *req;
    mca_part_ucx_coll_t *c;
    size_t group;

    creq = OBJ_NEW(mca_part_ucx_collreq_t);
    c = calloc(1, sizeof(*c));
    if (NULL == creq || NULL == c) {
        free(c);
        if (NULL != creq) {
            OBJ_RELEASE(creq);
        }
        return MPI_ERR_NO_MEM;
    }
    req = &creq->super;
    mca_part_ucx_request_init_base(req, MCA_PART_UCX_COLL, &mca_part_ucx_coll_ops,
                                   (size_t) partitions, (size_t) count, dtype, rank, comm);
    creq->coll = c;
    OBJ_CONSTRUCT(&c->lock, opal_mutex_t);
    *out = req;
    /* Listed like point-to-point requests, so MPIX_Prequest_free finds it;
     * control messages check the kind and never take it for theirs. */
    rc = (OMPI_SUCCESS == mca_part_ucx_request_register(req))
             ? mca_part_ucx_request_dev_info(req, info) /* device requests: mpix_pready_threads */
             : MPI_ERR_NO_MEM;
    if (MPI_SUCCESS == rc) {
        /* as a send's: epochs only enqueued (MPI_Start fails) */
        rc = mca_part_ucx_info_bool(info, "mpix_stream_kernels", &req->stream_only);
    }
    if (MPI_SUCCESS != rc) {
        return rc;
    }
    c->stream_kernels = req->stream_only;
    c->comm = comm;
    c->dtype = dtype;
    c->op = op;
    c->extent = req->extent;
    c->acc = recvbuf;
    c->sendbuf = (MPI_IN_PLACE == sendbuf) ? NULL : sendbuf;
    c->user_pready = (MCA_PART_UCX_BCAST != kind) || (rank == root);
    req->takes_pready = c->user_pready;
    c->user_parts = req->parts;
    if (MCA_PART_UCX_ALLGATHER == kind || MCA_PART_UCX_ALLTOALL == kind) {
        req->total_bytes *= (size_t) n;
    }
    if (MCA_PART_UCX_REDUCE == kind && rank != root) {
        c->acc = NULL; /* ignored: the partial result is kept here (owned) */
    }
    /* GPU buffers (asked once, through opal's accelerator framework). */
    c->device = (NULL != c->acc && mca_part_ucx_is_device(c->acc, req->total_bytes)) ||
                (NULL != c->sendbuf && mca_part_ucx_is_device(c->sendbuf, req->total_bytes));
    if (c->device) {
        rc = mca_part_ucx_coll_device_check(c, NULL != op);
    }
    if (MPI_SUCCESS == rc) {
        rc = mca_part_ucx_coll_group(c, req, info, &group);
    }
    if (MPI_SUCCESS == rc && MCA_PART_UCX_ALLREDUCE == kind) {
        rc = mca_part_ucx_allreduce_info(info, &alg);
    }
    if (MPI_SUCCESS != rc) {
        return rc;
    }
    sig[MCA_PART_UCX_SIG_KIND] = (uint64_t) kind + 1;
    sig[MCA_PART_UCX_SIG_ROOT] =
        (MCA_PART_UCX_REDUCE == kind || MCA_PART_UCX_BCAST == kind) ? root : 0;
    sig[MCA_PART_UCX_SIG_OP] = (NULL == op) ? 0
                               : ompi_op_is_intrinsic(op) ? (uint64_t) op->op_type
                                                          : (uint64_t) OMPI_OP_NUM_OF_TYPES;
    sig[MCA_PART_UCX_SIG_PARTS] = (uint64_t) partitions;
    sig[MCA_PART_UCX_SIG_BYTES] = req->part_bytes;
    if (0 < req->part_bytes) {
        sig[MCA_PART_UCX_SIG_ELEMS] = (uint64_t) count * dtype->super.nbElems;
        sig[MCA_PART_UCX_SIG_BASIC] = dtype->super.bdt_used;
    }
    sig[MCA_PART_UCX_SIG_COUNT] = (NULL == op) ? 0 : (uint64_t) count;
    sig[MCA_PART_UCX_SIG_ALG] = (uint64_t) alg;
    sig[MCA_PART_UCX_SIG_GROUP] = group;
    sig[MCA_PART_UCX_SIG_DEVICE] = c->device;
    sig[MCA_PART_UCX_SIG_GPU] = mca_part_ucx_gcoll_possible(c, mca_part_ucx_coll_gkind(kind),
                                                            MPI_IN_PLACE == sendbuf);
    mca_part_ucx_gcoll_params_local(&c->gparams);
    for (i = MCA_PART_UCX_SIG_GUNIT; i < MCA_PART_UCX_SIG_N; ++i) {
        sig[i] = *mca_part_ucx_coll_gfield(&c->gparams, i);
    }
    return MPI_SUCCESS;
}

static int mca_part_ucx_coll_init(mca_part_ucx_coll_kind_t kind, const void *sendbuf,
                                  void *recvbuf, int partitions, int count,
                                  ompi_datatype_t *dtype, ompi_op_t *op, int root,
                                  ompi_communicator_t *comm, ompi_info_t *info,
                                  ompi_request_t **request, int rc)
{
    int n = ompi_comm_size(comm), rank = ompi_comm_rank(comm), alg = 0, i;
    uint64_t sig[MCA_PART_UCX_SIG_N] = {0};
    bool gpu_engine = false;
    mca_part_ucx_request_t *req = NULL;
    mca_part_ucx_coll_t *c = NULL;
    opal_timer_t t[5]; /* where the time of an init goes, for opal_common_ucx_verbose >= 10 */

    t[4] = opal_timer_base_get_usec();
    if (MPI_SUCCESS == rc) {
        rc = mca_part_ucx_coll_local(kind, sendbuf, recvbuf, partitions, count, dtype, op, root,
                                     comm, info, &req, sig);
    }
    t[0] = opal_timer_base_get_usec();
    rc = mca_part_ucx_coll_agree(comm, rc, sig);
    t[1] = opal_timer_base_get_usec();
    if (MPI_SUCCESS == rc) {
        c = mca_part_ucx_collreq(req)->coll;
        alg = (int) sig[MCA_PART_UCX_SIG_ALG];
        for (i = MCA_PART_UCX_SIG_GUNIT; i < MCA_PART_UCX_SIG_N; ++i) {
            *mca_part_ucx_coll_gfield(&c->gparams, i) = sig[i];
        }
        c->group = sig[MCA_PART_UCX_SIG_GROUP];
        c->parts = req->parts / c->group;
        c->count = req->count * c->group;
        if (MCA_PART_UCX_ALLGATHER == kind || MCA_PART_UCX_ALLTOALL == kind) {
            /* Our own block of the result: from our send buffer (allgather)
             * or from our block of it (alltoall). */
            c->own_dst = (size_t) rank * req->parts * req->count;
            c->own_src = (MCA_PART_UCX_ALLTOALL == kind) ? c->own_dst : 0;
        }
        /* + 1: zero partitions are legal */
        c->state = calloc(c->parts + 1, sizeof(*c->state));
        c->gpu_pending_state = calloc(c->parts + 1, sizeof(*c->gpu_pending_state));
        c->user_ready = calloc(c->user_parts + 1, sizeof(*c->user_ready));
        c->ready_count = calloc(c->parts + 1, sizeof(*c->ready_count));
        if (MCA_PART_UCX_REDUCE == kind && rank != root) {
            /* Other ranks have no result buffer: keep the partial one here. */
            c->owned_bytes = c->parts * c->count * c->extent;
            c->owned = mca_part_ucx_coll_alloc(c, c->owned_bytes);
            c->acc = c->owned;
        }
        if (NULL == c->state || NULL == c->gpu_pending_state || NULL == c->user_ready ||
            NULL == c->ready_count ||
            (MCA_PART_UCX_REDUCE == kind && rank != root && NULL == c->owned)) {
            rc = MPI_ERR_NO_MEM;
        } else if (c->device) {
            rc = mca_part_ucx_coll_device(c);
        }
    }
    if (MPI_SUCCESS == rc && 0 != sig[MCA_PART_UCX_SIG_GPU] && 0 < c->parts &&
        0 < req->part_bytes) {
        rc = mca_part_ucx_gcoll_setup(c, mca_part_ucx_coll_gkind(kind), root,
                                      req->parts * req->part_bytes, &gpu_engine);
    }
    if (gpu_engine) {
        mca_part_ucx_collreq(req)->gpu_ready = mca_part_ucx_gcoll_ready_words(c);
        mca_part_ucx_collreq(req)->gpu_done = mca_part_ucx_gcoll_done_words(c);
        mca_part_ucx_collreq(req)->gpu_scope = mca_part_ucx_gcoll_gpu_scope(c);
        mca_part_ucx_collreq(req)->gpu_ordered = mca_part_ucx_gcoll_ordered(c);
    }
    t[2] = opal_timer_base_get_usec();
    if (MPI_SUCCESS != rc || 0 == c->parts || 0 == req->part_bytes || gpu_engine) {
        /* rc says why; or nothing to move: every partition completes as
         * it starts (no steps); or the GPU engine runs it */
    } else if (MCA_PART_UCX_ALLREDUCE == kind) {
        rc = mca_part_ucx_build_allreduce(c, alg, 0 != sig[MCA_PART_UCX_SIG_DEVICE]);
    } else if (MCA_PART_UCX_REDUCE == kind) {
        rc = mca_part_ucx_build_reduce(c, root);
    } else if (MCA_PART_UCX_ALLGATHER == kind) {
        rc = mca_part_ucx_build_allgather(c);
    } else if (MCA_PART_UCX_ALLTOALL == kind) {
        rc = mca_part_ucx_build_alltoall(c);
    } else {
        rc = mca_part_ucx_build_bcast(c, root);
    }
    if (OMPI_SUCCESS == rc && 0 < c->nchans) {
        rc = mca_part_ucx_coll_channels(c);
    }
    if (OMPI_SUCCESS == rc && !gpu_engine) {
        rc = mca_part_ucx_coll_commit(c);
    }
    t[3] = opal_timer_base_get_usec();
    if (OMPI_SUCCESS != rc) {
        if (NULL != req) {
            ompi_request_t *r = &req->super;
            (void) r->req_free(&r);
        }
        return (rc < 0) ? MPI_ERR_INTERN : rc;
    }
    MCA_PART_UCX_VERBOSE(10, "collective %d: %llu us (request %llu, agreement %llu, buffers and "
                         "GPU setup %llu, schedule, scratch and channels %llu)", (int) kind,
                         (unsigned long long) (t[3] - t[4]), (unsigned long long) (t[0] - t[4]),
                         (unsigned long long) (t[1] - t[0]), (unsigned long long) (t[2] - t[1]),
                         (unsigned long long) (t[3] - t[2]));
    MCA_PART_UCX_VERBOSE(10, "collective %d on %d ranks: %d channels, %d steps, %d partitions "
                         "in %zu transport partitions", (int) kind, n, c->nchans, c->nsteps,
                         partitions, c->parts);
    *request = &req->super;
    return MPI_SUCCESS;
}

/* Every MPIX_P*_init: check, agree, build; the binding reports the error
 * class returned. */
static int mca_part_ucx_coll_entry(mca_part_ucx_coll_kind_t kind, const void *sendbuf,
                                   void *recvbuf, int partitions, int count,
                                   ompi_datatype_t *dtype, ompi_op_t *op, int root,
                                   ompi_communicator_t *comm, ompi_info_t *info,
                                   ompi_request_t **request)
{
    int rc;

    if (!mca_part_ucx_module.initialized) {
        rc = MPI_ERR_UNSUPPORTED_OPERATION; /* part/ucx is not the selected component */
    } else if (ompi_comm_invalid(comm) || OMPI_COMM_IS_INTER(comm)) {
        rc = MPI_ERR_COMM;
    } else {
        /* from here on every rank joins the agreement, even with an error */
        rc = mca_part_ucx_coll_check(kind, sendbuf, recvbuf, comm, partitions, count, dtype, op,
                                     root, request);
        rc = mca_part_ucx_coll_init(kind, sendbuf, recvbuf, partitions, count, dtype, op, root,
                                    comm, info, request, rc);
    }
    return rc;
}

int mca_part_ucx_pallreduce_init(const void *sendbuf, void *recvbuf, int partitions, int count,
                                 ompi_datatype_t *datatype, ompi_op_t *op,
                                 ompi_communicator_t *comm, ompi_info_t *info,
                                 ompi_request_t **request)
{
    return mca_part_ucx_coll_entry(MCA_PART_UCX_ALLREDUCE, sendbuf, recvbuf, partitions, count,
                                   datatype, op, 0, comm, info, request);
}

int mca_part_ucx_preduce_init(const void *sendbuf, void *recvbuf, int partitions, int count,
                              ompi_datatype_t *datatype, ompi_op_t *op, int root,
                              ompi_communicator_t *comm, ompi_info_t *info,
                              ompi_request_t **request)
{
    return mca_part_ucx_coll_entry(MCA_PART_UCX_REDUCE, sendbuf, recvbuf, partitions, count,
                                   datatype, op, root, comm, info, request);
}

int mca_part_ucx_pbcast_init(void *buffer, int partitions, int count, ompi_datatype_t *datatype,
                             int root, ompi_communicator_t *comm, ompi_info_t *info,
                             ompi_request_t **request)
{
    return mca_part_ucx_coll_entry(MCA_PART_UCX_BCAST, NULL, buffer, partitions, count, datatype,
                                   NULL, root, comm, info, request);
}

int mca_part_ucx_pallgather_init(const void *sendbuf, void *recvbuf, int partitions, int count,
                                 ompi_datatype_t *datatype, ompi_communicator_t *comm,
                                 ompi_info_t *info, ompi_request_t **request)
{
    return mca_part_ucx_coll_entry(MCA_PART_UCX_ALLGATHER, sendbuf, recvbuf, partitions, count,
                                   datatype, NULL, 0, comm, info, request);
}

int mca_part_ucx_palltoall_init(const void *sendbuf, void *recvbuf, int partitions, int count,
                                ompi_datatype_t *datatype, ompi_communicator_t *comm,
                                ompi_info_t *info, ompi_request_t **request)
{
    return mca_part_ucx_coll_entry(MCA_PART_UCX_ALLTOALL, sendbuf, recvbuf, partitions, count,
                                   datatype, NULL, 0, comm, info, request);
}
