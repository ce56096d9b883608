/* Partitioned ring exchange with device-side MPIX_Pready (mpix_part_device.h):
 * every thread of the send kernel writes its values into the GPU send buffer
 * and then marks its partition; the host progress engine sends a partition
 * once all of its threads have called MPIX_Pready. Values depend on sender,
 * epoch, partition and element, and the receive buffer is reset every epoch.
 *   -m auto|thread|warp|block  MPIX_Pready variant   -p N partitions
 *   -m autoblock  MPIX_Pready with the info key "mpix_pready_aggregate" "block"
 *   -m mixed  MPIX_Pready_block for even partitions, _warp for odd ones:
 *             transport groups whose partitions complete by calls of both
 *             levels (one call a partition, or one a warp)
 *   -t N threads per block (256)   -b N blocks per partition (1)
 *   -v N int32 per thread (2)      -e N epochs (1000)
 *   -k  a kernel polls MPIX_Parrived and checks each partition on the GPU
 *   -r  MPIX_Prequest_free + MPIX_Prequest_create every 100 epochs
 *   -E  error cases of MPIX_Prequest_create first, then the normal run
 *   -V NAME=VALUE  MCA variable NAME set in the odd ranks only: settings that
 *       differ between a sender and its receiver (tests/tutil.h) */
#include <cuda_runtime.h>
#include <mpi.h>
#include <mpix_part.h>
#include <mpix_part_device.h>
#include <unistd.h>
#include <vector>
#include "tutil.h"
#include "gutil.h"


enum { M_AUTO, M_THREAD, M_WARP, M_BLOCK, M_AUTOBLOCK, M_MIXED };

__host__ __device__ static inline int32_t g_value(int src, long epoch, long part, long idx)
{
    uint32_t v = (uint32_t) src * 2654435761u ^ (uint32_t) epoch * 40503u ^
                 (uint32_t) part * 977u ^ (uint32_t) idx * 13u;
    return (int32_t) (v ^ (v >> 15));
}

/* One block writes one of the bpp slices of its partition, then every
 * thread calls the selected MPIX_Pready for that partition. */
__global__ void send_kernel(int32_t *buf, MPIX_Prequest preq, int mode, int bpp, int pt,
                            int rank, int epoch)
{
    int part = blockIdx.x / bpp;
    long per_part = (long) bpp * blockDim.x * pt;
    long base = part * per_part + ((long) (blockIdx.x % bpp) * blockDim.x + threadIdx.x) * pt;
    for (int k = 0; k < pt; ++k) {
        buf[base + k] = g_value(rank, epoch, part, base + k);
    }
    switch (mode) {
    case M_THREAD: MPIX_Pready_thread(part, preq); break;
    case M_WARP: MPIX_Pready_warp(part, preq); break;
    case M_BLOCK: MPIX_Pready_block(part, preq); break;
    case M_MIXED:
        if (part & 1) MPIX_Pready_warp(part, preq);
        else MPIX_Pready_block(part, preq);
        break;
    default: MPIX_Pready(part, preq); break;
    }
}

__device__ static inline uint64_t now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One thread per receive partition: spin on MPIX_Parrived, then check the
 * partition's data. A partition that never arrives counts into *stuck after
 * 30 s instead of hanging the stream. */
__global__ void poll_kernel(const volatile int32_t *buf, MPIX_Prequest preq, int parts,
                            long per_part, int src, int epoch, unsigned long long *bad,
                            unsigned long long *stuck)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int flag = 0;
    if (p >= parts) return;
    uint64_t t0 = now_ns();
    for (;;) {
        MPIX_Parrived(preq, p, &flag);
        if (flag) break;
        if (now_ns() - t0 > 30000000000ull) {
            atomicAdd(stuck, 1ull);
            return;
        }
    }
    unsigned long long n = 0;
    for (long j = p * per_part; j < (p + 1) * per_part; ++j) {
        n += (buf[j] != g_value(src, epoch, p, j));
    }
    if (n) atomicAdd(bad, n);
}

static int err_class(int rc)
{
    int cls = rc;
    if (MPI_SUCCESS != rc) MPI_Error_class(rc, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    int mode = M_AUTO, parts = 8, threads = 256, bpp = 1, pt = 2, epochs = 1000;
    int kpoll = 0, recreate = 0, errors = 0, late = 0, expect_copy = 0, opt, rank, size;
    const char *copy = NULL;
    while ((opt = getopt(argc, argv, "m:p:t:b:v:e:krEc:CLV:")) != -1) {
        switch (opt) {
        case 'm':
            if (0 == strcmp(optarg, "auto")) mode = M_AUTO;
            else if (0 == strcmp(optarg, "thread")) mode = M_THREAD;
            else if (0 == strcmp(optarg, "warp")) mode = M_WARP;
            else if (0 == strcmp(optarg, "block")) mode = M_BLOCK;
            else if (0 == strcmp(optarg, "autoblock")) mode = M_AUTOBLOCK;
            else if (0 == strcmp(optarg, "mixed")) mode = M_MIXED;
            else { fprintf(stderr, "g_device: unknown mode %s\n", optarg); return 2; }
            break;
        case 'p': parts = atoi(optarg); break;
        case 't': threads = atoi(optarg); break;
        case 'b': bpp = atoi(optarg); break;
        case 'v': pt = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        case 'k': kpoll = 1; break;
        case 'r': recreate = 1; break;
        case 'E': errors = 1; break;
        case 'c': copy = optarg; break;
        case 'C': expect_copy = 1; break;
        case 'L': late = 1; break;
        case 'V': t_mca_odd_ranks(optarg); break;
        default: return 2;
        }
    }
    if (parts < 1 || threads < 1 || threads > 1024 || bpp < 1 || pt < 1 || epochs < 1) {
        fprintf(stderr, "g_device: bad arguments\n");
        return 2;
    }
    (void) g_select_gpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;
    long per_part = (long) bpp * threads * pt, n = parts * per_part;
    size_t bytes = n * sizeof(int32_t);

    int32_t *sbuf, *rbuf;
    unsigned long long *dcount; /* [0] mismatches, [1] partitions that never arrived */
    cudaStream_t sstream, pstream;
    CUDA(cudaMalloc(&sbuf, bytes));
    CUDA(cudaMalloc(&rbuf, bytes));
    CUDA(cudaMalloc(&dcount, 2 * sizeof(*dcount)));
    CUDA(cudaMemset(dcount, 0, 2 * sizeof(*dcount)));
    CUDA(cudaStreamCreateWithFlags(&sstream, cudaStreamNonBlocking));
    CUDA(cudaStreamCreateWithFlags(&pstream, cudaStreamNonBlocking));
    std::vector<int32_t> host(n);

    /* Every variant makes bpp * threads MPIX_Pready calls per partition. */
    char thr[32];
    MPI_Info info;
    snprintf(thr, sizeof(thr), "%ld", (long) bpp * threads);
    T_MPI(MPI_Info_create(&info));
    T_MPI(MPI_Info_set(info, "mpix_pready_threads", thr));
    if (copy) T_MPI(MPI_Info_set(info, "mpix_device_copy", copy));
    if (M_AUTOBLOCK == mode) T_MPI(MPI_Info_set(info, "mpix_pready_aggregate", "block"));
    MPI_Request req[2];
    T_MPI(MPI_Psend_init(sbuf, parts, per_part, MPI_INT32_T, dst, 7, MPI_COMM_WORLD, info, &req[0]));
    T_MPI(MPI_Precv_init(rbuf, parts, per_part, MPI_INT32_T, src, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    T_MPI(MPI_Info_free(&info));

    MPIX_Prequest preq[2] = {NULL, NULL};
    if (errors) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* MPI_REQUEST_NULL */
        int cls = err_class(MPIX_Prequest_create(MPI_REQUEST_NULL, &preq[0]));
        T_CHECK(MPI_ERR_REQUEST == cls, "create on MPI_REQUEST_NULL: class %d", cls);
        preq[0] = NULL;
    }

    for (int e = 1; e <= epochs; ++e) {
        CUDA(cudaMemset(rbuf, 0xff, bytes));
        CUDA(cudaDeviceSynchronize());
        /* -L: the sender's kernel runs before this side starts its receive
         * and without MPIX_Pbuf_prepare; nothing may land in the receive
         * buffer until MPI_Start. Epoch 1 sets up the device requests. */
        int late_epoch = late && e > 1;
        T_MPI(MPI_Startall(late_epoch ? 1 : 2, req));
        /* Contract: the peer's buffer is ready before a kernel may Pready. */
        if (!late_epoch) T_MPI(MPIX_Pbuf_prepare(&req[0]));
        if (errors && 1 == e) {
            int cls = err_class(MPIX_Prequest_create(req[0], NULL));
            T_CHECK(MPI_ERR_ARG == cls, "create with NULL output: class %d", cls);
        }
        if (NULL == preq[0]) {
            T_MPI(MPIX_Prequest_create(req[0], &preq[0]));
            T_MPI(MPIX_Prequest_create(req[1], &preq[1]));
            struct mpix_prequest_s d;
            CUDA(cudaMemcpy(&d, mpix_prequest_ptr(preq[0]), sizeof(d), cudaMemcpyDeviceToHost));
            T_CHECK(!expect_copy || MPIX_PREQUEST_KERNEL_COPY == d.mechanism,
                    "send device request uses mechanism %u, not kernel copy", d.mechanism);
            /* kernels branch on the handle's tag bits, not on these fields */
            bool tag_copy = 0 != ((uintptr_t) preq[0] & MPIX_PREQUEST_TAG_KERNEL_COPY);
            bool tag_block = 0 != ((uintptr_t) preq[0] & MPIX_PREQUEST_TAG_BLOCK);
            T_CHECK(tag_copy == (MPIX_PREQUEST_KERNEL_COPY == d.mechanism) &&
                        tag_block == (MPIX_PREQUEST_AGGREGATE_BLOCK == d.aggregate) &&
                        MPIX_PREQUEST_MAGIC == d.magic,
                    "handle %p: tags disagree with the request (mechanism %u, aggregate %u)",
                    (void *) preq[0], d.mechanism, d.aggregate);
            /* kernels complete whole transport groups: the host may not
             * ready a partition of one (MPI_ERR_REQUEST, not a hang) */
            if (errors && d.group_shift > 0) {
                int cls = err_class(MPI_Pready(0, req[0]));
                T_CHECK(MPI_ERR_REQUEST == cls, "host MPI_Pready in a group of %u: class %d",
                        1u << d.group_shift, cls);
            }
        }
        /* Polling from epoch 2: the first transfer between two GPU buffers
         * opens CUDA IPC mappings, which wait for running kernels of this
         * context, a spinning MPIX_Parrived included. */
        if (kpoll && e > 1) {
            poll_kernel<<<(parts + 127) / 128, 128, 0, pstream>>>(
                rbuf, preq[1], parts, per_part, src, e, &dcount[0], &dcount[1]);
            CUDA(cudaGetLastError());
        }
        send_kernel<<<parts * bpp, threads, 0, sstream>>>(sbuf, preq[0], mode, bpp, pt, rank, e);
        CUDA(cudaGetLastError());
        if (late_epoch) {
            usleep(20000);
            CUDA(cudaMemcpy(host.data(), rbuf, bytes, cudaMemcpyDeviceToHost));
            long early = 0;
            for (long j = 0; j < n; ++j) early += (-1 != host[j]);
            T_CHECK(0 == early, "epoch %d: %ld values written before MPI_Start", e, early);
            T_MPI(MPI_Start(&req[1]));
        }
        T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        CUDA(cudaStreamSynchronize(sstream));
        CUDA(cudaStreamSynchronize(pstream));

        for (int p = 0; p < parts; ++p) {
            int flag = 0;
            T_MPI(MPI_Parrived(req[1], p, &flag));
            T_CHECK(flag, "epoch %d: MPI_Parrived(%d) false after MPI_Waitall", e, p);
        }
        if (kpoll) {
            unsigned long long c[2];
            CUDA(cudaMemcpy(c, dcount, sizeof(c), cudaMemcpyDeviceToHost));
            T_CHECK(0 == c[0] && 0 == c[1], "epoch %d: kernel saw %llu bad values, "
                    "%llu partitions never arrived", e, c[0], c[1]);
            if (c[0] || c[1]) CUDA(cudaMemset(dcount, 0, sizeof(c)));
        } else {
            CUDA(cudaMemcpy(host.data(), rbuf, bytes, cudaMemcpyDeviceToHost));
            for (long j = 0; j < n; ++j) {
                int32_t want = g_value(src, e, j / per_part, j);
                if (host[j] != want) {
                    T_CHECK(0, "epoch %d elem %ld (partition %ld): %d != %d", e, j,
                            j / per_part, host[j], want);
                    break;
                }
            }
        }
        if (recreate && 0 == e % 100 && e < epochs) {
            /* Inactive between epochs: a fresh device request is made after
             * the next MPI_Startall. */
            T_MPI(MPIX_Prequest_free(&preq[0]));
            T_MPI(MPIX_Prequest_free(&preq[1]));
            T_CHECK(NULL == preq[0] && NULL == preq[1], "MPIX_Prequest_free left a pointer");
            preq[0] = preq[1] = NULL;
        }
    }
    for (int i = 0; i < 2; ++i) {
        if (preq[i]) T_MPI(MPIX_Prequest_free(&preq[i]));
        MPI_Request_free(&req[i]);
    }
    CUDA(cudaStreamDestroy(sstream));
    CUDA(cudaStreamDestroy(pstream));
    CUDA(cudaFree(sbuf));
    CUDA(cudaFree(rbuf));
    CUDA(cudaFree(dcount));
    return t_finish("g_device");
}
