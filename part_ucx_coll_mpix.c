/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * MPIX_ entry points of the partitioned collectives: argument checks, the
 * collective request, and the builder that fills its schedule.
 */

#include "ompi_config.h"

#include "opal/mca/timer/base/base.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/errhandler/errhandler.h"
#include "ompi/info/info.h"
#include "ompi/runtime/params.h"

#include "mpix_part.h"
#include "part_ucx.h"
#include "part_ucx_coll.h"
#include "part_ucx_memtype.h"

typedef enum {
    PART_UCX_ALLREDUCE,
    PART_UCX_REDUCE,
    PART_UCX_BCAST,
    PART_UCX_ALLGATHER,
    PART_UCX_ALLTOALL
} mca_part_ucx_coll_kind_t;

static int mca_part_ucx_coll_check(mca_part_ucx_coll_kind_t kind, const void *sendbuf,
                                   ompi_communicator_t *comm, int partitions, int count,
                                   ompi_datatype_t *dtype, ompi_op_t *op, int root,
                                   MPI_Request *request)
{
    bool need_op = PART_UCX_ALLREDUCE == kind || PART_UCX_REDUCE == kind;
    bool need_root = PART_UCX_REDUCE == kind || PART_UCX_BCAST == kind;

    if (!mca_part_ucx_module.initialized) {
        return MPI_ERR_UNSUPPORTED_OPERATION; /* part/ucx is not the selected component */
    }
    if (ompi_comm_invalid(comm) || OMPI_COMM_IS_INTER(comm)) {
        return MPI_ERR_COMM;
    }
    if (NULL == request || partitions <= 0) {
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
            PART_UCX_VERBOSE(5, "%s", msg);
            free(msg);
        }
        if (!ok) {
            return MPI_ERR_OP;
        }
    }
    if (need_root && (root < 0 || root >= ompi_comm_size(comm))) {
        return MPI_ERR_ROOT;
    }
    if (PART_UCX_ALLTOALL == kind && MPI_IN_PLACE == sendbuf) {
        return MPI_ERR_ARG; /* blocks would be overwritten while still to be sent */
    }
    return MPI_SUCCESS;
}

/* Transport partitions: the largest group of consecutive user partitions
 * (a divisor of their number, so that all groups are alike) that stays
 * within part_ucx_coll_transport_bytes (_gpu for GPU buffers), or the info key
 * "mpix_coll_transport_bytes" (the same on every rank; 0 for one transport
 * partition per user partition, e.g. where a partition is made ready only
 * after another one has arrived). */
static int mca_part_ucx_coll_group(mca_part_ucx_coll_t *c, const mca_part_ucx_request_t *req,
                                   ompi_info_t *info)
{
    int limit = c->device ? mca_part_ucx_component.coll_transport_bytes_gpu
                          : mca_part_ucx_component.coll_transport_bytes;
    size_t bytes = req->count * (size_t) req->extent, g, best = 1;
    opal_cstring_t *value = NULL;
    int flag = 0;

    if (NULL != info && MPI_INFO_NULL != info &&
        OPAL_SUCCESS == opal_info_get(&info->super, "mpix_coll_transport_bytes", &value,
                                      &flag) &&
        flag) {
        flag = (OPAL_SUCCESS != opal_cstring_to_int(value, &limit) || limit < 0);
        OBJ_RELEASE(value);
        if (flag) {
            return MPI_ERR_INFO_VALUE;
        }
    }

    for (g = 2; g <= req->parts && 0 < bytes && limit > 0 && g * bytes <= (size_t) limit; ++g) {
        if (0 == req->parts % g) {
            best = g;
        }
    }
    c->group = best;
    c->user_parts = req->parts;
    c->parts = req->parts / best;
    c->count = req->count * best;
    return MPI_SUCCESS;
}

static int mca_part_ucx_coll_init(mca_part_ucx_coll_kind_t kind, const void *sendbuf,
                                  void *recvbuf, int partitions, int count,
                                  ompi_datatype_t *dtype, ompi_op_t *op, int root,
                                  ompi_communicator_t *comm, ompi_info_t *info,
                                  ompi_request_t **request)
{
    int n = ompi_comm_size(comm), rank = ompi_comm_rank(comm), rc;
    mca_part_ucx_request_t *req;
    mca_part_ucx_coll_t *c;
    opal_timer_t t[5]; /* where the time of an init goes, for part_ucx_verbose >= 10 */

    t[4] = opal_timer_base_get_usec();
    req = OBJ_NEW(mca_part_ucx_request_t);
    c = calloc(1, sizeof(*c));
    if (NULL == req || NULL == c) {
        free(c);
        if (NULL != req) {
            OBJ_RELEASE(req);
        }
        return MPI_ERR_NO_MEM;
    }
    mca_part_ucx_request_init_base(req, MCA_PART_UCX_COLL, (size_t) partitions, (size_t) count,
                                   dtype, rank, comm);
    req->coll = c;
    OBJ_CONSTRUCT(&c->lock, opal_mutex_t);
    /* Listed like point-to-point requests, so MPIX_Prequest_free finds it;
     * control messages check the kind and never take it for theirs. */
    rc = (OMPI_SUCCESS == mca_part_ucx_request_register(req))
             ? mca_part_ucx_dev_info(req, info) /* device requests: mpix_pready_threads */
             : MPI_ERR_NO_MEM;
    if (MPI_SUCCESS != rc) {
        ompi_request_t *r = &req->super;
        (void) r->req_free(&r);
        return rc;
    }
    c->comm = comm;
    c->dtype = dtype;
    c->op = op;
    c->extent = req->extent;
    c->acc = recvbuf;
    c->sendbuf = (MPI_IN_PLACE == sendbuf) ? NULL : sendbuf;
    c->user_pready = (PART_UCX_BCAST != kind) || (rank == root);
    if (PART_UCX_ALLGATHER == kind || PART_UCX_ALLTOALL == kind) {
        /* Our own block of the result: from our send buffer (allgather) or
         * from our block of it (alltoall). */
        c->own_dst = (size_t) rank * req->parts * req->count;
        c->own_src = (PART_UCX_ALLTOALL == kind) ? c->own_dst : 0;
        req->total_bytes *= (size_t) n;
    }
    if (PART_UCX_REDUCE == kind && rank != root && NULL == c->sendbuf) {
        c->sendbuf = recvbuf; /* MPI_IN_PLACE is the root's only */
    }
    /* GPU buffers (asked once, through opal's accelerator framework). */
    c->device = mca_part_ucx_is_device(c->acc, req->total_bytes) ||
                (NULL != c->sendbuf && mca_part_ucx_is_device(c->sendbuf, req->total_bytes));
    rc = mca_part_ucx_coll_group(c, req, info);
    if (PART_UCX_REDUCE == kind && rank != root) {
        /* Other ranks have no result buffer: keep the partial one here. */
        c->owned_bytes = req->parts * req->count * req->extent;
        c->owned = mca_part_ucx_coll_alloc(c, c->owned_bytes);
        c->acc = c->owned;
    }
    c->max_chans = 4 * n + 64;
    c->max_steps = 2 * n + 64;
    c->chans = calloc(c->max_chans, sizeof(*c->chans));
    c->steps = calloc(c->max_steps, sizeof(*c->steps));
    c->state = calloc(c->parts, sizeof(*c->state));
    c->pend = calloc(c->parts, sizeof(*c->pend));
    c->user_ready = calloc(c->user_parts, sizeof(*c->user_ready));
    c->ready_count = calloc(c->parts, sizeof(*c->ready_count));
    t[0] = opal_timer_base_get_usec();
    if (MPI_SUCCESS != rc) {
        /* rc says why (an info value) */
    } else if (NULL == c->chans || NULL == c->steps || NULL == c->state || NULL == c->pend ||
        NULL == c->user_ready || NULL == c->ready_count ||
        (PART_UCX_REDUCE == kind && rank != root && NULL == c->owned)) {
        rc = MPI_ERR_NO_MEM;
    } else if (c->device) {
        rc = mca_part_ucx_coll_device(c, NULL != op);
    }
    t[1] = opal_timer_base_get_usec();
    if (MPI_SUCCESS != rc) {
        /* rc says why */
    } else if (PART_UCX_ALLREDUCE == kind) {
        rc = mca_part_ucx_build_allreduce(c, info);
    } else if (PART_UCX_REDUCE == kind) {
        rc = mca_part_ucx_build_reduce(c, root);
    } else if (PART_UCX_ALLGATHER == kind) {
        rc = mca_part_ucx_build_allgather(c);
    } else if (PART_UCX_ALLTOALL == kind) {
        rc = mca_part_ucx_build_alltoall(c);
    } else {
        rc = mca_part_ucx_build_bcast(c, root);
    }
    t[2] = opal_timer_base_get_usec();
    if (OMPI_SUCCESS == rc) {
        rc = mca_part_ucx_coll_commit(c);
    }
    t[3] = opal_timer_base_get_usec();
    if (OMPI_SUCCESS != rc) {
        ompi_request_t *r = &req->super;
        (void) r->req_free(&r);
        return (rc < 0) ? MPI_ERR_INTERN : rc;
    }
    PART_UCX_VERBOSE(10, "collective %d: %llu us (request and buffers %llu, GPU setup %llu, "
                     "schedule %llu, scratch and channels %llu)", (int) kind,
                     (unsigned long long) (t[3] - t[4]), (unsigned long long) (t[0] - t[4]),
                     (unsigned long long) (t[1] - t[0]),
                     (unsigned long long) (t[2] - t[1]), (unsigned long long) (t[3] - t[2]));
    PART_UCX_VERBOSE(10, "collective %d on %d ranks: %d channels, %d steps, %d partitions "
                     "in %zu transport partitions", (int) kind, n, c->nchans, c->nsteps,
                     partitions, c->parts);
    *request = &req->super;
    return MPI_SUCCESS;
}

/* Every MPIX_P*_init: check, build, and report through the communicator's
 * error handler (MPI_COMM_WORLD's where the communicator is unusable). */
static int mca_part_ucx_coll_entry(mca_part_ucx_coll_kind_t kind, const void *sendbuf,
                                   void *recvbuf, int partitions, int count,
                                   ompi_datatype_t *dtype, ompi_op_t *op, int root,
                                   ompi_communicator_t *comm, ompi_info_t *info,
                                   ompi_request_t **request, const char *name)
{
    int rc = mca_part_ucx_coll_check(kind, sendbuf, comm, partitions, count, dtype, op, root,
                                     request);
    if (MPI_SUCCESS == rc) {
        rc = mca_part_ucx_coll_init(kind, sendbuf, recvbuf, partitions, count, dtype, op, root,
                                    comm, info, request);
    }
    OMPI_ERRHANDLER_RETURN(rc, (MPI_SUCCESS == rc || ompi_comm_invalid(comm)) ?
                                   &ompi_mpi_comm_world.comm : comm,
                           rc, name);
}

OMPI_DECLSPEC int MPIX_Pallreduce_init(const void *sendbuf, void *recvbuf, int partitions,
                                       int count, MPI_Datatype datatype, MPI_Op op,
                                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return mca_part_ucx_coll_entry(PART_UCX_ALLREDUCE, sendbuf, recvbuf, partitions, count,
                                   datatype, op, 0, comm, info, request, "MPIX_Pallreduce_init");
}

OMPI_DECLSPEC int MPIX_Preduce_init(const void *sendbuf, void *recvbuf, int partitions, int count,
                                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request)
{
    return mca_part_ucx_coll_entry(PART_UCX_REDUCE, sendbuf, recvbuf, partitions, count,
                                   datatype, op, root, comm, info, request, "MPIX_Preduce_init");
}

OMPI_DECLSPEC int MPIX_Pbcast_init(void *buffer, int partitions, int count,
                                   MPI_Datatype datatype, int root, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request)
{
    return mca_part_ucx_coll_entry(PART_UCX_BCAST, NULL, buffer, partitions, count, datatype,
                                   NULL, root, comm, info, request, "MPIX_Pbcast_init");
}

OMPI_DECLSPEC int MPIX_Pallgather_init(const void *sendbuf, void *recvbuf, int partitions,
                                       int count, MPI_Datatype datatype, MPI_Comm comm,
                                       MPI_Info info, MPI_Request *request)
{
    return mca_part_ucx_coll_entry(PART_UCX_ALLGATHER, sendbuf, recvbuf, partitions, count,
                                   datatype, NULL, 0, comm, info, request, "MPIX_Pallgather_init");
}

OMPI_DECLSPEC int MPIX_Palltoall_init(const void *sendbuf, void *recvbuf, int partitions,
                                      int count, MPI_Datatype datatype, MPI_Comm comm,
                                      MPI_Info info, MPI_Request *request)
{
    return mca_part_ucx_coll_entry(PART_UCX_ALLTOALL, sendbuf, recvbuf, partitions, count,
                                   datatype, NULL, 0, comm, info, request, "MPIX_Palltoall_init");
}
