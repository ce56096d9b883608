/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Schedule builders: each turns a collective into channels and steps of
 * the engine (part_ucx_coll.c) and nothing else. Channels between a pair
 * of ranks are created in the same order on both, which is what matches
 * them (one internal tag, MPI ordering).
 */

#include "ompi_config.h"

#include <string.h>

#include "opal/util/info.h"
#include "ompi/info/info.h"

#include "part_ucx.h"
#include "part_ucx_coll.h"

#define CHECK(_x)                                                                          \
    do {                                                                                   \
        int _rc = (_x);                                                                    \
        if (_rc < 0) {                                                                     \
            return _rc;                                                                    \
        }                                                                                  \
    } while (0)

/* Element range of chunk k when a partition's count elements split n ways. */
static void mca_part_ucx_chunk(size_t count, int n, int k, size_t *off, size_t *len)
{
    size_t a = count * (size_t) k / (size_t) n, b = count * (size_t) (k + 1) / (size_t) n;

    *off = a;
    *len = b - a;
}

/* A channel, or MCA_PART_UCX_NO_CHAN when the chunk is empty. */
static int mca_part_ucx_chan_opt(mca_part_ucx_coll_t *c, bool send, int peer, size_t off,
                                 size_t len, bool reduce)
{
    return (0 == len) ? MCA_PART_UCX_NO_CHAN
                      : mca_part_ucx_coll_chan(c, send, peer, off, len, reduce);
}

/* Not in place: the first step sends our contribution
 * straight from the send buffer and the first reduction of a range writes
 * contribution op received into the result, so nothing copies the send
 * buffer into the result (the largest cost after the transfers). Only for
 * builders where every range of the result is written before it is read. */
static bool mca_part_ucx_direct(mca_part_ucx_coll_t *c, int n)
{
    c->no_copy_in = NULL != c->sendbuf && n > 1;
    return c->no_copy_in;
}

static void mca_part_ucx_mark(mca_part_ucx_coll_t *c, int ch, bool direct, bool send)
{
    if (direct && MCA_PART_UCX_NO_CHAN != ch) {
        if (send) {
            c->chans[ch].from_send = true;
        } else {
            c->chans[ch].first = true;
        }
    }
}

/* Algorithm 1: ring reduce-scatter then ring allgather of the n chunks of
 * every partition; 2(n-1) steps, bandwidth-optimal. Reduce-scatter step s
 * reduces chunk rank-s-1 (each chunk once) and forwards the chunk reduced
 * in step s-1; the allgather overwrites every chunk but our own final one. */
static int mca_part_ucx_allreduce_ring(mca_part_ucx_coll_t *c, int rank, int n)
{
    int right = (rank + 1) % n, left = (rank - 1 + n) % n, s, st, ch;
    bool direct = mca_part_ucx_direct(c, n);
    size_t off, len;

    for (s = 0; s < n - 1; ++s) {
        CHECK(st = mca_part_ucx_coll_step(c));
        mca_part_ucx_chunk(c->count, n, (rank - s + n) % n, &off, &len);
        CHECK(ch = mca_part_ucx_chan_opt(c, true, right, off, len, false));
        mca_part_ucx_mark(c, ch, direct && 0 == s, true);
        CHECK(mca_part_ucx_step_out(c, st, ch));
        mca_part_ucx_chunk(c->count, n, (rank - s - 1 + 2 * n) % n, &off, &len);
        CHECK(ch = mca_part_ucx_chan_opt(c, false, left, off, len, true));
        mca_part_ucx_mark(c, ch, direct, false);
        CHECK(mca_part_ucx_step_in(c, st, ch));
    }
    for (s = 0; s < n - 1; ++s) {
        CHECK(st = mca_part_ucx_coll_step(c));
        mca_part_ucx_chunk(c->count, n, (rank + 1 - s + n) % n, &off, &len);
        CHECK(ch = mca_part_ucx_chan_opt(c, true, right, off, len, false));
        CHECK(mca_part_ucx_step_out(c, st, ch));
        mca_part_ucx_chunk(c->count, n, (rank - s + n) % n, &off, &len);
        CHECK(ch = mca_part_ucx_chan_opt(c, false, left, off, len, false));
        CHECK(mca_part_ucx_step_in(c, st, ch));
    }
    return OMPI_SUCCESS;
}

/* Recursive doubling: log2(p2) exchanges of the whole partition among the
 * largest power of two p2 <= n ranks; latency-optimal for small data. The
 * n - p2 extra ranks fold in first (rank p2 + i hands its data to rank i)
 * and get the result back last. */
static int mca_part_ucx_allreduce_rd(mca_part_ucx_coll_t *c, int rank, int n)
{
    int p2 = 1, mask, st, ch;
    bool direct = mca_part_ucx_direct(c, n), folded;

    while (p2 * 2 <= n) {
        p2 *= 2;
    }
    if (rank >= p2) {
        /* extra: our contribution out, the result back in place */
        CHECK(st = mca_part_ucx_coll_step(c));
        CHECK(ch = mca_part_ucx_chan_opt(c, true, rank - p2, 0, c->count, false));
        mca_part_ucx_mark(c, ch, direct, true);
        CHECK(mca_part_ucx_step_out(c, st, ch));
        CHECK(st = mca_part_ucx_coll_step(c));
        CHECK(ch = mca_part_ucx_chan_opt(c, false, rank - p2, 0, c->count, false));
        CHECK(mca_part_ucx_step_in(c, st, ch));
        return OMPI_SUCCESS;
    }
    folded = rank < n - p2;
    if (folded) {
        CHECK(st = mca_part_ucx_coll_step(c));
        CHECK(ch = mca_part_ucx_chan_opt(c, false, rank + p2, 0, c->count, true));
        mca_part_ucx_mark(c, ch, direct, false);
        CHECK(mca_part_ucx_step_in(c, st, ch));
    }
    for (mask = 1; mask < p2; mask <<= 1) {
        /* the first exchange reads the send buffer unless a fold came first */
        bool first = direct && !folded && 1 == mask;
        CHECK(st = mca_part_ucx_coll_step(c));
        CHECK(ch = mca_part_ucx_chan_opt(c, true, rank ^ mask, 0, c->count, false));
        mca_part_ucx_mark(c, ch, first, true);
        CHECK(mca_part_ucx_step_out(c, st, ch));
        CHECK(ch = mca_part_ucx_chan_opt(c, false, rank ^ mask, 0, c->count, true));
        mca_part_ucx_mark(c, ch, first, false);
        CHECK(mca_part_ucx_step_in(c, st, ch));
    }
    if (folded) {
        CHECK(st = mca_part_ucx_coll_step(c));
        CHECK(ch = mca_part_ucx_chan_opt(c, true, rank + p2, 0, c->count, false));
        CHECK(mca_part_ucx_step_out(c, st, ch));
    }
    return OMPI_SUCCESS;
}

/* The automatic schedule for partitions of `bytes`. Two ranks: both
 * schedules move each partition once each way; recursive doubling in one
 * step, the ring in two that each reduce half of it. Halving the reduction
 * pays on host buffers from part_ucx_allreduce_ring_two bytes, where the
 * CPU's reduction outweighs a step; on GPU buffers a step's host work
 * costs more than the reduction, so they keep the one step
 * (docs/developing.md).
 * `device`: any rank's buffers are on a GPU, so that all choose alike. */
static int mca_part_ucx_allreduce_auto(bool device, int n, size_t bytes)
{
    int two = mca_part_ucx_module.params.allreduce_ring_two;

    if (n <= 2) {
        return (2 == n && !device && two > 0 && bytes >= (size_t) two)
                   ? MCA_PART_UCX_ALLREDUCE_RING
                   : MCA_PART_UCX_ALLREDUCE_RD;
    }
    return (bytes <= (size_t) mca_part_ucx_module.params.allreduce_small)
               ? MCA_PART_UCX_ALLREDUCE_RD
               : MCA_PART_UCX_ALLREDUCE_RING;
}

/* Info key "mpix_allreduce_algorithm" (auto, ring or recursive_doubling),
 * or the MCA parameter it overrides; every rank must name the same
 * (mca_part_ucx_coll_agree checks it). */
int mca_part_ucx_allreduce_info(ompi_info_t *info, int *alg)
{
    *alg = mca_part_ucx_module.params.allreduce_algorithm;
    return mca_part_ucx_info_enum(info, "mpix_allreduce_algorithm", MCA_PART_UCX_ENUM_ALLREDUCE,
                                  alg);
}

int mca_part_ucx_build_allreduce(mca_part_ucx_coll_t *c, int alg, bool any_device)
{
    int rank = ompi_comm_rank(c->comm), n = ompi_comm_size(c->comm);
    size_t type_size;

    if (MCA_PART_UCX_ALLREDUCE_AUTO == alg) {
        ompi_datatype_type_size(c->dtype, &type_size);
        alg = mca_part_ucx_allreduce_auto(any_device, n, type_size * c->count);
    }
    return (MCA_PART_UCX_ALLREDUCE_RD == alg) ? mca_part_ucx_allreduce_rd(c, rank, n)
                                              : mca_part_ucx_allreduce_ring(c, rank, n);
}

/* Binomial tree from the root: receive from the parent, then send to the
 * children, largest subtree first. */
int mca_part_ucx_build_bcast(mca_part_ucx_coll_t *c, int root)
{
    int rank = ompi_comm_rank(c->comm), n = ompi_comm_size(c->comm);
    int vrank = (rank - root + n) % n, mask = 1, st, ch;

    while (mask < n && 0 == (vrank & mask)) {
        mask <<= 1;
    }
    if (0 != vrank) {
        CHECK(st = mca_part_ucx_coll_step(c));
        CHECK(ch = mca_part_ucx_coll_chan(c, false, ((vrank - mask) + root) % n, 0, c->count,
                                          false));
        CHECK(mca_part_ucx_step_in(c, st, ch));
    }
    CHECK(st = mca_part_ucx_coll_step(c));
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vrank + mask < n) {
            CHECK(ch = mca_part_ucx_coll_chan(c, true, (vrank + mask + root) % n, 0, c->count,
                                              false));
            CHECK(mca_part_ucx_step_out(c, st, ch));
        }
    }
    return OMPI_SUCCESS;
}

/* Binomial tree to the root: reduce the children's partial results, then
 * send ours to the parent. */
int mca_part_ucx_build_reduce(mca_part_ucx_coll_t *c, int root)
{
    int rank = ompi_comm_rank(c->comm), n = ompi_comm_size(c->comm);
    int vrank = (rank - root + n) % n, mask, st, ch;

    CHECK(st = mca_part_ucx_coll_step(c));
    for (mask = 1; mask < n && 0 == (vrank & mask); mask <<= 1) {
        if (vrank + mask < n) {
            CHECK(ch = mca_part_ucx_coll_chan(c, false, (vrank + mask + root) % n, 0, c->count,
                                              true));
            CHECK(mca_part_ucx_step_in(c, st, ch));
        }
    }
    if (0 != vrank) {
        CHECK(st = mca_part_ucx_coll_step(c));
        CHECK(ch = mca_part_ucx_coll_chan(c, true, ((vrank - mask) + root) % n, 0, c->count,
                                          false));
        CHECK(mca_part_ucx_step_out(c, st, ch));
    }
    return OMPI_SUCCESS;
}

/* Ring: in step s every rank passes on the block it received in step s-1
 * (its own first); blocks are rank-major, each parts x count elements. */
int mca_part_ucx_build_allgather(mca_part_ucx_coll_t *c)
{
    int rank = ompi_comm_rank(c->comm), n = ompi_comm_size(c->comm), s, st, ch;
    int right = (rank + 1) % n, left = (rank - 1 + n) % n;
    size_t block = c->parts * c->count;

    for (s = 0; s < n - 1; ++s) {
        CHECK(st = mca_part_ucx_coll_step(c));
        CHECK(ch = mca_part_ucx_chan_opt(c, true, right, ((rank - s + n) % n) * block, c->count,
                                         false));
        CHECK(mca_part_ucx_step_out(c, st, ch));
        CHECK(ch = mca_part_ucx_chan_opt(c, false, left, ((rank - s - 1 + n) % n) * block,
                                         c->count, false));
        CHECK(mca_part_ucx_step_in(c, st, ch));
    }
    return OMPI_SUCCESS;
}

/* Pairwise exchange: in step s, block (rank + s) goes to rank + s straight
 * from the send buffer and block (rank - s) comes from rank - s. */
int mca_part_ucx_build_alltoall(mca_part_ucx_coll_t *c)
{
    int rank = ompi_comm_rank(c->comm), n = ompi_comm_size(c->comm), s, st, ch, to, from;
    size_t block = c->parts * c->count;

    for (s = 1; s < n; ++s) {
        to = (rank + s) % n;
        from = (rank - s + n) % n;
        CHECK(st = mca_part_ucx_coll_step(c));
        CHECK(ch = mca_part_ucx_chan_opt(c, true, to, to * block, c->count, false));
        if (MCA_PART_UCX_NO_CHAN != ch) {
            c->chans[ch].from_send = true;
        }
        CHECK(mca_part_ucx_step_out(c, st, ch));
        CHECK(ch = mca_part_ucx_chan_opt(c, false, from, from * block, c->count, false));
        CHECK(mca_part_ucx_step_in(c, st, ch));
    }
    return OMPI_SUCCESS;
}
