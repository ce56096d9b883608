/* Misuse of device requests, and GPU patterns that hung (issue 19): every
 * case either moves the right data or fails with the error class MPI
 * names, never a hang, a crash or a write outside the request. Two ranks:
 * rank 0 sends, rank 1 receives (GPU buffers); values depend on the
 * sender, the epoch, the partition and the element.
 *   -t part-range      MPIX_Pready/MPIX_Parrived of partitions out of range
 *                      (and -1): the data still moves, both requests fail
 *                      with MPI_ERR_ARG, nothing past the receive buffer
 *   -t kind-pready     a receive's handle to MPIX_Pready: MPI_ERR_ARG
 *   -t kind-parrived   a send's handle to MPIX_Parrived: MPI_ERR_ARG, flag 1
 *   -t proc-null       device requests of MPI_PROC_NULL requests
 *   -t threshold       every thread of a 32-thread block calls MPIX_Pready
 *                      with the default threshold (1): MPI_ERR_ARG, not a
 *                      hang in the next epoch
 *   -t threshold-warps threshold 32, two warps call it: MPI_ERR_ARG
 *   -t threshold-block info "mpix_pready_aggregate" "block", threshold 64:
 *                      a block of 64 threads calls MPIX_Pready twice for its
 *                      partition, a transport group each (the second call
 *                      finds its group complete): MPI_ERR_ARG
 *   -t free            MPIX_Prequest_free in an active epoch: MPI_ERR_REQUEST;
 *                      two threads free one handle: one succeeds
 *   -t host-then-kernel host MPI_Pready and kernel MPIX_Pready in turns
 *   -t ahead           the receiver checks each epoch's data 50 ms after
 *                      its MPI_Wait, before its next MPI_Start, while the
 *                      sender goes on (run with --mca part_ucx_rtr am:
 *                      one epoch ahead); -d: the sender's kernels ready
 *   -t stream0         a kernel on the legacy default stream polls
 *                      MPIX_Parrived for eager data (run over tcp)
 *   -t kcopy-sync      kernel copy, "kernel; cudaStreamSynchronize;
 *                      MPI_Wait" without MPIX_Pbuf_prepare, the receiver
 *                      starting late
 *   -c progress|kernel  mpix_device_copy of the send   -p N partitions (8)
 *   -n N int32 per partition (1024)   -e N epochs (5) */
#include <cuda_runtime.h>
#include <mpi.h>
#include <mpix_part.h>
#include <mpix_part_device.h>
#include <limits.h>
#include <thread>
#include <unistd.h>
#include <vector>
#include "tutil.h"
#include "gutil.h"

#define GUARD 4096 /* int32 after the receive buffer that nothing may write */

__host__ __device__ static inline int32_t g_value(int src, long epoch, long part, long idx)
{
    uint32_t v = (uint32_t) src * 2654435761u ^ (uint32_t) epoch * 40503u ^
                 (uint32_t) part * 977u ^ (uint32_t) idx * 13u;
    return (int32_t) (v ^ (v >> 15));
}

__global__ void k_fill(int32_t *buf, long n, long per, int src, int epoch)
{
    for (long j = blockIdx.x * (long) blockDim.x + threadIdx.x; j < n;
         j += (long) gridDim.x * blockDim.x) {
        buf[j] = g_value(src, epoch, j / per, j);
    }
}

/* Block p: every thread calls MPIX_Pready(p); thread 0 of block 0 first
 * names partitions bad1 and bad2 too (INT_MIN: none). */
__global__ void k_pready(MPIX_Prequest preq, int bad1, int bad2)
{
    if (0 == blockIdx.x && 0 == threadIdx.x && INT_MIN != bad1) {
        MPIX_Pready(bad1, preq);
        MPIX_Pready(bad2, preq);
    }
    MPIX_Pready(blockIdx.x, preq);
}

/* Block p calls MPIX_Pready(p) twice, every thread each time. */
__global__ void k_pready_twice(MPIX_Prequest preq)
{
    MPIX_Pready(blockIdx.x, preq);
    MPIX_Pready(blockIdx.x, preq);
}

/* MPIX_Parrived(part) into out[0] (return) and out[1] (flag). */
__global__ void k_parrived(MPIX_Prequest preq, int part, int *out)
{
    out[1] = -1;
    out[0] = MPIX_Parrived(preq, part, &out[1]);
}

__device__ static inline uint64_t now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Thread p polls receive partition p and checks its data; cnt[0]: wrong
 * values, cnt[1]: partitions that did not arrive within 10 s. */
__global__ void k_poll(const volatile int32_t *buf, MPIX_Prequest preq, int parts, long per,
                       int src, int epoch, unsigned long long *cnt)
{
    int p = threadIdx.x, flag = 0;
    if (p >= parts) return;
    uint64_t t0 = now_ns();
    while (MPIX_Parrived(preq, p, &flag), !flag) {
        if (now_ns() - t0 > 10000000000ull) {
            atomicAdd(&cnt[1], 1ull);
            return;
        }
    }
    unsigned long long n = 0;
    for (long j = p * per; j < (p + 1) * per; ++j) n += (buf[j] != g_value(src, epoch, p, j));
    if (n) atomicAdd(&cnt[0], n);
}

static int err_class(int rc)
{
    int cls = rc;
    if (MPI_SUCCESS != rc) MPI_Error_class(rc, &cls);
    return cls;
}

struct g_ctx {
    int rank, parts, epochs;
    long per, n;
    const char *copy;
    const char *aggregate; /* info "mpix_pready_aggregate" (NULL: not set) */
    int32_t *sbuf, *rbuf;
    std::vector<int32_t> host;
};

static void fill(g_ctx &c, int e)
{
    k_fill<<<64, 256>>>(c.sbuf, c.n, c.per, 0, e);
    CUDA(cudaGetLastError());
    CUDA(cudaDeviceSynchronize());
}

/* The receive buffer holds epoch e of rank 0, the guard after it is intact. */
static void check(g_ctx &c, int e, const char *what)
{
    CUDA(cudaMemcpy(c.host.data(), c.rbuf, (c.n + GUARD) * sizeof(int32_t),
                    cudaMemcpyDeviceToHost));
    for (long j = 0; j < c.n; ++j) {
        if (c.host[j] != g_value(0, e, j / c.per, j)) {
            T_CHECK(0, "%s: epoch %d elem %ld (partition %ld): %d != %d", what, e, j, j / c.per,
                    c.host[j], g_value(0, e, j / c.per, j));
            break;
        }
    }
    for (long j = c.n; j < c.n + GUARD; ++j) {
        if (-1 != c.host[j]) {
            T_CHECK(0, "%s: epoch %d: %ld int32 past the receive buffer written", what, e,
                    j - c.n);
            break;
        }
    }
}

static void clear(g_ctx &c)
{
    CUDA(cudaMemset(c.rbuf, 0xff, (c.n + GUARD) * sizeof(int32_t)));
    CUDA(cudaDeviceSynchronize());
}

static MPI_Request init(g_ctx &c, const char *threads, const char *group_bytes)
{
    MPI_Request r;
    MPI_Info info;
    T_MPI(MPI_Info_create(&info));
    if (threads) T_MPI(MPI_Info_set(info, "mpix_pready_threads", threads));
    if (group_bytes) T_MPI(MPI_Info_set(info, "mpix_device_group_bytes", group_bytes));
    if (c.copy) T_MPI(MPI_Info_set(info, "mpix_device_copy", c.copy));
    if (c.aggregate) T_MPI(MPI_Info_set(info, "mpix_pready_aggregate", c.aggregate));
    if (0 == c.rank) {
        T_MPI(MPI_Psend_init(c.sbuf, c.parts, c.per, MPI_INT32_T, 1, 5, MPI_COMM_WORLD, info, &r));
    } else {
        T_MPI(MPI_Precv_init(c.rbuf, c.parts, c.per, MPI_INT32_T, 0, 5, MPI_COMM_WORLD, info, &r));
    }
    T_MPI(MPI_Info_free(&info));
    return r;
}

/* Open MPI's MPI_Wait frees a request that completed with an error, a
 * persistent one too (ompi_errhandler_request_invoke): its device request
 * went with it, and the handle is then refused. */
static void release(MPI_Request *r, MPIX_Prequest *preq)
{
    if (MPI_REQUEST_NULL == *r) {
        if (NULL != *preq) {
            int cls = err_class(MPIX_Prequest_free(preq));
            T_CHECK(MPI_ERR_ARG == cls, "MPIX_Prequest_free of a freed request's handle: %d",
                    cls);
        }
        return;
    }
    if (NULL != *preq) T_MPI(MPIX_Prequest_free(preq));
    T_MPI(MPI_Request_free(r));
}

/* One epoch where the misuse is `bad_send` (rank 0's kernel: partitions
 * bad1/bad2, or its handle to MPIX_Parrived) or `bad_recv` (rank 1's
 * kernel: MPIX_Parrived of bad1/bad2, or its handle to MPIX_Pready); the
 * data still moves and the misused request fails with MPI_ERR_ARG. */
static void t_misuse(g_ctx &c, int bad1, int bad2, bool bad_send, bool bad_recv, bool kind)
{
    MPIX_Prequest preq = NULL;
    MPI_Request r = init(c, NULL, NULL);
    int *out, h[2];
    CUDA(cudaMalloc(&out, 2 * sizeof(int)));
    if (0 == c.rank) fill(c, 1);
    else clear(c);
    T_MPI(MPI_Start(&r));
    T_MPI(MPIX_Prequest_create(r, &preq));
    if (1 == c.rank && bad_recv) {
        if (kind) {
            k_pready<<<1, 1>>>(preq, INT_MIN, INT_MIN); /* a receive's handle */
            CUDA(cudaGetLastError());
        } else {
            for (int bad : {bad1, bad2}) {
                k_parrived<<<1, 1>>>(preq, bad, out);
                CUDA(cudaGetLastError());
                CUDA(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
                T_CHECK(MPI_ERR_ARG == h[0] && 1 == h[1],
                        "MPIX_Parrived(%d) of %d partitions: %d, flag %d", bad, c.parts, h[0],
                        h[1]);
            }
        }
        CUDA(cudaDeviceSynchronize());
    }
    if (0 == c.rank && bad_send && kind) {
        k_parrived<<<1, 1>>>(preq, 0, out); /* a send's handle */
        CUDA(cudaGetLastError());
        CUDA(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
        T_CHECK(MPI_ERR_ARG == h[0] && 1 == h[1], "MPIX_Parrived on a send: %d, flag %d", h[0],
                h[1]);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the receiver's misuse is visible before any data */
    if (0 == c.rank) {
        /* a send whose kernels misused it may report it here already */
        int pc = err_class(MPIX_Pbuf_prepare(&r));
        T_CHECK(MPI_SUCCESS == pc || (bad_send && MPI_ERR_ARG == pc),
                "MPIX_Pbuf_prepare gave class %d", pc);
        if (bad_send && !kind) k_pready<<<c.parts, 1>>>(preq, bad1, bad2);
        else k_pready<<<c.parts, 1>>>(preq, INT_MIN, INT_MIN);
        CUDA(cudaGetLastError());
        CUDA(cudaDeviceSynchronize());
    }
    int cls = err_class(MPI_Wait(&r, MPI_STATUS_IGNORE));
    bool bad = 0 == c.rank ? bad_send : bad_recv;
    T_CHECK(cls == (bad ? MPI_ERR_ARG : MPI_SUCCESS), "%s: MPI_Wait gave class %d",
            0 == c.rank ? "send" : "receive", cls);
    if (1 == c.rank) check(c, 1, "misuse");
    CUDA(cudaFree(out));
    release(&r, &preq);
}

static void t_proc_null(g_ctx &c)
{
    MPI_Request r[2];
    MPIX_Prequest preq[2] = {NULL, NULL};
    int *out, h[2];
    CUDA(cudaMalloc(&out, 2 * sizeof(int)));
    T_MPI(MPI_Psend_init(c.sbuf, c.parts, c.per, MPI_INT32_T, MPI_PROC_NULL, 5, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &r[0]));
    T_MPI(MPI_Precv_init(c.rbuf, c.parts, c.per, MPI_INT32_T, MPI_PROC_NULL, 5, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &r[1]));
    for (int e = 1; e <= c.epochs; ++e) {
        T_MPI(MPI_Startall(2, r));
        if (NULL == preq[0]) {
            T_MPI(MPIX_Prequest_create(r[0], &preq[0]));
            T_MPI(MPIX_Prequest_create(r[1], &preq[1]));
        }
        k_pready<<<c.parts, 1>>>(preq[0], INT_MIN, INT_MIN);
        CUDA(cudaGetLastError());
        for (int p = 0; p < c.parts; ++p) {
            k_parrived<<<1, 1>>>(preq[1], p, out);
            CUDA(cudaGetLastError());
            CUDA(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
            T_CHECK(MPI_SUCCESS == h[0] && 1 == h[1],
                    "epoch %d: MPIX_Parrived(%d) from MPI_PROC_NULL: %d, flag %d", e, p, h[0],
                    h[1]);
        }
        CUDA(cudaDeviceSynchronize());
        MPI_Status st[2];
        T_MPI(MPI_Waitall(2, r, st));
        T_CHECK(MPI_PROC_NULL == st[1].MPI_SOURCE, "epoch %d: source %d", e, st[1].MPI_SOURCE);
    }
    CUDA(cudaFree(out));
    release(&r[0], &preq[0]);
    release(&r[1], &preq[1]);
}

/* Every thread of a block calls MPIX_Pready for its partition: `threads`
 * calls where the threshold is `key` (NULL: the default, 1), twice where
 * `twice`. */
static void t_threshold(g_ctx &c, const char *key, int threads, bool twice = false)
{
    MPIX_Prequest preq = NULL;
    char group[32];
    /* twice: a transport group a partition, so that one block's calls
     * complete its group (the block level's one-update path) */
    snprintf(group, sizeof(group), "%ld", c.per * (long) sizeof(int32_t));
    MPI_Request r = init(c, key, twice ? group : NULL);
    if (0 == c.rank) fill(c, 1);
    else clear(c);
    T_MPI(MPI_Start(&r));
    T_MPI(MPIX_Prequest_create(r, &preq));
    if (0 == c.rank) {
        T_MPI(MPIX_Pbuf_prepare(&r));
        if (twice) {
            k_pready_twice<<<c.parts, threads>>>(preq);
        } else {
            k_pready<<<c.parts, threads>>>(preq, INT_MIN, INT_MIN);
        }
        CUDA(cudaGetLastError());
        CUDA(cudaDeviceSynchronize());
    }
    int cls = err_class(MPI_Wait(&r, MPI_STATUS_IGNORE));
    T_CHECK(cls == (0 == c.rank ? MPI_ERR_ARG : MPI_SUCCESS),
            "%d calls a partition, threshold %s: MPI_Wait of the %s gave class %d", threads,
            key ? key : "default", 0 == c.rank ? "send" : "receive", cls);
    if (1 == c.rank) check(c, 1, "threshold");
    if (0 == c.rank && MPI_REQUEST_NULL != r) {
        /* the misused send stays failed: no stale count carried over */
        T_MPI(MPI_Start(&r));
        cls = err_class(MPI_Wait(&r, MPI_STATUS_IGNORE));
        T_CHECK(MPI_ERR_ARG == cls, "the epoch after the misuse: class %d", cls);
    }
    release(&r, &preq);
}

static void t_free(g_ctx &c)
{
    int provided;
    MPI_Query_thread(&provided);
    MPIX_Prequest preq = NULL;
    MPI_Request r = init(c, NULL, NULL);
    for (int e = 1; e <= c.epochs; ++e) {
        if (0 == c.rank) fill(c, e);
        else clear(c);
        T_MPI(MPI_Start(&r));
        T_MPI(MPIX_Prequest_create(r, &preq));
        MPIX_Prequest keep = preq;
        int cls = err_class(MPIX_Prequest_free(&preq));
        T_CHECK(MPI_ERR_REQUEST == cls && keep == preq,
                "epoch %d: MPIX_Prequest_free in an active epoch: class %d", e, cls);
        if (0 == c.rank) {
            T_MPI(MPIX_Pbuf_prepare(&r));
            k_pready<<<c.parts, 1>>>(preq, INT_MIN, INT_MIN);
            CUDA(cudaGetLastError());
            CUDA(cudaDeviceSynchronize());
        }
        T_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (1 == c.rank) check(c, e, "free");
        if (MPI_THREAD_MULTIPLE == provided) {
            /* two threads free the same handle: one does, the other is told */
            MPIX_Prequest a = preq, b = preq;
            int ra = -1, rb = -1;
            std::thread ta([&] { ra = err_class(MPIX_Prequest_free(&a)); });
            std::thread tb([&] { rb = err_class(MPIX_Prequest_free(&b)); });
            ta.join();
            tb.join();
            T_CHECK((MPI_SUCCESS == ra && MPI_ERR_ARG == rb) ||
                        (MPI_ERR_ARG == ra && MPI_SUCCESS == rb),
                    "epoch %d: two frees of one handle: classes %d and %d", e, ra, rb);
        } else {
            T_MPI(MPIX_Prequest_free(&preq));
            int cls2 = err_class(MPIX_Prequest_free(&keep));
            T_CHECK(MPI_ERR_ARG == cls2, "epoch %d: second free: class %d", e, cls2);
        }
        preq = NULL;
    }
    T_MPI(MPI_Request_free(&r));
}

/* Odd epochs host MPI_Pready, even ones kernel MPIX_Pready (transport
 * groups off, as mixing requires). */
static void t_host_then_kernel(g_ctx &c)
{
    MPIX_Prequest preq = NULL;
    MPI_Request r = init(c, NULL, "0");
    for (int e = 1; e <= c.epochs; ++e) {
        if (0 == c.rank) fill(c, e);
        else clear(c);
        T_MPI(MPI_Start(&r));
        if (NULL == preq) T_MPI(MPIX_Prequest_create(r, &preq));
        if (0 == c.rank && e % 2) {
            T_MPI(MPI_Pready_range(0, c.parts - 1, r));
        } else if (0 == c.rank) {
            T_MPI(MPIX_Pbuf_prepare(&r));
            k_pready<<<c.parts, 1>>>(preq, INT_MIN, INT_MIN);
            CUDA(cudaGetLastError());
            CUDA(cudaDeviceSynchronize());
        }
        T_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (1 == c.rank) check(c, e, "host-then-kernel");
    }
    release(&r, &preq);
}

/* The receiver looks at its buffer 50 ms after each MPI_Wait, before its
 * next MPI_Start, while the sender (host or kernel MPIX_Pready, no
 * MPIX_Pbuf_prepare) goes on to the next epoch. */
static void t_ahead(g_ctx &c, bool device)
{
    MPIX_Prequest preq = NULL;
    MPI_Request r = init(c, NULL, NULL);
    for (int e = 1; e <= c.epochs; ++e) {
        if (0 == c.rank) fill(c, e);
        T_MPI(MPI_Start(&r));
        if (0 == c.rank && device) {
            if (NULL == preq) T_MPI(MPIX_Prequest_create(r, &preq));
            k_pready<<<c.parts, 1>>>(preq, INT_MIN, INT_MIN);
            CUDA(cudaGetLastError());
        } else if (0 == c.rank) {
            T_MPI(MPI_Pready_range(0, c.parts - 1, r));
        }
        T_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (0 == c.rank) {
            CUDA(cudaDeviceSynchronize());
        } else {
            usleep(50000);
            check(c, e, "ahead");
            clear(c);
        }
    }
    release(&r, &preq);
}

/* A kernel on the legacy default stream polls every partition while the
 * host waits; the sender readies them from the host after a barrier. */
static void t_stream0(g_ctx &c)
{
    MPIX_Prequest preq = NULL;
    MPI_Request r = init(c, NULL, NULL);
    unsigned long long *cnt, h[2];
    CUDA(cudaMalloc(&cnt, sizeof(h)));
    CUDA(cudaMemset(cnt, 0, sizeof(h)));
    for (int e = 1; e <= c.epochs; ++e) {
        if (0 == c.rank) fill(c, e);
        else clear(c);
        T_MPI(MPI_Start(&r));
        if (1 == c.rank) {
            if (NULL == preq) T_MPI(MPIX_Prequest_create(r, &preq));
            k_poll<<<1, c.parts>>>(c.rbuf, preq, c.parts, c.per, 0, e, cnt); /* stream 0 */
            CUDA(cudaGetLastError());
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (0 == c.rank) T_MPI(MPI_Pready_range(0, c.parts - 1, r));
        T_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (1 == c.rank) {
            CUDA(cudaDeviceSynchronize());
            CUDA(cudaMemcpy(h, cnt, sizeof(h), cudaMemcpyDeviceToHost));
            T_CHECK(0 == h[0] && 0 == h[1],
                    "epoch %d: polling kernel saw %llu wrong values, %llu partitions never "
                    "arrived", e, h[0], h[1]);
            CUDA(cudaMemset(cnt, 0, sizeof(h)));
            check(c, e, "stream0");
        }
    }
    CUDA(cudaFree(cnt));
    release(&r, &preq);
}

/* Kernel copy without MPIX_Pbuf_prepare: the sender's host blocks in
 * cudaStreamSynchronize while its kernel readies every partition; the
 * receiver starts 50 ms later. */
static void t_kcopy_sync(g_ctx &c)
{
    MPIX_Prequest preq = NULL;
    MPI_Request r = init(c, NULL, NULL);
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int e = 1; e <= c.epochs; ++e) {
        if (0 == c.rank) fill(c, e);
        else clear(c);
        if (0 == c.rank) {
            T_MPI(MPI_Start(&r));
            if (NULL == preq) {
                T_MPI(MPIX_Prequest_create(r, &preq));
                T_CHECK(!c.copy || 0 != strcmp(c.copy, "kernel") ||
                            0 != ((uintptr_t) preq & MPIX_PREQUEST_TAG_KERNEL_COPY),
                        "no kernel copy for this send");
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (0 == c.rank) {
            k_pready<<<c.parts, 1, 0, s>>>(preq, INT_MIN, INT_MIN);
            CUDA(cudaGetLastError());
            CUDA(cudaStreamSynchronize(s));
        } else {
            usleep(50000);
            T_MPI(MPI_Start(&r));
        }
        T_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (1 == c.rank) check(c, e, "kcopy-sync");
    }
    CUDA(cudaStreamDestroy(s));
    release(&r, &preq);
}

int main(int argc, char **argv)
{
    g_ctx c = {};
    const char *test = NULL;
    bool device = false;
    int opt, provided, size;
    c.parts = 8;
    c.per = 1024;
    c.epochs = 5;
    while ((opt = getopt(argc, argv, "t:c:p:n:e:d")) != -1) {
        switch (opt) {
        case 't': test = optarg; break;
        case 'c': c.copy = optarg; break;
        case 'p': c.parts = atoi(optarg); break;
        case 'n': c.per = atol(optarg); break;
        case 'e': c.epochs = atoi(optarg); break;
        case 'd': device = true; break;
        default: return 2;
        }
    }
    if (NULL == test || c.parts < 1 || c.parts > 1024 || c.per < 1 || c.epochs < 1) {
        fprintf(stderr, "g_misuse: -t TEST required (see the source)\n");
        return 2;
    }
    (void) g_select_gpu();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (2 != size) {
        if (0 == c.rank) fprintf(stderr, "g_misuse: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* errors without a handle (a device request already freed) */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    c.n = c.parts * c.per;
    c.host.resize(c.n + GUARD);
    CUDA(cudaMalloc(&c.sbuf, c.n * sizeof(int32_t)));
    CUDA(cudaMalloc(&c.rbuf, (c.n + GUARD) * sizeof(int32_t)));
    clear(c);

    if (0 == strcmp(test, "part-range")) {
        t_misuse(c, c.parts, -1, true, false, false);
        t_misuse(c, c.parts, -1, false, true, false);
    } else if (0 == strcmp(test, "kind-pready")) {
        t_misuse(c, 0, 0, false, true, true);
    } else if (0 == strcmp(test, "kind-parrived")) {
        t_misuse(c, 0, 0, true, false, true);
    } else if (0 == strcmp(test, "proc-null")) {
        t_proc_null(c);
    } else if (0 == strcmp(test, "threshold")) {
        t_threshold(c, NULL, 32);
    } else if (0 == strcmp(test, "threshold-warps")) {
        t_threshold(c, "32", 64);
    } else if (0 == strcmp(test, "threshold-block")) {
        c.aggregate = "block";
        t_threshold(c, "64", 64, true);
    } else if (0 == strcmp(test, "free")) {
        t_free(c);
    } else if (0 == strcmp(test, "host-then-kernel")) {
        t_host_then_kernel(c);
    } else if (0 == strcmp(test, "ahead")) {
        t_ahead(c, device);
    } else if (0 == strcmp(test, "stream0")) {
        t_stream0(c);
    } else if (0 == strcmp(test, "kcopy-sync")) {
        t_kcopy_sync(c);
    } else {
        if (0 == c.rank) fprintf(stderr, "g_misuse: unknown test %s\n", test);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    CUDA(cudaFree(c.sbuf));
    CUDA(cudaFree(c.rbuf));
    return t_finish("g_misuse");
}
