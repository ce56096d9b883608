/* Stream-ordered partitioned epochs (MPIX_Start_enqueue, MPIX_Wait_enqueue
 * on a stream communicator). Two ranks: rank 0 sends, rank 1 receives, GPU
 * buffers, one cudaStreamNonBlocking stream per rank bound to the
 * communicator by MPIX_Stream_comm_create. Each epoch, in stream order:
 *   sender:   MPIX_Start_enqueue, a kernel that writes partition p (one
 *             block a partition) and calls MPIX_Pready(p) from every
 *             thread, MPIX_Wait_enqueue
 *   receiver: MPIX_Start_enqueue, MPIX_Wait_enqueue, a kernel that checks
 *             the receive buffer against the expected values and counts
 *             mismatches into device counters
 * The host enqueues every epoch back to back and synchronises the stream
 * once at the end; then MPI_Test (complete at once) and MPI_Wait on the
 * host must succeed and the counters
 * must be zero (and count every epoch checked). Values depend on the
 * epoch, the partition and the element, so stale, early or misplaced data
 * is caught. MPIX_Prequest_create comes before the first stream-ordered
 * start, on both sides (the receiver's handle serves MPIX_Parrived).
 *   -p N  partitions, 1..1024 (8)        -n N int32 per partition (1024)
 *   -t N  threads per block (256)        -e N epochs (1000)
 *   -l auto|thread|warp|block   the MPIX_Pready level (auto)
 *   -A    info "mpix_pready_aggregate" "block" (with -l auto: one update
 *         per block)
 *   -c kernel|progress|auto    info "mpix_device_copy" of both requests
 *   -C    the sender's device request must use kernel copy
 *   -F auto|sys  and its kernels must release their stores at GPU scope
 *         where the two ranks share a GPU (PCI address), at system scope
 *         otherwise (auto), or at system scope (sys:
 *         --mca part_ucx_device_gpu_scope_fences 0)
 *   -d US the receiver's stream spins US microseconds before each start:
 *         the sender's kernel runs before the receiver is ready and must
 *         not write into its buffer early
 *   -g    CUDA graph: epoch 1 is enqueued as usual (it makes the device
 *         requests), then each side captures one epoch into a graph and
 *         replays it for the other epochs (see enqueue_epoch: a one-thread
 *         kernel at the head of the graph advances the side's epoch
 *         counter in device memory, which the kernels after it read)
 *   -G K  -g with K epochs captured into the one graph, each with its own
 *         start, kernels and wait ((epochs - 1) a multiple of K)
 *   -P    with -g or -G: the graph instantiated with
 *         cudaGraphInstantiateFlagUseNodePriority, so that its nodes keep
 *         the priorities they were launched with (the GPU engine's, at
 *         part_ucx_coll_gpu_priority)
 *   -j    with -G: no bump() per epoch; the kernels of the graph's epoch k
 *         take the counter + k, and one kernel after the last epoch
 *         advances it by K. An epoch's wait and the next epoch's start are
 *         then adjacent on the stream (on the receiver with -a), and the
 *         start joins the wait's node: without -d, -2 and -R, each rank
 *         checks that its graph has at most 2K + 3 nodes (two an epoch,
 *         four a -c progress sender's; the graph's first start, one kernel
 *         or a copy a word, and the final kernel)
 *   -H N  with -g or -G (not -j, -K): after every N launches of the
 *         graph, the host synchronises the stream, completes the enqueued
 *         epochs (MPI_Waitall) and runs one epoch itself (MPI_Startall, the
 *         same kernels, MPI_Waitall), then advances the graph's counter
 *         past it: the graph's later replays must take the epochs after
 *         the host's, which the host's count at the capture does not
 *         know (epochs the graph's launches cannot fill run on the host)
 *   -a    the receiver's check kernel comes before MPIX_Wait_enqueue and
 *         first polls MPIX_Parrived for each partition (from epoch 2)
 *   -m send|recv  that side uses host MPI_Start / MPI_Wait (the sender
 *         with MPIX_Pbuf_prepare and the same kernel; the receiver with
 *         the same check kernel, synchronised each epoch), the other side
 *         enqueues
 *   -x    error cases (MPI_ERRORS_RETURN), then the normal run, with the
 *         MPIX_Stream freed right after the communicator was made: a host
 *         epoch 0 (MPIX_Start_enqueue in it: MPI_ERR_REQUEST); in epoch 1
 *         MPI_Pready from the host, MPI_Start, a second MPIX_Wait_enqueue
 *         and MPI_Request_free: MPI_ERR_REQUEST; MPI_Request_free after
 *         the final stream synchronisation, before MPI_Wait: MPI_ERR_REQUEST;
 *         MPI_REQUEST_NULL: MPI_ERR_REQUEST; a request on a communicator
 *         without a stream: MPI_ERR_ARG
 *   -2    two requests a side, each half of the partitions (and of the
 *         buffer), started by MPIX_Startall_enqueue and completed by
 *         MPIX_Waitall_enqueue (host: MPI_Startall, MPI_Waitall)
 *   -R    a partitioned allreduce (MPIX_Pallreduce_init, MPI_SUM) on the
 *         stream communicator instead, 2 or more ranks: every rank's kernel
 *         writes its contribution and calls MPIX_Pready, every rank checks
 *         the sums (with -g, -a, -d, -l, -A, -c as above)
 *   -K    info "mpix_stream_kernels" "true" on the send (and on the
 *         receive, unless -m recv): only kernels on
 *         the stream make its epochs ready, which with kernel copy count
 *         the epochs themselves (no stream work of the sender's own each
 *         epoch; MPI_Start's refusal: tests/cpu/t_stream.c) (not with -x,
 *         -m send, -2); with -R on every rank's collective, whose
 *         MPIX_Pready then only marks where the engine runs after the
 *         producers (-Y 1, part_ucx_coll_gpu_after_bytes)
 *   -S    MPI_THREAD_SERIALIZED. With -c progress: MPIX_Start_enqueue fails
 *         with MPI_ERR_UNSUPPORTED_OPERATION on both sides, nothing else
 *         (run it with --mca part_ucx_stream_copy_engine 0: by default the
 *         sender's epochs need no host within a node, see -E);
 *         with -c kernel -C: the epochs run as without -S (no host thread
 *         takes part, so none is needed)
 *   -E    with -S -c progress and -m recv or -K: the sender's stream moves
 *         its progress-engine epochs itself (part_ucx_stream_copy_engine,
 *         the default within a node), so its starts are not refused
 *         without a progress thread, and the epochs run as without -S,
 *         checked by the receiver's host-started epochs (-m recv) or by
 *         its stream-ordered ones, which then need no progress thread
 *         either (-K: the sender is stream-only, and its stream writes
 *         the receiver's done words)
 *   -V NAME=VALUE  MCA variable NAME set in the odd ranks only (the receiver;
 *         tests/tutil.h)
 *   -Y 0|1|2  with -R: the GPU engine's epochs ran after the producing
 *         kernels (part_ucx_coll_gpu_after_epochs, MPI_T) on every rank (1),
 *         on none (0), or on the odd ranks only (2: with -V
 *         part_ucx_coll_gpu_after_bytes=...); where the ranks span GPUs,
 *         on none (after mode is for ranks that share one GPU). Without
 *         -R, with -C: the sender's device request copies after its
 *         kernels, which only mark (1: its handle carries
 *         MPIX_PREQUEST_TAG_ORDERED, part_ucx_stream_copy_after_bytes), or
 *         its kernels copy (0)
 *   -M E  with -Y 1 (not -R): the sender's kernel of epoch E leaves its last
 *         partition unmarked (misuse): the data still moves (the receiver
 *         checks every epoch as usual), no rank hangs, and the sender's
 *         MPI_Wait after the stream reports MPI_ERR_ARG
 * Output: one line on rank 0, "g_stream (...): OK|FAIL (N failed checks)";
 * the exit status is non-zero on any failed check. */
#include <cuda_runtime.h>
#include <mpi.h>
#include <mpi-ext.h>
#include <mpix_part_device.h>
#include <string.h>
#include <unistd.h>
#include "tutil.h"
#include "gutil.h"

enum { L_AUTO, L_THREAD, L_WARP, L_BLOCK, L_NONE };
enum { C_BAD, C_STUCK, C_CHECKED, C_FIRST_BAD, C_COUNT };
#define STUCK_NS 20000000000ull /* a partition that never arrives: 20 s */

__host__ __device__ static inline int32_t s_value(long epoch, long part, long idx)
{
    uint32_t v = (uint32_t) epoch * 40503u ^ (uint32_t) part * 977u ^ (uint32_t) idx * 13u ^
                 0x9e3779b9u;
    return (int32_t) (v ^ (v >> 15));
}

/* -R: rank r's contribution, small enough that sums over ranks are exact;
 * what the receive buffer must hold: the sender's values, or (ranks > 0)
 * the sum of the contributions of `ranks` ranks. */
__host__ __device__ static inline int32_t r_value(int rank, long epoch, long part, long idx)
{
    return (s_value(epoch, part, idx) & 0xffff) + rank;
}

__host__ __device__ static inline int32_t want(int ranks, long epoch, long part, long idx)
{
    if (0 == ranks) return s_value(epoch, part, idx);
    return ranks * (s_value(epoch, part, idx) & 0xffff) + ranks * (ranks - 1) / 2;
}

__device__ static inline uint64_t now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* The epoch a kernel works on: its argument, or (graph replay) the side's
 * counter in device memory plus the argument (an offset), advanced by
 * bump() earlier on the stream (or by advance() at the end of the graph
 * before, -j). */
__device__ static inline int epoch_of(int epoch, const unsigned *counter)
{
    return NULL != counter ? (int) *counter + epoch : epoch;
}

__global__ void bump(unsigned *counter)
{
    ++*counter;
}

__global__ void advance(unsigned *counter, unsigned k)
{
    *counter += k;
}

/* The receiver's delay: the globaltimer (ns) rather than clock64, whose
 * rate follows the SM clock. */
__global__ void spin(unsigned long long ns)
{
    uint64_t t0 = now_ns();
    while (now_ns() - t0 < ns) {
    }
}

/* The device requests of a side: partition p of the buffer is partition
 * p % half of request p / half (-2: two requests, otherwise half = parts). */
struct preqs {
    MPIX_Prequest h[2];
    int half;
    int skip; /* -M: the epoch whose last partition no MPIX_Pready marks (0: none) */
};

/* Every thread marks partition q of h at `level` (L_NONE: the host marks,
 * epoch 0 of -x). */
__device__ static inline void mark(int level, int q, MPIX_Prequest h)
{
    switch (level) {
    case L_THREAD: MPIX_Pready_thread(q, h); break;
    case L_WARP: MPIX_Pready_warp(q, h); break;
    case L_BLOCK: MPIX_Pready_block(q, h); break;
    case L_AUTO: MPIX_Pready(q, h); break;
    default: break;
    }
}

/* Block p writes partition p, then marks it. */
__global__ void produce(int32_t *buf, preqs d, long n, int level, int epoch,
                        const unsigned *counter)
{
    int p = blockIdx.x, e = epoch_of(epoch, counter), k = p >= d.half;
    for (long j = threadIdx.x; j < n; j += blockDim.x) {
        buf[p * n + j] = s_value(e, p, p * n + j);
    }
    if (e == d.skip && p == (int) gridDim.x - 1) return; /* -M: misuse */
    mark(level, p - k * d.half, d.h[k]);
}

/* -R: block p writes partition p of this rank's contribution, then marks
 * it. */
__global__ void contribute(int32_t *buf, MPIX_Prequest h, long n, int level, int rank, int epoch,
                           const unsigned *counter)
{
    int p = blockIdx.x, e = epoch_of(epoch, counter);
    for (long j = threadIdx.x; j < n; j += blockDim.x) {
        buf[p * n + j] = r_value(rank, e, p, p * n + j);
    }
    mark(level, p, h);
}

/* Blocks take partitions in turn (`ranks`: see want()); with `poll`,
 * thread 0 first waits for MPIX_Parrived (a partition that never arrives
 * counts into C_STUCK after STUCK_NS instead of hanging the stream).
 * Mismatches count into C_BAD, the earliest epoch with one into
 * C_FIRST_BAD, every run into C_CHECKED. */
__global__ void check(const volatile int32_t *buf, preqs d, int parts, long n, int ranks,
                      int epoch, const unsigned *counter, int poll, unsigned long long *c)
{
    __shared__ int arrived;
    int e = epoch_of(epoch, counter);
    for (int p = blockIdx.x; p < parts; p += gridDim.x) {
        if (0 == threadIdx.x) {
            int flag = 1;
            if (poll) {
                uint64_t t0 = now_ns();
                for (flag = 0; !flag && now_ns() - t0 < STUCK_NS;) {
                    int k = p >= d.half;
                    MPIX_Parrived(d.h[k], p - k * d.half, &flag);
                }
                if (!flag) atomicAdd(&c[C_STUCK], 1ull);
            }
            arrived = flag;
        }
        __syncthreads();
        unsigned long long bad = 0;
        for (long j = threadIdx.x; arrived && j < n; j += blockDim.x) {
            bad += buf[p * n + j] != want(ranks, e, p, p * n + j);
        }
        if (bad) {
            atomicAdd(&c[C_BAD], bad);
            atomicMin(&c[C_FIRST_BAD], (unsigned long long) e);
        }
        __syncthreads(); /* before thread 0 sets `arrived` again */
    }
    if (0 == blockIdx.x && 0 == threadIdx.x) atomicAdd(&c[C_CHECKED], 1ull);
}

struct side {
    int rank, size, expect_copy, parts, threads, level, poll, delay_us, nreq, coll;
    int expect_after;     /* -Y without -R: -1 unchecked, else the handle's ordered tag */
    int expect_gpu_scope; /* -F: -1 unchecked, else the sender's mark_gpu_scope */
    long n;
    cudaStream_t cs;
    MPI_Request req[2];
    preqs d;
    int32_t *buf;
    int32_t *rbuf;         /* -R: the allreduce's result (buf: the contribution) */
    unsigned *counter;     /* device: the epoch of graph replays */
    bool joined;           /* -j */
    unsigned long long *c; /* device: C_COUNT check counters (checking ranks) */
};

static int check_grid(const side *s)
{
    return s->parts < 16 ? s->parts : 16;
}

/* MPIX_Prequest_create, before the first stream-ordered start (the start
 * plans the epoch around the device request); -C: the send must copy from
 * kernels (no host in the loop). */
static void create_preqs(side *s)
{
    for (int k = 0; k < s->nreq; ++k) {
        T_MPI(MPIX_Prequest_create(s->req[k], &s->d.h[k]));
        if (0 == s->rank && s->expect_copy) {
            struct mpix_prequest_s d;
            CUDA(cudaMemcpy(&d, mpix_prequest_ptr(s->d.h[k]), sizeof(d),
                            cudaMemcpyDeviceToHost));
            T_CHECK(MPIX_PREQUEST_KERNEL_COPY == d.mechanism,
                    "send device request uses mechanism %u, not kernel copy", d.mechanism);
            T_CHECK(s->expect_gpu_scope < 0 || (int) d.mark_gpu_scope == s->expect_gpu_scope,
                    "send device request releases at %s scope, expected %s scope",
                    d.mark_gpu_scope ? "GPU" : "system",
                    s->expect_gpu_scope ? "GPU" : "system");
            bool ordered = 0 != ((uintptr_t) s->d.h[k] & MPIX_PREQUEST_TAG_ORDERED);
            T_CHECK(s->expect_after < 0 || (int) ordered == s->expect_after,
                    "send device request %s after its kernels, expected %s",
                    ordered ? "copies" : "does not copy", s->expect_after ? "it does" : "not");
        }
    }
}

/* The side's requests into (or out of) the stream: one, or both with the
 * *all calls. */
static int start_enqueue(side *s)
{
    return 1 == s->nreq ? MPIX_Start_enqueue(&s->req[0]) : MPIX_Startall_enqueue(2, s->req);
}

static int wait_enqueue(side *s)
{
    return 1 == s->nreq ? MPIX_Wait_enqueue(&s->req[0], MPI_STATUS_IGNORE)
                        : MPIX_Waitall_enqueue(2, s->req, MPI_STATUSES_IGNORE);
}

/* One epoch on the stream. With `counter`, bump() first advances the
 * side's epoch counter and the kernels read the epoch from it: a captured
 * epoch then differs at each replay, although its arguments are fixed.
 * With `counter` and s->joined, no bump(): the kernels take the counter
 * + e (the epoch's place in the graph). `probe` (-x, epoch 1): the calls
 * that must fail in an enqueued epoch. */
static void enqueue_epoch(side *s, int e, bool counter, bool poll, bool probe)
{
    const unsigned *cnt = counter ? s->counter : NULL;
    if (counter && !s->joined) {
        bump<<<1, 1, 0, s->cs>>>(s->counter);
        CUDA(cudaGetLastError());
        e = 0;
    }
    if (1 == s->rank && s->delay_us > 0) {
        spin<<<1, 1, 0, s->cs>>>((unsigned long long) s->delay_us * 1000);
        CUDA(cudaGetLastError());
    }
    if (NULL == s->d.h[0]) create_preqs(s);
    T_MPI(start_enqueue(s));
    if (s->coll) {
        contribute<<<s->parts, s->threads, 0, s->cs>>>(s->buf, s->d.h[0], s->n, s->level,
                                                       s->rank, e, cnt);
        CUDA(cudaGetLastError());
        if (!poll) T_MPI(wait_enqueue(s));
        check<<<check_grid(s), 256, 0, s->cs>>>(s->rbuf, s->d, s->parts, s->n, s->size, e, cnt,
                                                poll, s->c);
        CUDA(cudaGetLastError());
        if (poll) T_MPI(wait_enqueue(s));
        return;
    }
    if (probe) {
        if (0 == s->rank) T_EXPECT(MPI_Pready(0, s->req[0]), MPI_ERR_REQUEST);
        T_EXPECT(MPI_Start(&s->req[0]), MPI_ERR_REQUEST);
    }
    if (0 == s->rank) {
        produce<<<s->parts, s->threads, 0, s->cs>>>(s->buf, s->d, s->n, s->level, e, cnt);
        CUDA(cudaGetLastError());
        T_MPI(wait_enqueue(s));
    } else {
        if (!poll) T_MPI(wait_enqueue(s));
        check<<<check_grid(s), 256, 0, s->cs>>>(s->buf, s->d, s->parts, s->n, 0, e, cnt, poll,
                                                s->c);
        CUDA(cudaGetLastError());
        if (poll) T_MPI(wait_enqueue(s));
    }
    if (probe) {
        T_EXPECT(MPIX_Wait_enqueue(&s->req[0], MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
        T_EXPECT(MPI_Request_free(&s->req[0]), MPI_ERR_REQUEST);
        T_CHECK(MPI_REQUEST_NULL != s->req[0], "a failed MPI_Request_free freed the request");
    }
}

/* One epoch started and completed by the host (-m, and epoch 0 of -x);
 * the check kernel and the stream synchronisation make sure that the
 * buffer is checked before the next epoch can land in it. */
static void host_epoch(side *s, int e, bool poll, bool probe)
{
    T_MPI(MPI_Startall(s->nreq, s->req));
    if (probe) T_EXPECT(start_enqueue(s), MPI_ERR_REQUEST);
    if (NULL == s->d.h[0] && !probe) create_preqs(s);
    if (0 == s->rank) {
        if (!probe) T_MPI(MPIX_Pbuf_prepareall(s->nreq, s->req));
        /* epoch 0 of -x: no device requests yet, the host marks */
        produce<<<s->parts, s->threads, 0, s->cs>>>(s->buf, s->d, s->n,
                                                    probe ? L_NONE : s->level, e, NULL);
        CUDA(cudaGetLastError());
        if (probe) {
            CUDA(cudaStreamSynchronize(s->cs));
            for (int k = 0; k < s->nreq; ++k) {
                T_MPI(MPI_Pready_range(0, s->d.half - 1, s->req[k]));
            }
        }
        T_MPI(MPI_Waitall(s->nreq, s->req, MPI_STATUSES_IGNORE));
    } else {
        if (poll) {
            check<<<check_grid(s), 256, 0, s->cs>>>(s->buf, s->d, s->parts, s->n, 0, e, NULL, 1,
                                                    s->c);
            CUDA(cudaGetLastError());
        }
        T_MPI(MPI_Waitall(s->nreq, s->req, MPI_STATUSES_IGNORE));
        if (!poll) {
            check<<<check_grid(s), 256, 0, s->cs>>>(s->buf, s->d, s->parts, s->n, 0, e, NULL, 0,
                                                    s->c);
            CUDA(cudaGetLastError());
        }
    }
    CUDA(cudaStreamSynchronize(s->cs));
}

/* -H: a collective's epoch e started and completed by the host, the
 * kernels as an enqueued epoch's. */
static void host_coll_epoch(side *s, int e)
{
    T_MPI(MPI_Startall(s->nreq, s->req));
    contribute<<<s->parts, s->threads, 0, s->cs>>>(s->buf, s->d.h[0], s->n, s->level, s->rank, e,
                                                   NULL);
    CUDA(cudaGetLastError());
    T_MPI(MPI_Waitall(s->nreq, s->req, MPI_STATUSES_IGNORE));
    check<<<check_grid(s), 256, 0, s->cs>>>(s->rbuf, s->d, s->parts, s->n, s->size, e, NULL, 0,
                                            s->c);
    CUDA(cudaGetLastError());
    CUDA(cudaStreamSynchronize(s->cs));
}

/* -H: epoch e run by the host between a graph's replays, once they are
 * complete (MPI_Waitall sees them), and the graph's counter moved past
 * it. */
static void host_epoch_between(side *s, int e)
{
    CUDA(cudaStreamSynchronize(s->cs));
    T_MPI(MPI_Waitall(s->nreq, s->req, MPI_STATUSES_IGNORE));
    s->coll ? host_coll_epoch(s, e) : host_epoch(s, e, false, false);
    advance<<<1, 1, 0, s->cs>>>(s->counter, 1);
    CUDA(cudaGetLastError());
}

/* Calls on requests that cannot be enqueued, before any epoch. */
static void probe_requests(side *s)
{
    MPI_Request null = MPI_REQUEST_NULL, plain;
    T_EXPECT(MPIX_Start_enqueue(&null), MPI_ERR_REQUEST);
    T_EXPECT(MPIX_Wait_enqueue(&null, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    /* MPI_COMM_WORLD carries no stream */
    if (0 == s->rank) {
        T_MPI(MPI_Psend_init(s->buf, s->parts, s->n, MPI_INT32_T, 1, 99, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &plain));
    } else {
        T_MPI(MPI_Precv_init(s->buf, s->parts, s->n, MPI_INT32_T, 0, 99, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &plain));
    }
    T_EXPECT(MPIX_Start_enqueue(&plain), MPI_ERR_ARG);
    T_MPI(MPI_Request_free(&plain));
}

int main(int argc, char **argv)
{
    int epochs = 1000, aggregate = 0, expect_copy = 0, graph = 0, errors = 0, serialized = 0;
    int stream_copy = 0;
    int per_graph = 1;
    int kernels = 0, joined = 0, host_every = 0, launches = 0, node_priority = 0, after = -1;
    int missing = 0;
    int opt, size, provided;
    const char *copy = NULL, *mixed = NULL, *level_name = "auto", *scope = NULL;
    side s;
    memset(&s, 0, sizeof(s));
    s.parts = 8;
    s.threads = 256;
    s.n = 1024;
    s.nreq = 1;
    while ((opt = getopt(argc, argv, "p:n:t:e:l:Ac:CF:d:gG:jH:am:x2RSEKV:PY:M:")) != -1) {
        switch (opt) {
        case 'p': s.parts = atoi(optarg); break;
        case 'n': s.n = atol(optarg); break;
        case 't': s.threads = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        case 'l': level_name = optarg; break;
        case 'A': aggregate = 1; break;
        case 'c': copy = optarg; break;
        case 'C': expect_copy = 1; break;
        case 'F': scope = optarg; break;
        case 'd': s.delay_us = atoi(optarg); break;
        case 'g': graph = 1; break;
        case 'G': graph = 1; per_graph = atoi(optarg); break;
        case 'a': s.poll = 1; break;
        case 'm': mixed = optarg; break;
        case 'x': errors = 1; break;
        case '2': s.nreq = 2; break;
        case 'R': s.coll = 1; break;
        case 'S': serialized = 1; break;
        case 'E': stream_copy = 1; break;
        case 'K': kernels = 1; break;
        case 'V': t_mca_odd_ranks(optarg); break;
        case 'j': joined = 1; break;
        case 'P': node_priority = 1; break;
        case 'H': host_every = atoi(optarg); break;
        case 'Y': after = atoi(optarg); break;
        case 'M': missing = atoi(optarg); break;
        default: return 2;
        }
    }
    s.level = !strcmp(level_name, "auto")     ? L_AUTO
              : !strcmp(level_name, "thread") ? L_THREAD
              : !strcmp(level_name, "warp")   ? L_WARP
              : !strcmp(level_name, "block")  ? L_BLOCK
                                              : -1;
    int host_side = -1; /* the rank that starts and waits on the host (-m) */
    if (mixed) host_side = !strcmp(mixed, "send") ? 0 : !strcmp(mixed, "recv") ? 1 : -2;
    if (s.parts < 1 || s.parts > 1024 || s.n < 1 || s.threads < 1 || s.threads > 1024 ||
        epochs < 1 || s.level < 0 || (2 == s.nreq && s.parts % 2) || s.delay_us < 0 ||
        -2 == host_side || (graph && (mixed || errors)) || per_graph < 1 ||
        (epochs - 1) % per_graph || (errors && mixed) || (joined && !graph) ||
        host_every < 0 || (host_every && (!graph || joined || kernels)) ||
        (after >= 0 && (s.coll ? after > 2 : (after > 1 || !expect_copy))) ||
        (missing && (s.coll || 1 != after || missing < 1 || missing > epochs || errors ||
                     mixed || 2 == s.nreq)) ||
        (s.coll && (mixed || errors || expect_copy || 2 == s.nreq)) ||
        (kernels && (errors || 2 == s.nreq || (mixed && 0 == host_side))) ||
        (serialized && (NULL == copy || (strcmp(copy, "progress") && !expect_copy))) ||
        (stream_copy && (NULL == copy || strcmp(copy, "progress") || !serialized ||
                         (1 != host_side && !kernels))) ||
        (scope && (!expect_copy || (strcmp(scope, "auto") && strcmp(scope, "sys"))))) {
        fprintf(stderr, "g_stream: bad arguments (see the comment at the top of g_stream.cu)\n");
        return 2;
    }
    s.expect_copy = expect_copy;
    s.expect_after = s.coll ? -1 : after;
    s.d.skip = missing;
    s.joined = joined;
    (void) g_select_gpu();
    /* The progress engine in stream order needs a progress thread of
     * part/ucx: MPI_THREAD_MULTIPLE, asked for whatever the mechanism. */
    MPI_Init_thread(&argc, &argv, serialized ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE,
                    &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    s.size = size;
    if (s.coll ? size < 2 : 2 != size) {
        if (0 == s.rank) fprintf(stderr, "g_stream: needs 2 ranks (-R: 2 or more)\n");
        MPI_Finalize();
        return 2;
    }
    T_CHECK(serialized || MPI_THREAD_MULTIPLE == provided, "MPI_THREAD_MULTIPLE not provided");
    MPI_T_pvar_session after_session;
    MPI_T_pvar_handle after_handle;
    if (after >= 0 && s.coll) {
        int index, count;
        T_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
        T_MPI(MPI_T_pvar_session_create(&after_session));
        T_MPI(MPI_T_pvar_get_index("part_ucx_coll_gpu_after_epochs", MPI_T_PVAR_CLASS_COUNTER,
                                   &index));
        T_MPI(MPI_T_pvar_handle_alloc(after_session, index, NULL, &after_handle, &count));
        T_MPI(MPI_T_pvar_start(after_session, after_handle));
    }
    s.expect_gpu_scope = -1;
    if (scope) {
        /* the ranks share a GPU where their devices' PCI addresses agree */
        char bus[2][32] = {"", ""};
        int dev;
        CUDA(cudaGetDevice(&dev));
        CUDA(cudaDeviceGetPCIBusId(bus[s.rank], sizeof(bus[0]), dev));
        T_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, bus, sizeof(bus[0]), MPI_CHAR,
                            MPI_COMM_WORLD));
        s.expect_gpu_scope = !strcmp(scope, "auto") && !strcmp(bus[0], bus[1]);
    }
    char name[160];
    char gname[32] = "";
    if (graph) {
        snprintf(gname, sizeof(gname), " -G %d%s%s", per_graph, joined ? " -j" : "",
                 host_every ? " -H" : "");
    }
    snprintf(name, sizeof(name), "g_stream (-p %d -n %ld -l %s%s -c %s -e %d%s%s%s%s%s%s%s%s%s)",
             s.parts, s.n, level_name, aggregate ? " -A" : "", copy ? copy : "auto", epochs,
             s.delay_us ? " -d" : "", gname, s.poll ? " -a" : "",
             mixed ? (0 == host_side ? " -m send" : " -m recv") : "", errors ? " -x" : "",
             2 == s.nreq ? " -2" : "", s.coll ? " -R" : "", serialized ? " -S" : "",
             kernels ? " -K" : "");

    size_t bytes = (size_t) s.parts * s.n * sizeof(int32_t);
    CUDA(cudaStreamCreateWithFlags(&s.cs, cudaStreamNonBlocking));
    CUDA(cudaMalloc(&s.buf, bytes));
    CUDA(cudaMemset(s.buf, 0xff, bytes));
    if (s.coll) {
        CUDA(cudaMalloc(&s.rbuf, bytes));
        CUDA(cudaMemset(s.rbuf, 0xff, bytes));
    }
    CUDA(cudaMalloc(&s.counter, sizeof(*s.counter)));
    CUDA(cudaMemset(s.counter, 0, sizeof(*s.counter)));
    CUDA(cudaMalloc(&s.c, C_COUNT * sizeof(*s.c)));
    CUDA(cudaMemset(s.c, 0, C_COUNT * sizeof(*s.c)));
    CUDA(cudaMemset(&s.c[C_FIRST_BAD], 0xff, sizeof(*s.c)));
    CUDA(cudaDeviceSynchronize()); /* before the non-blocking stream uses them */
    /* Every kernel loaded before the first epoch, as MPIX_Start_enqueue(3)
     * asks: with lazy loading a first launch behind a pending wait may wait
     * for the context to go idle, holding CUDA's lock that the progress
     * thread's transfers need. */
    cudaFuncAttributes fa;
    CUDA(cudaFuncGetAttributes(&fa, bump));
    CUDA(cudaFuncGetAttributes(&fa, advance));
    CUDA(cudaFuncGetAttributes(&fa, spin));
    CUDA(cudaFuncGetAttributes(&fa, produce));
    CUDA(cudaFuncGetAttributes(&fa, contribute));
    CUDA(cudaFuncGetAttributes(&fa, check));

    /* The MPIX_Stream of the CUDA stream (MPICH's encoding of "value"),
     * and the communicator that carries it. */
    MPIX_Stream mstream = g_mpix_stream(s.cs);
    MPI_Info info;
    MPI_Comm comm;
    T_MPI(MPIX_Stream_comm_create(MPI_COMM_WORLD, mstream, &comm));
    T_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    if (errors) {
        /* -x: the communicator keeps the stream alive */
        T_MPI(MPIX_Stream_free(&mstream));
        T_CHECK(MPIX_STREAM_NULL == mstream, "MPIX_Stream_free left the handle");
    }
    if (errors) {
        /* MPI_Pready's argument checks report on MPI_COMM_WORLD, calls
         * without a communicator (MPI_Start, MPI_Request_free, a null
         * request) on MPI_COMM_SELF */
        T_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        T_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        probe_requests(&s);
    }

    char thr[16];
    snprintf(thr, sizeof(thr), "%d", s.threads);
    T_MPI(MPI_Info_create(&info));
    T_MPI(MPI_Info_set(info, "mpix_pready_threads", thr));
    if (copy) T_MPI(MPI_Info_set(info, "mpix_device_copy", copy));
    if (aggregate) T_MPI(MPI_Info_set(info, "mpix_pready_aggregate", "block"));
    /* on the receive too where its epochs are enqueued: its kernels' MPIX_Parrived
     * then reads no host memory */
    if (kernels && (0 == s.rank || host_side != s.rank)) {
        T_MPI(MPI_Info_set(info, "mpix_stream_kernels", "true"));
    }
    s.d.half = s.parts / s.nreq;
    if (s.coll) {
        T_MPI(MPIX_Pallreduce_init(s.buf, s.rbuf, s.parts, s.n, MPI_INT32_T, MPI_SUM, comm, info,
                                   &s.req[0]));
    }
    for (int k = 0; !s.coll && k < s.nreq; ++k) {
        int32_t *b = s.buf + (size_t) k * s.d.half * s.n;
        if (0 == s.rank) {
            T_MPI(MPI_Psend_init(b, s.d.half, s.n, MPI_INT32_T, 1, 5 + k, comm, info, &s.req[k]));
        } else {
            T_MPI(MPI_Precv_init(b, s.d.half, s.n, MPI_INT32_T, 0, 5 + k, comm, info, &s.req[k]));
        }
    }
    T_MPI(MPI_Info_free(&info));

    bool refused = serialized && !expect_copy && !stream_copy;
    T_CHECK(!serialized || provided < MPI_THREAD_MULTIPLE,
            "MPI_THREAD_MULTIPLE given for SERIALIZED");
    if (refused) {
        create_preqs(&s);
        T_EXPECT(start_enqueue(&s), MPI_ERR_UNSUPPORTED_OPERATION);
        for (int k = 0; k < s.nreq; ++k) T_MPI(MPIX_Prequest_free(&s.d.h[k]));
        for (int k = 0; k < s.nreq; ++k) T_MPI(MPI_Request_free(&s.req[k]));
    } else {
        int checks = epochs; /* check kernels the receiver runs */
        if (errors) {
            host_epoch(&s, 0, false, true);
            ++checks;
        }
        double t0 = MPI_Wtime();
        cudaGraphExec_t exec = NULL;
        for (int e = 1; e <= epochs; ++e) {
            /* Polling from epoch 2: the first transfer between the two GPU
             * buffers opens CUDA IPC mappings, which wait for running
             * kernels, a spinning MPIX_Parrived included; once, the host
             * lets epoch 1 complete before it enqueues more. */
            bool poll = s.poll && e > 1;
            if (s.rank == host_side) {
                host_epoch(&s, e, poll, false);
                continue;
            }
            if (graph && 2 == e) {
                cudaGraph_t g;
                /* thread-local: the component's own threads may go on
                 * calling CUDA while this thread captures */
                if (joined) { /* the epochs before the graph's */
                    advance<<<1, 1, 0, s.cs>>>(s.counter, e - 1);
                    CUDA(cudaGetLastError());
                }
                CUDA(cudaStreamBeginCapture(s.cs, cudaStreamCaptureModeThreadLocal));
                for (int k = 0; k < per_graph; ++k) {
                    enqueue_epoch(&s, joined ? k + 1 : e + k, true, poll, false);
                }
                if (joined) {
                    advance<<<1, 1, 0, s.cs>>>(s.counter, per_graph);
                    CUDA(cudaGetLastError());
                }
                CUDA(cudaStreamEndCapture(s.cs, &g));
                size_t nodes = 0;
                CUDA(cudaGraphGetNodes(g, NULL, &nodes));
                printf("g_stream rank %d: %zu graph nodes for %d epochs\n", s.rank, nodes,
                       per_graph);
                /* every start but the first joined to the wait before it;
                 * a progress-engine sender's epoch is four nodes: its
                 * kernel, the copy's wait, the copy and the kernel that
                 * finishes it, which the next start joins */
                size_t per_epoch = (0 == s.rank && copy && !strcmp(copy, "progress")) ? 4 : 2;
                T_CHECK(!joined || s.delay_us || 2 == s.nreq || s.coll ||
                            (1 == s.rank && !poll) ||
                            nodes <= (size_t) (per_epoch * per_graph + 3),
                        "%zu graph nodes for %d epochs: starts not joined to waits", nodes,
                        per_graph);
                CUDA(cudaGraphInstantiate(
                    &exec, g, node_priority ? cudaGraphInstantiateFlagUseNodePriority : 0));
                CUDA(cudaGraphDestroy(g));
            }
            if (NULL != exec && e + per_graph - 1 > epochs) {
                host_epoch_between(&s, e); /* (-H) fewer epochs left than the graph has */
            } else if (NULL != exec) {
                CUDA(cudaGraphLaunch(exec, s.cs));
                e += per_graph - 1; /* the graph's epochs */
                if (host_every && 0 == ++launches % host_every && e < epochs) {
                    host_epoch_between(&s, ++e);
                }
            } else {
                enqueue_epoch(&s, e, graph && !joined, poll, errors && 1 == e);
            }
            if (s.poll && 1 == e) CUDA(cudaStreamSynchronize(s.cs));
        }
        CUDA(cudaStreamSynchronize(s.cs));
        double t = MPI_Wtime() - t0;
        if (errors) T_EXPECT(MPI_Request_free(&s.req[0]), MPI_ERR_REQUEST);
        /* the stream has passed every wait: the host sees the epochs
         * complete at once */
        int done = 0;
        if (missing && 0 == s.rank) {
            /* the kernels' misuse, reported once the stream is past it
             * (the error handler then frees the request: Open MPI's
             * ompi_errhandler_request_invoke, persistent requests too) */
            T_EXPECT(MPI_Wait(&s.req[0], MPI_STATUS_IGNORE), MPI_ERR_ARG);
        } else {
            T_MPI(MPI_Testall(s.nreq, s.req, &done, MPI_STATUSES_IGNORE));
            T_CHECK(done, "MPI_Testall after the stream completed: not complete");
            T_MPI(MPI_Waitall(s.nreq, s.req, MPI_STATUSES_IGNORE));
        }
        if (NULL != exec) CUDA(cudaGraphExecDestroy(exec));
        if (graph) {
            unsigned got;
            CUDA(cudaMemcpy(&got, s.counter, sizeof(got), cudaMemcpyDeviceToHost));
            T_CHECK((int) got == epochs, "graph epoch counter %u after %d epochs", got, epochs);
        }
        if (1 == s.rank || s.coll) {
            unsigned long long c[C_COUNT];
            CUDA(cudaMemcpy(c, s.c, sizeof(c), cudaMemcpyDeviceToHost));
            T_CHECK(0 == c[C_BAD] && 0 == c[C_STUCK],
                    "%llu values wrong (first in epoch %lld), %llu partitions never arrived",
                    c[C_BAD], (long long) c[C_FIRST_BAD], c[C_STUCK]);
            T_CHECK((int) c[C_CHECKED] == checks, "%llu epochs checked, not %d", c[C_CHECKED],
                    checks);
        }
        if (0 == s.rank) {
            printf("%s: %d epochs in %.3f s (%.1f us an epoch)\n", name, epochs, t,
                   1e6 * t / epochs);
        }
        for (int k = 0; k < s.nreq; ++k) {
            if (MPI_REQUEST_NULL == s.req[k]) {
                continue; /* -M: Open MPI's error path freed it, its device request with it */
            }
            T_MPI(MPIX_Prequest_free(&s.d.h[k]));
            T_MPI(MPI_Request_free(&s.req[k]));
        }
    }
    if (after >= 0 && s.coll) {
        unsigned long long n = 0;
        /* after mode is for ranks that share one GPU */
        bool spans = g_spans_gpus(); /* collective: every rank */
        bool want = (1 == after || (2 == after && 1 == s.rank % 2)) && !spans;
        T_MPI(MPI_T_pvar_read(after_session, after_handle, &n));
        T_CHECK(want ? n > 0 : 0 == n, "rank %d: %llu epochs after the producers, expected %s",
                s.rank, n, want ? "some" : "none");
        T_MPI(MPI_T_pvar_handle_free(after_session, &after_handle));
        T_MPI(MPI_T_pvar_session_free(&after_session));
        T_MPI(MPI_T_finalize());
    }
    T_MPI(MPI_Comm_free(&comm));
    if (MPIX_STREAM_NULL != mstream) {
        T_MPI(MPIX_Stream_free(&mstream));
        T_CHECK(MPIX_STREAM_NULL == mstream, "MPIX_Stream_free left the handle");
    }
    CUDA(cudaStreamDestroy(s.cs));
    CUDA(cudaFree(s.buf));
    if (s.coll) CUDA(cudaFree(s.rbuf));
    CUDA(cudaFree(s.counter));
    CUDA(cudaFree(s.c));
    return t_finish(name);
}
