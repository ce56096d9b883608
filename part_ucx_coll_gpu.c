/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The GPU engine's host side (part_ucx_coll_gpu.h): setup at init, one
 * launch an epoch, the host's MPI_Pready/MPI_Parrived on its words.
 */

#include "ompi_config.h"

#include "ompi/communicator/communicator.h"
#include "ompi/proc/proc.h"

#include "part_ucx.h"
#include "part_ucx_coll_gpu.h"
#include "part_ucx_ctrl.h"
#include "part_ucx_device_plugin.h"
#include "part_ucx_mem.h"
#include "part_ucx_memtype.h"
#include "part_ucx_pvar.h"

#define MCA_PART_UCX_GCOLL_UNIT_MAX ((size_t) 1 << 20)
/* The kernel's arguments in GPU memory, then the counted epoch's word and
 * the host marks' word */
#define MCA_PART_UCX_GCOLL_DARGS_BYTES (sizeof(mca_part_ucx_gcoll_args_t) + 2 * sizeof(uint64_t))

enum { MCA_PART_UCX_GCOLL_WIN, MCA_PART_UCX_GCOLL_SRC, MCA_PART_UCX_GCOLL_DST,
       MCA_PART_UCX_GCOLL_REGIONS };

struct mca_part_ucx_gcoll_t {
    mca_part_ucx_gcoll_args_t args;
    mca_part_ucx_gcoll_args_t *dargs; /* their copy in GPU memory */
    int dargs_dev;
    void *win;                      /* this rank's window (args.win[me]) */
    size_t win_bytes, words_bytes;  /* all of it, its words */
    int win_dev, scratch_dev;
    /* this rank's window, contribution and result, registered for the peers */
    ucp_mem_h memh[MCA_PART_UCX_GCOLL_REGIONS];
    ucp_rkey_h rkeys[MCA_PART_UCX_GCOLL_MAX_RANKS][MCA_PART_UCX_GCOLL_REGIONS];
    mca_part_ucx_block_t words;     /* host_ready[user_parts] | done[user_parts] | finished */
    void *fork, *join;              /* events: stream-ordered epochs */
    unsigned blocks;
    /* stream-ordered epochs: 0, or their kernel's blocks where it runs after
     * the producers, behind a gate (part_ucx_coll_gpu_after_bytes) */
    unsigned after_blocks;
    uint64_t pending;               /* a host-started epoch whose kernel is not launched yet */
    bool host_marked;               /* args.host_marks is set (under the collective's lock) */
    uint64_t enq_epoch;             /* the enqueued epoch, 0: the stream's count, */
    const volatile uint64_t *enq_word; /* in this word */
};

/* One rank's regions as the others map them. */
typedef struct mca_part_ucx_gcoll_region_t {
    uint64_t addr[MCA_PART_UCX_GCOLL_REGIONS];
    uint32_t key_len[MCA_PART_UCX_GCOLL_REGIONS];
    uint32_t ok;
    uint64_t gpu; /* mca_part_ucx_gpu_id */
    /* 1: this rank's stream-ordered epochs may run after the producers
     * (part_ucx_coll_gpu_after_bytes, which the ranks need not share) */
    uint32_t after;
    uint32_t sms; /* its GPU's SMs (0: not known) */
} mca_part_ucx_gcoll_region_t;

static inline size_t mca_part_ucx_gcoll_max(size_t a, size_t b)
{
    return (a > b) ? a : b;
}

/* How many of the n ranks run on GPU `gpu` (0: not known, none). */
static int mca_part_ucx_gcoll_sharing(const mca_part_ucx_gcoll_region_t *all, int n, uint64_t gpu)
{
    int sharing = 0, i;

    for (i = 0; i < n; ++i) {
        sharing += (0 != gpu && all[i].gpu == gpu);
    }
    return sharing;
}

/* Units: at least the parameter's, but few enough that the fixed cost of
 * a unit (waits, fences) stays small beside its data: one a block for
 * large data (up to 1 MiB each), and (`few`) for small data no
 * more than eight, up to four times the parameter each; more units add up
 * their fixed costs faster than their parallelism pays, fewer leave a
 * unit's move to too few blocks (bench/run-coll-blocks.sh; eight against
 * four: bench/results/h200x1-coll/units8-ab). A pushed allreduce across
 * GPUs has no fence a unit, and its units move over the links in
 * parallel: there the parameter's units serve up to one a block
 * (bench/results/h100x4/units-span/, ll128/); a multiple of 16 bytes, and
 * so of every element size. */
static size_t mca_part_ucx_gcoll_unit(size_t total, unsigned blocks, size_t param_unit, bool few)
{
    size_t unit = mca_part_ucx_gcoll_max(param_unit, total / blocks);

    if (few) {
        unit = mca_part_ucx_gcoll_max(unit,
                                      (total / 8 < 4 * param_unit) ? total / 8 : 4 * param_unit);
    }
    unit = (unit > MCA_PART_UCX_GCOLL_UNIT_MAX && param_unit <= MCA_PART_UCX_GCOLL_UNIT_MAX)
               ? MCA_PART_UCX_GCOLL_UNIT_MAX : unit;
    return (mca_part_ucx_gcoll_max(16, unit) + 15) & ~(size_t) 15;
}

static void mca_part_ucx_gcoll_units(mca_part_ucx_gcoll_args_t *a, size_t total, size_t unit)
{
    a->unit_bytes = unit;
    a->units = (total + unit - 1) / unit;
}

/* The engine's blocks spin while they wait for the application's kernels
 * to make partitions ready. Where the engines of the ranks sharing a GPU
 * (under CUDA MPS) could hold every SM, those kernels would never run: the
 * engines of one GPU together take at most half its SMs (one block an SM,
 * the kernel's launch bound, is the worst case). Only how many blocks
 * share the units changes; the units, which the ranks agree on, do not. */
static void mca_part_ucx_gcoll_share(const mca_part_ucx_coll_t *c, mca_part_ucx_gcoll_t *g,
                                     int sharing)
{
    int sms = c->gpu->sm_count();
    unsigned cap;

    if (sms <= 0 || sharing < 1) {
        return; /* not known: as configured */
    }
    cap = (unsigned) mca_part_ucx_gcoll_max(1, (size_t) sms / (2 * (size_t) sharing));
    if (g->blocks > cap) {
        MCA_PART_UCX_VERBOSE(10, "GPU engine: %u blocks, not %u: %d ranks share this GPU's %d "
                             "SMs", cap, g->blocks, sharing, sms);
        g->blocks = cap;
    }
}

/* Stream-ordered epochs of at least part_ucx_coll_gpu_after_bytes on a GPU
 * that every rank shares: the kernel goes on the application's stream
 * behind the producers and a gate (gcoll's MCA_PART_UCX_GCOLL_GATED), and
 * takes this rank's share of the GPU: its SMs over the sharing ranks, so
 * that every rank's engine fits at once with room beside it on some SM
 * for a rank's gate (blocks of 32 registers), whose engine the others'
 * blocks wait for (at two blocks an SM, the launch bound, the engines
 * filled every SM and a late rank's gate found none: a hang at 64 MiB on
 * four ranks). Its
 * blocks wait only for the peers' engines, never for a producer. This
 * rank's launches alone: the ranks need not agree (a peer's gate or
 * engine waits for the same words either way). */
static void mca_part_ucx_gcoll_after(const mca_part_ucx_coll_t *c, mca_part_ucx_gcoll_t *g,
                                     size_t total, bool span, int sharing)
{
    size_t least = (size_t) mca_part_ucx_module.params.coll_gpu_after_bytes;
    int sms = c->gpu->sm_count();
    size_t blocks;

    g->after_blocks = 0;
    if (span || 0 == least || total < least || sms <= 0 || sharing < 1) {
        return;
    }
    blocks = mca_part_ucx_gcoll_max(1, (size_t) sms / (size_t) sharing);
    g->after_blocks = (unsigned) ((g->args.units < blocks) ? g->args.units : blocks);
    MCA_PART_UCX_VERBOSE(10, "GPU engine: stream-ordered epochs after the producers, %u blocks",
                         g->after_blocks);
}

bool mca_part_ucx_gcoll_possible(const mca_part_ucx_coll_t *c, int kind, bool in_place)
{
    const mca_part_ucx_device_ops_t *gpu = mca_part_ucx_device();
    int n = ompi_comm_size(c->comm), r;

    if (kind < 0 || !mca_part_ucx_module.params.coll_gpu_engine || NULL == gpu ||
        n > MCA_PART_UCX_GCOLL_MAX_RANKS || !c->device ||
        (MCA_PART_UCX_GCOLL_ALLTOALL == kind && in_place)) {
        return false;
    }
    /* every buffer of this rank on the GPU, contiguous */
    if ((NULL != c->acc && c->acc != c->owned && !mca_part_ucx_is_device(c->acc, 1)) ||
        (NULL != c->sendbuf && !mca_part_ucx_is_device(c->sendbuf, 1)) ||
        !ompi_datatype_is_contiguous_memory_layout(c->dtype, 2)) {
        return false;
    }
    for (r = 0; r < n; ++r) {
        ompi_proc_t *proc = ompi_comm_peer_lookup(c->comm, r);
        if (NULL == proc || !OPAL_PROC_ON_LOCAL_NODE(proc->super.proc_flags)) {
            return false;
        }
    }
    return true;
}

static uint64_t mca_part_ucx_gcoll_least(int value, int least)
{
    return (uint64_t) ((value < least) ? least : value);
}

void mca_part_ucx_gcoll_params_local(mca_part_ucx_gcoll_params_t *p)
{
    const mca_part_ucx_params_t *m = &mca_part_ucx_module.params;

    p->unit_bytes = mca_part_ucx_gcoll_least(m->coll_gpu_unit_bytes, 16);
    p->span_unit_bytes = mca_part_ucx_gcoll_least(m->coll_gpu_span_unit_bytes, 16);
    p->blocks = mca_part_ucx_gcoll_least(m->coll_gpu_blocks, 1);
    p->twoshot_bytes = mca_part_ucx_gcoll_least(m->coll_gpu_twoshot_bytes, 0);
    p->span_twoshot_bytes = mca_part_ucx_gcoll_least(m->coll_gpu_span_twoshot_bytes, 0);
    p->push_bytes = mca_part_ucx_gcoll_least(m->coll_gpu_push_bytes, 0);
    p->span_push_bytes = mca_part_ucx_gcoll_least(m->coll_gpu_span_push_bytes, 0);
    p->bulk_bytes = mca_part_ucx_gcoll_least(m->coll_gpu_bulk_bytes, 0);
    p->scope_fences = m->coll_gpu_scope_fences;
    p->bulk_one_gpu = m->coll_gpu_bulk_one_gpu;
    p->ll128_bytes = mca_part_ucx_gcoll_least(m->coll_gpu_ll128_bytes, 0);
    p->span_blocks = mca_part_ucx_gcoll_least(m->coll_gpu_span_blocks, 1);
    p->ll128_twoshot_bytes = mca_part_ucx_gcoll_least(m->coll_gpu_ll128_twoshot_bytes, 0);
    p->twoshot_push = mca_part_ucx_gcoll_least(m->coll_gpu_twoshot_push, 0);
    p->span_twoshot_push_bytes = mca_part_ucx_gcoll_least(m->coll_gpu_span_twoshot_push_bytes, 0);
    p->relay_bytes = mca_part_ucx_gcoll_least(m->coll_gpu_relay_bytes, 0);
}

int mca_part_ucx_gcoll_kind(const mca_part_ucx_gcoll_params_t *p, int kind, int n,
                            uint64_t bytes, bool span, bool push_ok)
{
    uint64_t two = p->twoshot_bytes, bulk = p->bulk_bytes;
    uint64_t push = !push_ok ? 0 : span ? p->span_push_bytes : p->push_bytes;

    if (MCA_PART_UCX_GCOLL_ALLREDUCE != kind || n < 2) {
        return kind;
    }
    /* Across GPUs two-shot may start lower: between the bulk push's reach
     * and part_ucx_coll_gpu_twoshot_bytes (at the defaults four ranks at
     * 683 KiB-1 MiB) one-shot reads every peer's whole data over the
     * links, where two-shot moves 2 (n - 1) / n of it */
    if (span && two > 0 && p->span_twoshot_bytes > 0 && p->span_twoshot_bytes < two) {
        two = p->span_twoshot_bytes;
    }
    /* Push: across GPUs every word a rank waits for in a pull costs its
     * writer a system-scope release (microseconds), three an epoch; pushed
     * data carries its own flag and needs none, for twice the bytes on
     * the wire and a spinning load per 8 bytes, which only small data
     * does not feel: on one GPU up to 8 KiB, across GPUs, in their
     * smaller units, up to 64 KiB (bench/results/h100x4/NOTES.md).
     * Whole 8-byte lines only, and below two-shot's threshold. */
    if (push > 0 && bytes <= push && 0 == bytes % 8 && !(two > 0 && bytes >= two)) {
        return MCA_PART_UCX_GCOLL_ALLREDUCE_PUSH;
    }
    /* Bulk push: the same one-way trip for larger data, a release and a
     * flag a unit instead of a flag every 8 bytes. Each rank stores
     * (n - 1) times the data into its peers' windows (which hold 2 (n - 1)
     * times it: two epochs' copies of every peer); while that stays
     * within part_ucx_coll_gpu_bulk_bytes it beats two-shot too, whose
     * slices cost a release and a wait each; beyond, the copies' bytes
     * weigh more (bench/results/h100x4/push-span/). Only across GPUs, unless
     * part_ucx_coll_gpu_bulk_one_gpu: on one GPU a pull reads the peers'
     * buffers as fast as its own memory, and the copies only cost. */
    if (bulk > 0 && (span || p->bulk_one_gpu) && bytes * (uint64_t) (n - 1) <= bulk) {
        return MCA_PART_UCX_GCOLL_ALLREDUCE_BULK;
    }
    /* Two-shot: each rank moves 2 (n - 1) / n of the data, and the ranks
     * together read and write less than one-shot's n reads of everything:
     * on two ranks too, where each reads half instead of all of it. Its
     * slices pushed (part_ucx_coll_gpu_twoshot_push) where lines do not
     * serve (part_ucx_coll_gpu_ll128_twoshot_bytes); by default only two
     * or three ranks across GPUs push, and only large data
     * (part_ucx_coll_gpu_span_twoshot_push_bytes): there each link carries
     * one or two streams of slices each way, which stores keep fuller than
     * loads that wait a round trip each, and the engine moves slices while
     * the producer runs (part_ucx_coll_gpu_priority); with four ranks, or
     * smaller slices, the copy through the window costs about what the
     * loads' waits do (bench/results/h200x4/s15/). */
    if (two > 0 && bytes >= two) {
        uint64_t push2 = p->span_twoshot_push_bytes;
        bool pushed = p->twoshot_push >= (span ? 1u : 2u) ||
                      (span && n <= 3 && push2 > 0 && bytes >= push2);
        return (pushed && bytes > p->ll128_twoshot_bytes)
                   ? MCA_PART_UCX_GCOLL_ALLREDUCE2_BULK : MCA_PART_UCX_GCOLL_ALLREDUCE2;
    }
    return kind;
}

/* Register [addr, addr + len) of GPU memory for the peers. */
static int mca_part_ucx_gcoll_map(void *addr, size_t len, ucp_mem_h *memh, void **packed,
                                  size_t *packed_len)
{
    if (OMPI_SUCCESS != mca_part_ucx_mem_map_gpu(addr, len, memh)) {
        return OMPI_ERROR;
    }
    if (UCS_OK != ucp_rkey_pack(mca_part_ucx_module.context, *memh, packed, packed_len)) {
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

/* `bytes` of GPU memory, zeroed: *ptr NULL where the allocation failed,
 * else the memory (the caller's to free, also where the zeroing failed). */
static int mca_part_ucx_gcoll_alloc_zeroed(size_t bytes, void **ptr, int *dev)
{
    void *zero;
    int rc;

    if (OMPI_SUCCESS != mca_part_ucx_devmem_alloc(bytes, ptr, dev)) {
        *ptr = NULL;
        return OMPI_ERROR;
    }
    zero = calloc(1, bytes);
    rc = (NULL == zero) ? OMPI_ERROR : mca_part_ucx_device_copy_in(*ptr, zero, bytes);
    free(zero);
    return rc;
}

/* Whether kind `kind` with `bytes` may move in 128-byte lines (ranks
 * across NVLink, buffers aligned: the bulk push up to
 * part_ucx_coll_gpu_ll128_bytes, two-shot up to _ll128_twoshot_bytes). */
static bool mca_part_ucx_gcoll_may_line(const mca_part_ucx_gcoll_params_t *p, int kind,
                                        uint64_t bytes)
{
    return (MCA_PART_UCX_GCOLL_ALLREDUCE_BULK == kind && bytes <= p->ll128_bytes) ||
           (MCA_PART_UCX_GCOLL_ALLREDUCE2 == kind && bytes <= p->ll128_twoshot_bytes);
}

/* Whether kind `kind` (in lines: `lines`) is pushed: no rank reads a
 * peer's buffers or ready words (the kernel's gcoll_pushed). */
static bool mca_part_ucx_gcoll_pushed(int kind, bool lines)
{
    return MCA_PART_UCX_GCOLL_ALLREDUCE_PUSH == kind ||
           MCA_PART_UCX_GCOLL_ALLREDUCE_BULK == kind ||
           MCA_PART_UCX_GCOLL_ALLREDUCE2_BULK == kind ||
           (MCA_PART_UCX_GCOLL_ALLREDUCE2 == kind && lines);
}

/* The window's room past its words for kind `kind` in units of `unit`
 * bytes: two epochs' lines of every writer, 16 bytes for each 8 (push),
 * or two epochs' copies of every writer (bulk push: gcoll_copy_of), or
 * where lines may serve (across GPUs: span), their 128-byte lines if more
 * (gcoll_lines128); two-shot in lines: two phases' (gcoll_lines2);
 * bulk-pushed two-shot: two epochs' slots of every writer (gcoll_slot). */
static size_t mca_part_ucx_gcoll_room(const mca_part_ucx_gcoll_params_t *p, int kind, int n,
                                      size_t src_len, size_t unit, bool span)
{
    size_t units = (src_len + unit - 1) / unit, copy = (src_len + 15) & ~(size_t) 15;
    size_t lines = units * MCA_PART_UCX_LINES_OF(unit) * 128;
    size_t slices = units * MCA_PART_UCX_SLICE_LINES(unit, (size_t) n) * 128;
    bool lined = span && mca_part_ucx_gcoll_may_line(p, kind, src_len);

    switch (kind) {
    case MCA_PART_UCX_GCOLL_ALLREDUCE_PUSH:
        return 2 * (size_t) n * 2 * src_len;
    case MCA_PART_UCX_GCOLL_ALLREDUCE_BULK:
        return 2 * (size_t) n * (lined ? mca_part_ucx_gcoll_max(copy, lines) : copy);
    case MCA_PART_UCX_GCOLL_ALLREDUCE2:
        return lined ? 2 * 2 * (size_t) n * slices : 0;
    case MCA_PART_UCX_GCOLL_ALLREDUCE2_BULK:
        return 2 * (size_t) n * units * MCA_PART_UCX_SLICE_BYTES(unit, (size_t) n);
    default:
        return 0;
    }
}

/* Every rank on one GPU, and any of them runs stream-ordered epochs after
 * the producers (part_ucx_coll_gpu_after_bytes): there the engine runs
 * alone, on up to the GPU's share of each rank (mca_part_ucx_gcoll_after),
 * and units sized for the engine beside the producers (half that, at most
 * part_ucx_coll_gpu_blocks) would leave SMs idle. Units of one such block
 * each instead, where that is no more units than the window has room for
 * (`least`: the smaller of the two placements' units), no smaller than
 * part_ucx_coll_gpu_unit_bytes, and within the room for data. From what
 * every rank sees alike (the smallest SM count), so that the ranks agree. */
static size_t mca_part_ucx_gcoll_after_unit(const mca_part_ucx_coll_t *c,
                                            const mca_part_ucx_gcoll_region_t *all, int n,
                                            int sharing, size_t total, size_t unit, size_t least,
                                            size_t src_len, size_t room, int kind)
{
    uint32_t sms = 0;
    bool after = false;
    size_t blocks, want;
    int i;

    for (i = 0; i < n; ++i) {
        after = after || 0 != all[i].after;
        sms = (0 == i || all[i].sms < sms) ? all[i].sms : sms;
    }
    if (!after || 0 == sms || sharing < 1) {
        return unit;
    }
    blocks = mca_part_ucx_gcoll_max(1, sms / (size_t) sharing);
    want = ((total + blocks - 1) / blocks + 15) & ~(size_t) 15;
    want = mca_part_ucx_gcoll_max(want, least);
    if ((total + unit - 1) / unit >= blocks || want >= unit ||
        want < (size_t) c->gparams.unit_bytes ||
        mca_part_ucx_gcoll_room(&c->gparams, kind, n, src_len, want, false) > room) {
        return unit;
    }
    return want;
}

/* Whether NVLink links every pair of the ranks' GPUs (ranks sharing a GPU
 * need none): every rank asks NVML about every pair, so that they all
 * answer alike where NVML answers alike. */
static bool mca_part_ucx_gcoll_nvlink(const mca_part_ucx_coll_t *c,
                                      const mca_part_ucx_gcoll_region_t *all, int n)
{
    int i, j;

    for (i = 0; i < n; ++i) {
        for (j = i + 1; j < n; ++j) {
            if (0 == all[i].gpu || 0 == all[j].gpu ||
                (all[i].gpu != all[j].gpu && 1 != c->gpu->nvlink(all[i].gpu, all[j].gpu))) {
                return false;
            }
        }
    }
    return true;
}

/* This rank's regions: the window (zeroed), its contribution and result,
 * with `room` past the window's words for the kinds of both placements,
 * which the ranks know only after they exchanged them. */
static int mca_part_ucx_gcoll_local(mca_part_ucx_coll_t *c, mca_part_ucx_gcoll_t *g,
                                    size_t room, size_t src_len, size_t dst_len,
                                    mca_part_ucx_gcoll_region_t *mine,
                                    void *keys[MCA_PART_UCX_GCOLL_REGIONS])
{
    mca_part_ucx_gcoll_args_t *a = &g->args;
    void *addr[MCA_PART_UCX_GCOLL_REGIONS];
    size_t len[MCA_PART_UCX_GCOLL_REGIONS], klen;
    int i, rc;

    /* ready, consumed, slices, count, relayed (gcoll_relayed: after the
     * count of the units that serve, which are no more than a->units
     * here), blocks_done (the gate's count beside it), marks (the
     * stream-ordered marks, where used: in the window, where the peers'
     * gates look at them) */
    g->words_bytes =
        sizeof(uint64_t) * (3 * a->user_parts + (2 * (size_t) a->n + 1) * a->units + 1);
    /* at a line's boundary (128 bytes: gcoll_lines128; cudaMalloc's memory
     * starts at one) */
    a->push_off = (g->words_bytes + 127) & ~(uint64_t) 127;
    g->win_bytes = a->push_off + room;
    rc = mca_part_ucx_gcoll_alloc_zeroed(g->win_bytes, &g->win, &g->win_dev);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    addr[MCA_PART_UCX_GCOLL_WIN] = g->win;
    len[MCA_PART_UCX_GCOLL_WIN] = g->win_bytes;
    addr[MCA_PART_UCX_GCOLL_SRC] = (void *) c->sendbuf;
    len[MCA_PART_UCX_GCOLL_SRC] = src_len;
    addr[MCA_PART_UCX_GCOLL_DST] = (c->acc != c->owned) ? c->acc : NULL;
    len[MCA_PART_UCX_GCOLL_DST] = dst_len;
    for (i = 0; i < MCA_PART_UCX_GCOLL_REGIONS; ++i) {
        mine->addr[i] = (uint64_t) (uintptr_t) addr[i];
        if (NULL == addr[i] || 0 == len[i]) {
            continue;
        }
        if (OMPI_SUCCESS != mca_part_ucx_gcoll_map(addr[i], len[i], &g->memh[i], &keys[i], &klen)) {
            return OMPI_ERROR;
        }
        mine->key_len[i] = (uint32_t) klen;
    }
    return OMPI_SUCCESS;
}

/* Rank r's regions mapped here (rank me's own: as they are). */
static int mca_part_ucx_gcoll_peer(mca_part_ucx_coll_t *c, mca_part_ucx_gcoll_t *g, int r,
                                   const mca_part_ucx_gcoll_region_t *reg, const char *keys,
                                   void *ptr[MCA_PART_UCX_GCOLL_REGIONS])
{
    mca_part_ucx_peer_t *peer;
    int i;

    if (r == g->args.me) {
        for (i = 0; i < MCA_PART_UCX_GCOLL_REGIONS; ++i) {
            ptr[i] = (void *) (uintptr_t) reg->addr[i];
        }
        return OMPI_SUCCESS;
    }
    peer = mca_part_ucx_peer_get(ompi_comm_peer_lookup(c->comm, r));
    if (NULL == peer) {
        return OMPI_ERROR;
    }
    for (i = 0; i < MCA_PART_UCX_GCOLL_REGIONS; ++i) {
        ptr[i] = NULL;
        if (0 == reg->key_len[i]) {
            continue;
        }
        if (UCS_OK != ucp_ep_rkey_unpack(peer->eps[0], keys, &g->rkeys[r][i]) ||
            UCS_OK != ucp_rkey_ptr(g->rkeys[r][i], reg->addr[i], &ptr[i])) {
            MCA_PART_UCX_VERBOSE(5, "collective: rank %d's GPU memory does not map here (cuda_ipc "
                                 "rkey_ptr): the schedule engine runs it", r);
            return OMPI_ERROR;
        }
        keys += reg->key_len[i];
    }
    return OMPI_SUCCESS;
}

/* Everyone's regions: the fixed parts, then the packed keys. */
static int mca_part_ucx_gcoll_exchange(mca_part_ucx_coll_t *c, mca_part_ucx_gcoll_t *g,
                                       mca_part_ucx_gcoll_region_t *mine,
                                       void *keys[MCA_PART_UCX_GCOLL_REGIONS],
                                       mca_part_ucx_gcoll_region_t *all, int *ok)
{
    ompi_communicator_t *comm = c->comm;
    int n = g->args.n, r, i, rc, *counts, *displs, total = 0, len = 0;
    char *buf = NULL, *all_keys = NULL;
    void *ptr[MCA_PART_UCX_GCOLL_REGIONS];

    for (i = 0; i < MCA_PART_UCX_GCOLL_REGIONS; ++i) {
        len += (int) mine->key_len[i];
    }
    rc = comm->c_coll->coll_allgather(mine, sizeof(*mine), MPI_BYTE, all, sizeof(*mine),
                                      MPI_BYTE, comm, comm->c_coll->coll_allgather_module);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    counts = calloc(2 * (size_t) n, sizeof(int));
    buf = malloc((size_t) len + 1);
    if (NULL == counts || NULL == buf) {
        free(counts);
        free(buf);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    displs = counts + n;
    for (r = 0; r < n; ++r) {
        for (i = 0; i < MCA_PART_UCX_GCOLL_REGIONS; ++i) {
            counts[r] += (int) all[r].key_len[i];
        }
        displs[r] = total;
        total += counts[r];
    }
    for (i = 0, len = 0; i < MCA_PART_UCX_GCOLL_REGIONS; ++i) {
        if (0 != mine->key_len[i]) {
            memcpy(buf + len, keys[i], mine->key_len[i]);
            len += (int) mine->key_len[i];
        }
    }
    all_keys = malloc((size_t) total + 1);
    rc = (NULL == all_keys) ? OMPI_ERR_OUT_OF_RESOURCE
                            : comm->c_coll->coll_allgatherv(buf, len, MPI_BYTE, all_keys, counts,
                                                            displs, MPI_BYTE, comm,
                                                            comm->c_coll->coll_allgatherv_module);
    for (r = 0; OMPI_SUCCESS == rc && r < n && *ok; ++r) {
        *ok = all[r].ok && OMPI_SUCCESS == mca_part_ucx_gcoll_peer(c, g, r, &all[r],
                                                                   all_keys + displs[r], ptr);
        g->args.win[r] = ptr[MCA_PART_UCX_GCOLL_WIN];
        g->args.src[r] = ptr[MCA_PART_UCX_GCOLL_SRC];
        g->args.dst[r] = ptr[MCA_PART_UCX_GCOLL_DST];
    }
    free(all_keys);
    free(buf);
    free(counts);
    return rc;
}

/* The host words and the kernel's arguments in GPU memory; the kernel
 * loaded (CUDA's lazy loading: see reduce_load). */
static int mca_part_ucx_gcoll_finish_setup(mca_part_ucx_coll_t *c, mca_part_ucx_gcoll_t *g)
{
    mca_part_ucx_gcoll_args_t *a = &g->args;
    volatile uint64_t *words;
    uint64_t zero[2] = {0, 0};
    int rc;

    OPAL_THREAD_LOCK(&mca_part_ucx_module.lock);
    rc = mca_part_ucx_block_alloc_mapped(sizeof(uint64_t) * (2 * a->user_parts + 1), &g->words);
    OPAL_THREAD_UNLOCK(&mca_part_ucx_module.lock);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    words = g->words.addr;
    a->host_ready = words;
    a->done = words + a->user_parts;
    a->finished = words + 2 * a->user_parts;
    /* the window's last words (mca_part_ucx_gcoll_local) */
    a->blocks_done = (unsigned int *) ((uint64_t *) g->win + g->words_bytes / sizeof(uint64_t) -
                                       a->user_parts - 1);
    if (OMPI_SUCCESS != mca_part_ucx_devmem_alloc(MCA_PART_UCX_GCOLL_DARGS_BYTES,
                                                  (void **) &g->dargs, &g->dargs_dev)) {
        g->dargs = NULL;
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    a->epoch_dev = (volatile uint64_t *) (g->dargs + 1);
    a->host_marks = a->epoch_dev + 1;
    /* stream-ordered marks (mca_part_ucx_gcoll_ordered), zero: no partition
     * marked yet (the gate clears them after each epoch); the peers' gates
     * find them at the same offset in this rank's window */
    if (c->stream_kernels && c->user_pready && 0 != g->after_blocks) {
        a->marks = (uint64_t *) a->blocks_done + 1;
    }
    /* the arguments, and zero epoch and host marks' words (no epoch
     * completed yet: a counted start takes the host's) */
    if (OMPI_SUCCESS != mca_part_ucx_device_copy_in(g->dargs, a, sizeof(*a)) ||
        OMPI_SUCCESS != mca_part_ucx_device_copy_in((void *) a->epoch_dev, zero,
                                                    sizeof(zero)) ||
        0 != mca_part_ucx_device_event_get(&g->fork) ||
        0 != mca_part_ucx_device_event_get(&g->join) ||
        0 != c->gpu->gcoll(a, g->dargs, 0, NULL, 0, NULL, MCA_PART_UCX_GCOLL_LOAD)) {
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

int mca_part_ucx_gcoll_setup(mca_part_ucx_coll_t *c, int kind, int root, size_t block_bytes,
                             bool *used)
{
    ompi_communicator_t *comm = c->comm;
    int n = ompi_comm_size(comm), rc, ok, i, kinds[2], sms;
    unsigned span_blocks;
    bool pushed;
    size_t user_bytes = c->count / c->group * (size_t) c->extent, total, unit, span_unit;
    size_t src_len, dst_len, room;
    mca_part_ucx_gcoll_region_t mine = {0}, *all;
    bool aligned = true;
    void *keys[MCA_PART_UCX_GCOLL_REGIONS] = {NULL};
    mca_part_ucx_gcoll_args_t *a;
    mca_part_ucx_gcoll_t *g;

    *used = false;
    g = calloc(1, sizeof(*g));
    all = calloc((size_t) n, sizeof(*all));
    if (NULL == g || NULL == all) {
        free(g);
        free(all);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    c->gcoll = g;
    a = &g->args;
    total = c->user_parts * user_bytes;
    /* the kinds on one GPU and across GPUs */
    kinds[0] = mca_part_ucx_gcoll_kind(&c->gparams, kind, n, total, false, true);
    kinds[1] = mca_part_ucx_gcoll_kind(&c->gparams, kind, n, total, true, true);
    /* across GPUs a pushed allreduce (two-shot in lines too) takes more
     * blocks and smaller units (no fence a unit); the other kinds' words
     * cost a release a unit */
    pushed = mca_part_ucx_gcoll_pushed(kinds[1],
                                       mca_part_ucx_gcoll_may_line(&c->gparams, kinds[1], total));
    span_blocks = (unsigned) (pushed ? c->gparams.span_blocks : c->gparams.blocks);
    /* Units for both placements; the window has room for the more
     * numerous ones, and which serve is known once the ranks' GPUs are
     * (settled: every rank's units alike). */
    unit = mca_part_ucx_gcoll_unit(total, (unsigned) c->gparams.blocks,
                                   (size_t) c->gparams.unit_bytes, true);
    span_unit = mca_part_ucx_gcoll_unit(total, span_blocks, (size_t) c->gparams.span_unit_bytes,
                                        !pushed);
    a->kind = kinds[0];
    a->op = c->gpu_op;
    a->dt = c->gpu_type;
    a->me = ompi_comm_rank(comm);
    a->n = n;
    a->root = root;
    a->user_parts = c->user_parts;
    a->user_bytes = user_bytes;
    mca_part_ucx_gcoll_units(a, total, (span_unit < unit) ? span_unit : unit);
    a->block_bytes = block_bytes;
    src_len = (MCA_PART_UCX_GCOLL_ALLTOALL == kind) ? (size_t) n * block_bytes : total;
    dst_len = (MCA_PART_UCX_GCOLL_ALLTOALL == kind || MCA_PART_UCX_GCOLL_ALLGATHER == kind)
                  ? (size_t) n * block_bytes : total;
    room = mca_part_ucx_gcoll_max(
        mca_part_ucx_gcoll_room(&c->gparams, kinds[0], n, src_len, unit, false),
        mca_part_ucx_gcoll_room(&c->gparams, kinds[1], n, src_len, span_unit, true));
    ok = (OMPI_SUCCESS == mca_part_ucx_gcoll_local(c, g, room, src_len, dst_len, &mine, keys));
    mine.ok = (uint32_t) ok;
    mine.gpu = mca_part_ucx_gpu_id();
    mine.after = 0 != mca_part_ucx_module.params.coll_gpu_after_bytes &&
                 total >= (size_t) mca_part_ucx_module.params.coll_gpu_after_bytes;
    sms = c->gpu->sm_count();
    mine.sms = (uint32_t) ((sms > 0) ? sms : 0);
    rc = mca_part_ucx_gcoll_exchange(c, g, &mine, keys, all, &ok);
    if (OMPI_SUCCESS == rc) {
        int sharing = mca_part_ucx_gcoll_sharing(all, n, mine.gpu);
        bool span = sharing != n;
        /* the window has room for either placement's kind: it was mapped
         * before the ranks knew theirs */
        a->kind = kinds[span ? 1 : 0];
        /* pushed lines are 8-byte loads and stores of every rank's data
         * (every rank sees every address: the same choice everywhere);
         * else the kind without a push */
        for (i = 0; i < n; ++i) {
            aligned = aligned && 0 == ((all[i].addr[MCA_PART_UCX_GCOLL_SRC] |
                                        all[i].addr[MCA_PART_UCX_GCOLL_DST]) & 7);
        }
        if (MCA_PART_UCX_GCOLL_ALLREDUCE_PUSH == a->kind && !aligned) {
            a->kind = mca_part_ucx_gcoll_kind(&c->gparams, kind, n, total, span, false);
        }
        /* ranks on more than one GPU: the smaller units, and more blocks,
         * that move data over the links in parallel
         * (part_ucx_coll_gpu_span_unit_bytes, _span_blocks) */
        unit = span ? span_unit
                    : mca_part_ucx_gcoll_after_unit(c, all, n, sharing, total, unit,
                                                    (span_unit < unit) ? span_unit : unit,
                                                    src_len, room, a->kind);
        mca_part_ucx_gcoll_units(a, total, unit);
        g->blocks = span ? span_blocks : (unsigned) c->gparams.blocks;
        g->blocks = (a->units < g->blocks) ? (unsigned) a->units : g->blocks;
        mca_part_ucx_gcoll_share(c, g, sharing);
        /* every rank on this GPU (CUDA MPS): GPU-scope fences between the
         * ranks' words suffice */
        a->gpu_scope = 0 != c->gparams.scope_fences && !span;
        a->narrow_fences = 0 != c->gparams.scope_fences;
        /* LL128 lines (8-byte words of every rank's data) where NVLink
         * links the ranks' GPUs, as every rank sees it: the ranks agree,
         * for a writer's lines and their reader must */
        if (span && aligned && mca_part_ucx_gcoll_may_line(&c->gparams, a->kind, total)) {
            a->ll128 = mca_part_ucx_gcoll_nvlink(c, all, n);
            rc = comm->c_coll->coll_allreduce(MPI_IN_PLACE, &a->ll128, 1, MPI_INT, MPI_MIN, comm,
                                              comm->c_coll->coll_allreduce_module);
        }
        /* ranks on other GPUs read this rank's data: one release a unit
         * by the engine instead of one in each partition's MPIX_Pready,
         * up to part_ucx_coll_gpu_relay_bytes */
        a->relay = span && a->narrow_fences && total <= c->gparams.relay_bytes &&
                   !mca_part_ucx_gcoll_pushed(a->kind, 0 != a->ll128);
        a->span = span;
        /* this rank's launches alone: the ranks need not agree */
        a->urgent = mca_part_ucx_module.params.coll_gpu_priority >= (span ? 1 : 2);
        mca_part_ucx_gcoll_after(c, g, total, span, sharing);
    }
    for (i = 0; i < MCA_PART_UCX_GCOLL_REGIONS; ++i) {
        if (NULL != keys[i]) {
            ucp_rkey_buffer_release(keys[i]);
        }
    }
    free(all);
    if (OMPI_SUCCESS == rc) {
        /* where a rank has no contribution of its own, it is its result */
        for (i = 0; i < n; ++i) {
            if (NULL == a->src[i]) {
                a->src[i] = (MCA_PART_UCX_GCOLL_ALLGATHER == kind)
                                ? a->dst[i] + (size_t) i * block_bytes : a->dst[i];
            }
        }
        if (MCA_PART_UCX_GCOLL_ALLREDUCE == a->kind && NULL == c->sendbuf) {
            /* in place: results wait here until the peers have read ours */
            void *scratch = NULL;
            ok = ok && OMPI_SUCCESS == mca_part_ucx_devmem_alloc(total, &scratch,
                                                                 &g->scratch_dev);
            a->scratch = scratch;
        }
        ok = ok && OMPI_SUCCESS == mca_part_ucx_gcoll_finish_setup(c, g);
        /* every rank ready, or none uses it */
        rc = comm->c_coll->coll_allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm,
                                          comm->c_coll->coll_allreduce_module);
    }
    if (OMPI_SUCCESS != rc || !ok) {
        mca_part_ucx_gcoll_release(c);
        return (OMPI_SUCCESS != rc) ? MPI_ERR_INTERN : MPI_SUCCESS;
    }
    *used = true;
    MCA_PART_UCX_VERBOSE(10, "collective on %d ranks: GPU engine, kind %d, %llu units of %zu "
                         "bytes, %u blocks", n, a->kind, (unsigned long long) a->units, unit,
                         g->blocks);
    return MPI_SUCCESS;
}

void mca_part_ucx_gcoll_release(mca_part_ucx_coll_t *c)
{
    mca_part_ucx_gcoll_t *g = c->gcoll;
    int r, i;

    if (NULL == g) {
        return;
    }
    /* the last epoch's kernel is done (the request is inactive), but it
     * may still be leaving the GPU */
    if (NULL != c->stream) {
        (void) c->gpu->stream_sync(c->stream);
    }
    for (r = 0; r < MCA_PART_UCX_GCOLL_MAX_RANKS; ++r) {
        for (i = 0; i < MCA_PART_UCX_GCOLL_REGIONS; ++i) {
            if (NULL != g->rkeys[r][i]) {
                ucp_rkey_destroy(g->rkeys[r][i]);
            }
        }
    }
    for (i = 0; i < MCA_PART_UCX_GCOLL_REGIONS; ++i) {
        if (NULL != g->memh[i]) {
            ucp_mem_unmap(mca_part_ucx_module.context, g->memh[i]);
        }
    }
    if (NULL != g->fork) {
        mca_part_ucx_device_event_put(g->fork);
    }
    if (NULL != g->join) {
        mca_part_ucx_device_event_put(g->join);
    }
    if (NULL != g->args.scratch) {
        mca_part_ucx_devmem_free(g->args.scratch, g->args.user_parts * g->args.user_bytes,
                                 g->scratch_dev);
    }
    if (NULL != g->dargs) {
        mca_part_ucx_devmem_free(g->dargs, MCA_PART_UCX_GCOLL_DARGS_BYTES, g->dargs_dev);
    }
    if (NULL != g->win) {
        mca_part_ucx_devmem_free(g->win, g->win_bytes, g->win_dev);
    }
    OPAL_THREAD_LOCK(&mca_part_ucx_module.lock);
    mca_part_ucx_block_free(&g->words);
    OPAL_THREAD_UNLOCK(&mca_part_ucx_module.lock);
    free(g);
    c->gcoll = NULL;
}

/* An epoch the engine runs, in the MPI_T counters (tests tell from them
 * which engine and algorithm ran). */
static void mca_part_ucx_gcoll_count(const mca_part_ucx_gcoll_t *g)
{
    mca_part_ucx_count(MCA_PART_UCX_PVAR_COLL_GPU_EPOCHS, 1);
    /* a bulk-pushed two-shot counts as both */
    if (MCA_PART_UCX_GCOLL_ALLREDUCE2 == g->args.kind ||
        MCA_PART_UCX_GCOLL_ALLREDUCE2_BULK == g->args.kind) {
        mca_part_ucx_count(MCA_PART_UCX_PVAR_COLL_GPU_TWOSHOT, 1);
    }
    if (MCA_PART_UCX_GCOLL_ALLREDUCE_PUSH == g->args.kind) {
        mca_part_ucx_count(MCA_PART_UCX_PVAR_COLL_GPU_PUSH, 1);
    }
    if (MCA_PART_UCX_GCOLL_ALLREDUCE_BULK == g->args.kind ||
        MCA_PART_UCX_GCOLL_ALLREDUCE2_BULK == g->args.kind) {
        mca_part_ucx_count(MCA_PART_UCX_PVAR_COLL_GPU_BULK, 1);
    }
    if (0 != g->args.ll128) {
        mca_part_ucx_count(MCA_PART_UCX_PVAR_COLL_GPU_LL128, 1);
    }
}

/* The kernel goes to the GPU after the application's producing kernels
 * were launched, not at the start: with CUDA's lazy loading (the default)
 * a kernel's first launch waits for the GPU to go idle, which a running
 * engine kernel, waiting for that very producer's partitions, never lets
 * it. A host-started epoch's kernel therefore goes at the epoch's first
 * progress (MPI_Wait, MPI_Test, MPI_Parrived, MPI_Pready), a
 * stream-ordered one at MPIX_Wait_enqueue, both behind the producer's
 * launch in the host's program order; the GPU still runs it beside the
 * producer, from the start's place in the stream. */
int mca_part_ucx_gcoll_start(mca_part_ucx_coll_t *c, uint64_t epoch)
{
    c->gcoll->pending = epoch;
    return OMPI_SUCCESS;
}

int mca_part_ucx_gcoll_launch(mca_part_ucx_coll_t *c)
{
    mca_part_ucx_gcoll_t *g = c->gcoll;
    uint64_t epoch = g->pending;

    if (0 == epoch) {
        return OMPI_SUCCESS;
    }
    g->pending = 0;
    mca_part_ucx_gcoll_count(g);
    return (0 == c->gpu->gcoll(&g->args, g->dargs, epoch, NULL, g->blocks, c->stream,
                               MCA_PART_UCX_GCOLL_LAUNCH))
               ? OMPI_SUCCESS : OMPI_ERROR;
}

/* A stream-ordered epoch: the stream's place is marked at the start (an
 * event), the kernel goes on the collective's own stream from there at
 * MPIX_Wait_enqueue, beside the application's kernels (which may poll
 * MPIX_Parrived on it between the start and the wait), and the stream
 * waits for it: a fork and a join, which a graph captures as well. */
int mca_part_ucx_gcoll_enqueue(mca_part_ucx_coll_t *c, void *stream, uint64_t epoch,
                               const volatile uint64_t *epoch_word)
{
    mca_part_ucx_gcoll_t *g = c->gcoll;

    g->enq_epoch = epoch;
    g->enq_word = epoch_word;
    if (0 != g->after_blocks) {
        return OMPI_SUCCESS; /* the kernel goes on the stream itself, at the wait */
    }
    return (0 == c->gpu->event_record(g->fork, stream)) ? OMPI_SUCCESS : OMPI_ERROR;
}

int mca_part_ucx_gcoll_join(mca_part_ucx_coll_t *c, void *stream)
{
    mca_part_ucx_gcoll_t *g = c->gcoll;

    mca_part_ucx_gcoll_count(g); /* graphs: once per capture */
    if (0 != g->after_blocks) {
        mca_part_ucx_count(MCA_PART_UCX_PVAR_COLL_GPU_AFTER, 1);
        return (0 == c->gpu->gcoll(&g->args, g->dargs, g->enq_epoch, g->enq_word, g->after_blocks,
                                   stream, MCA_PART_UCX_GCOLL_GATED))
                   ? OMPI_SUCCESS : OMPI_ERROR;
    }
    if (0 != c->gpu->stream_wait_event(c->stream, g->fork) ||
        0 != c->gpu->gcoll(&g->args, g->dargs, g->enq_epoch, g->enq_word, g->blocks, c->stream,
                           MCA_PART_UCX_GCOLL_LAUNCH) ||
        0 != c->gpu->event_record(g->join, c->stream) ||
        0 != c->gpu->stream_wait_event(stream, g->join)) {
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

volatile uint64_t *mca_part_ucx_gcoll_epoch_word(const mca_part_ucx_coll_t *c)
{
    return c->gcoll->args.epoch_dev;
}

const volatile uint64_t *mca_part_ucx_gcoll_finished(const mca_part_ucx_coll_t *c)
{
    return c->gcoll->args.finished;
}

/* The kernels look at the host's marks from the first one on: the word
 * that says so is in GPU memory, and is there before the mark (the copy
 * is waited for). */
static int mca_part_ucx_gcoll_host_marks(mca_part_ucx_gcoll_t *g)
{
    uint64_t one = 1;

    if (g->host_marked) {
        return MPI_SUCCESS;
    }
    if (OMPI_SUCCESS != mca_part_ucx_device_copy_in((void *) g->args.host_marks, &one,
                                                    sizeof(one))) {
        return MPI_ERR_INTERN;
    }
    g->host_marked = true;
    return MPI_SUCCESS;
}

int mca_part_ucx_gcoll_pready(mca_part_ucx_coll_t *c, size_t u, uint64_t epoch)
{
    volatile uint64_t *host_ready = (volatile uint64_t *) c->gcoll->args.host_ready;
    int rc;

    if (c->user_ready[u] == epoch) {
        return MPI_ERR_ARG; /* already ready in this epoch */
    }
    if (MPI_SUCCESS != (rc = mca_part_ucx_gcoll_host_marks(c->gcoll))) {
        return rc;
    }
    c->user_ready[u] = epoch;
    opal_atomic_wmb(); /* the data (the host synchronised with its producer) before the word */
    host_ready[u] = epoch;
    return MPI_SUCCESS;
}

bool mca_part_ucx_gcoll_parrived(const mca_part_ucx_coll_t *c, size_t first, size_t last,
                                 uint64_t epoch)
{
    const volatile uint64_t *done = c->gcoll->args.done;
    size_t u;

    for (u = first; u <= last; ++u) {
        if (done[u] < epoch) {
            return false;
        }
    }
    opal_atomic_rmb(); /* the results after the words */
    return true;
}

volatile uint64_t *mca_part_ucx_gcoll_ready_words(const mca_part_ucx_coll_t *c)
{
    const mca_part_ucx_gcoll_args_t *a = &c->gcoll->args;

    return (NULL != a->marks) ? (volatile uint64_t *) a->marks : a->win[a->me];
}

bool mca_part_ucx_gcoll_ordered(const mca_part_ucx_coll_t *c)
{
    return NULL != c->gcoll->args.marks;
}

int mca_part_ucx_gcoll_attach(mca_part_ucx_coll_t *c, volatile uint32_t *error)
{
    mca_part_ucx_gcoll_t *g = c->gcoll;

    g->args.pready_error = error;
    /* the one field: a kernel of an epoch under way may be reading the rest */
    return mca_part_ucx_device_copy_in(&g->dargs->pready_error, &g->args.pready_error,
                                       sizeof(g->args.pready_error));
}

volatile uint64_t *mca_part_ucx_gcoll_done_words(const mca_part_ucx_coll_t *c)
{
    return (volatile uint64_t *) c->gcoll->args.done;
}

bool mca_part_ucx_gcoll_gpu_scope(const mca_part_ucx_coll_t *c)
{
    const mca_part_ucx_gcoll_args_t *a = &c->gcoll->args;

    /* a push allreduce's peers never read this rank's ready words or data
     * (two-shot in lines: pushed too), and where the engine relays the
     * readiness (a->relay) only it reads them */
    return 0 != a->gpu_scope || 0 != a->relay ||
           (mca_part_ucx_gcoll_pushed(a->kind, 0 != a->ll128) && 0 != a->narrow_fences);
}

void mca_part_ucx_gcoll_dump(const mca_part_ucx_coll_t *c, uint64_t epoch)
{
    const mca_part_ucx_gcoll_args_t *a = &c->gcoll->args;
    size_t u, ready = 0, done = 0;

    for (u = 0; u < a->user_parts; ++u) {
        ready += (a->host_ready[u] >= epoch);
        done += (a->done[u] >= epoch);
    }
    mca_part_ucx_dump_line("  GPU engine: kind %d%s%s%s, %llu units, %u blocks; finished %" PRIu64
                           "; host-readied %zu, done %zu of %llu partitions", a->kind,
                           a->ll128 ? " (ll128)" : "", a->span ? " across GPUs" : "",
                           a->relay ? " (relayed)" : "", (unsigned long long) a->units,
                           c->gcoll->blocks, *a->finished, ready,
                           done, (unsigned long long) a->user_parts);
}
