/* Partitioned collectives on GPU buffers (cudaMalloc), checked against the
 * ordinary MPI collective on host copies of the same data, every epoch.
 * Values depend on rank, epoch, partition and element; the result buffer
 * is reset every epoch.
 *   -c allreduce|reduce|bcast|allgather|alltoall  -p PARTS  -n COUNT  -e EPOCHS
 *   -t int|double  -o sum|max|min|prod|band  -r ROOT  -i (MPI_IN_PLACE)
 *   -k  a kernel writes each partition and calls device MPIX_Pready
 *       (MPIX_Pready_block; -A warp|block: automatic MPIX_Pready with the
 *       info key "mpix_pready_aggregate" set to that)
 *       (MPIX_Prequest_create on the collective request); else host MPI_Pready
 *   -a  a kernel polls device MPIX_Parrived and snapshots each partition at
 *       arrival; the snapshot must already be the final result
 *   -w  host MPI_Parrived on every partition before MPI_Wait
 *   -L  host MPI_Pready: MPI_Parrived (which must say not arrived) and a
 *       pause before the epoch's first MPI_Pready, so that the GPU engine's
 *       kernel (launched at that first progress) already waits when the
 *       host makes the request's first partition ready
 *   -E  GPU error cases (MPI_MAXLOC, non-contiguous type) first
 *   -O  both buffers one element past cudaMalloc's alignment (an int: not
 *       8-byte aligned, which a push allreduce needs)
 *   -S  stream-ordered epochs (with -k, not -L): the collective on a
 *       communicator of the test's stream (MPIX_Stream_comm_create), each
 *       epoch MPIX_Start_enqueue, the fill kernel on the stream, with -a
 *       the polling kernel after it (a later kernel that waits for
 *       MPIX_Parrived before the wait), MPIX_Wait_enqueue, then one
 *       synchronization of the stream and the checks; MPI_Test must find
 *       the request complete after the last epoch
 *   -K  (with -S) the info key "mpix_stream_kernels": after the epochs,
 *       MPI_Start must fail with MPI_ERR_REQUEST
 *   -M E  (with -K) in epoch E, the last (-e E), rank 0's fill kernel
 *       writes partition 0 but makes no MPIX_Pready for it: the epoch's
 *       data is still checked, and MPI_Test must then fail with
 *       MPI_ERR_ARG on rank 0 only (a partition nobody made ready, where
 *       the kernels only mark: part_ucx_coll_gpu_after_bytes; not tried
 *       where the ranks span GPUs, where every partition is counted)
 *   -s  (with -k) each epoch, block b of the fill kernel takes partition
 *       (a b + c) mod parts, a coprime to parts and a, c drawn anew each
 *       epoch and rank, and first sleeps up to 4 us by a hash of epoch and
 *       partition: the kernels make partitions ready in an order that
 *       changes every epoch, not in the blocks' launch order
 *   -B E  (with -K) in epoch E, the last (-e E), rank 0's block 0 also
 *       calls MPIX_Pready (or MPIX_Pready_block) for partition -p N, out
 *       of range: the epoch's data is still checked, and MPI_Test must then
 *       fail with MPI_ERR_ARG on rank 0 only
 *   -V NAME=VALUE  MCA variable NAME set to VALUE in the odd ranks only
 *   -G 1|0  the collective ran (1) or did not run (0) on the GPU engine
 *       (MPI_T counter part_ucx_coll_gpu_epochs: at least one epoch a rank,
 *       or none); -G 2: on the GPU engine, two-shot (every epoch counted in
 *       part_ucx_coll_gpu_twoshot_epochs too); -G 3: on the GPU engine, not
 *       two-shot (none counted there); -G 4: on the GPU engine, pushed
 *       (every epoch counted in part_ucx_coll_gpu_push_epochs); -G 5: on
 *       the GPU engine, one-shot pulled (neither two-shot nor pushed);
 *       -G 6: on the GPU engine, bulk pushed (every epoch counted in
 *       part_ucx_coll_gpu_bulk_epochs); -G 7: bulk pushed where the ranks
 *       are on more than one GPU, else (every rank on one GPU) as -G 5;
 *       -G 8: bulk pushed, in 128-byte lines (part_ucx_coll_gpu_ll128_epochs)
 *       where the ranks are on more than one GPU (which NVLink must link),
 *       and not where they share one; -G 9: bulk pushed, never in lines;
 *       -G 10: two-shot, in 128-byte lines where the ranks are on more than
 *       one GPU (linked by NVLink), not where they share one; -G 11:
 *       two-shot, never in lines; -G 12: two-shot with its slices pushed
 *       (every epoch counted in the two-shot and the bulk counters); -G 13:
 *       two-shot, its slices pushed where the ranks are on more than one
 *       GPU, pulled where they share one (part_ucx_coll_gpu_twoshot_push
 *       1, or two ranks from part_ucx_coll_gpu_span_twoshot_push_bytes);
 *       -G 14: two-shot, its slices pulled (none bulk pushed); -G 15:
 *       two-shot where the ranks are on more than one GPU, not two-shot
 *       where they share one (part_ucx_coll_gpu_span_twoshot_bytes); -G 16:
 *       on the GPU engine, every epoch after the producers on the ranks
 *       that make partitions ready (part_ucx_coll_gpu_after_epochs) where
 *       every rank shares one GPU, none where they span GPUs */
#include <cuda_runtime.h>
#include <mpi.h>
#include <mpix_part.h>
#include <mpix_part_device.h>
#include <unistd.h>
#include <vector>
#include "tutil.h"
#include "gutil.h"


enum { C_ALLREDUCE, C_REDUCE, C_BCAST, C_ALLGATHER, C_ALLTOALL };

/* Small integers: every reduction order gives the same double, products
 * stay exact. */
__host__ __device__ static inline int val(int rank, int epoch, long part, long idx, int prod)
{
    uint32_t v = (uint32_t) rank * 2654435761u ^ (uint32_t) epoch * 40503u ^
                 (uint32_t) part * 977u ^ (uint32_t) idx * 13u;
    v = (v ^ (v >> 15)) & 0xff;
    return prod ? 1 + (int) (v & 1) : (int) v - 100;
}

/* Block b writes partition p = (pa b + pc) mod parts (-s; else p = b) of
 * every block of the contribution (one block for all but alltoall), then
 * marks it ready from the device. */
template <typename T>
__global__ void fill_kernel(T *mine, long n, int count, int blocks, int rank, int epoch, int prod,
                            int automatic, MPIX_Prequest preq, int skip = -1, int bad = -1,
                            int pa = 1, int pc = 0)
{
    int p = (int) (((long) pa * blockIdx.x + pc) % gridDim.x);
    if (1 != pa || 0 != pc) {
        if (0 == threadIdx.x) {
            __nanosleep((val(rank, epoch, p, 0, 0) + 100) * 13u); /* up to ~4 us */
        }
        __syncthreads();
    }
    for (int b = 0; b < blocks; ++b) {
        for (int k = threadIdx.x; k < count; k += blockDim.x) {
            long j = (long) b * n + (long) p * count + k;
            mine[j] = (T) val(rank, epoch, p, j, prod);
        }
    }
    auto pready = [&](int q) {
        return automatic ? MPIX_Pready(q, preq) : MPIX_Pready_block(q, preq);
    };
    if (p == skip) {
        return; /* -M: misuse */
    }
    pready(p);
    if (0 == p && bad >= 0) {
        pready(bad); /* -B: misuse, after the partition's own */
    }
}

/* Block p waits for partition p and copies it (every block of the result)
 * at once: it must be final when MPIX_Parrived says so. */
template <typename T>
__global__ void poll_kernel(const T *rbuf, T *snap, long n, int count, int blocks,
                            MPIX_Prequest preq)
{
    __shared__ int flag;
    int p = blockIdx.x;
    if (0 == threadIdx.x) {
        flag = 0;
        while (!flag) {
            MPIX_Parrived(preq, p, &flag);
        }
    }
    __syncthreads();
    for (int b = 0; b < blocks; ++b) {
        for (int k = threadIdx.x; k < count; k += blockDim.x) {
            long j = (long) b * n + (long) p * count + k;
            snap[j] = ((const volatile T *) rbuf)[j];
        }
    }
}

struct opts {
    int coll, parts, count, epochs, root, inplace, kernel, kpoll, hpoll, errors, offset, late;
    const char *aggregate;          /* -A: automatic MPIX_Pready, this aggregation */
    MPI_Op op;
    int stream;                     /* -S */
    int kernels_only, miss, bad;    /* -K, -M, -B */
    int scramble;                   /* -s */
};

static int gcd(int a, int b)
{
    while (0 != b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

template <typename T> static void run(const opts &o, MPI_Datatype type)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int coll = o.coll, parts = o.parts, count = o.count, root = o.root % size;
    int blocks = (C_ALLGATHER == coll || C_ALLTOALL == coll) ? size : 1;
    long n = (long) parts * count, sn = (C_ALLTOALL == coll) ? n * size : n, rn = n * blocks;
    int prod = (MPI_PROD == o.op);
    bool inplace = o.inplace && (C_REDUCE != coll || rank == root);
    bool contributes = (C_BCAST != coll) || rank == root;
    bool check = (C_REDUCE != coll) || rank == root;
    std::vector<T> mine_h(rn + 1), ref(rn + 1), got(rn + 1);
    T *sbuf, *rbuf, *snap;
    CUDA(cudaMalloc(&sbuf, (sn + 1) * sizeof(T)));
    CUDA(cudaMalloc(&rbuf, (rn + 1) * sizeof(T)));
    CUDA(cudaMalloc(&snap, (rn + 1) * sizeof(T)));
    sbuf += o.offset; /* (one element to spare) */
    rbuf += o.offset;
    cudaStream_t stream;
    CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    std::vector<int> order(parts);
    unsigned seed = 99u + 31u * rank;
    MPI_Request req;
    MPIX_Prequest preq = NULL;
    MPI_Comm comm = MPI_COMM_WORLD;
    if (o.stream) {
        /* the kernels the stream runs loaded before the first enqueued
         * start (MPIX_Start_enqueue(3): CUDA's lazy loading), and the
         * communicator of the stream */
        cudaFuncAttributes fa;
        MPIX_Stream ms = g_mpix_stream(stream);
        CUDA(cudaFuncGetAttributes(&fa, fill_kernel<T>));
        CUDA(cudaFuncGetAttributes(&fa, poll_kernel<T>));
        T_MPI(MPIX_Stream_comm_create(MPI_COMM_WORLD, ms, &comm));
        T_MPI(MPIX_Stream_free(&ms));
    }

    const void *s = inplace ? MPI_IN_PLACE : (const void *) sbuf;
    /* -k: every thread of a fill block calls MPIX_Pready for its partition */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpix_pready_threads", "128");
    if (o.aggregate) MPI_Info_set(info, "mpix_pready_aggregate", o.aggregate);
    if (o.kernels_only) MPI_Info_set(info, "mpix_stream_kernels", "true");
    if (o.miss || o.bad) T_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    if (C_ALLREDUCE == coll) {
        T_MPI(MPIX_Pallreduce_init(s, rbuf, parts, count, type, o.op, comm,
                                   info, &req));
    } else if (C_REDUCE == coll) {
        T_MPI(MPIX_Preduce_init(s, rbuf, parts, count, type, o.op, root, comm,
                                info, &req));
    } else if (C_ALLGATHER == coll) {
        T_MPI(MPIX_Pallgather_init(s, rbuf, parts, count, type, comm, info, &req));
    } else if (C_ALLTOALL == coll) {
        T_MPI(MPIX_Palltoall_init(sbuf, rbuf, parts, count, type, comm, info, &req));
    } else {
        T_MPI(MPIX_Pbcast_init(rbuf, parts, count, type, root, comm, info, &req));
    }
    MPI_Info_free(&info);
    if (o.stream) {
        /* before the first stream-ordered start */
        T_MPI(MPIX_Prequest_create(req, &preq));
    }
    for (int e = 1; e <= o.epochs; ++e) {
        /* where this rank's contribution lives on the GPU */
        T *mine = (inplace || C_BCAST == coll) ? rbuf : sbuf;
        long moff = (C_ALLGATHER == coll && inplace) ? (long) rank * n : 0;
        for (long j = 0; j < rn; ++j) got[j] = (T) -7777;
        CUDA(cudaMemcpy(rbuf, got.data(), rn * sizeof(T), cudaMemcpyHostToDevice));
        CUDA(cudaMemset(snap, 0, rn * sizeof(T)));
        /* a copy from pageable memory may still be in flight when
         * cudaMemcpy returns: the buffer is ours again only after a sync */
        CUDA(cudaDeviceSynchronize());
        for (long j = 0; j < sn; ++j) {
            mine_h[j] = (T) val(rank, e, (j % n) / count, j, prod);
        }
        if (C_ALLREDUCE == coll) {
            T_MPI(MPI_Allreduce(mine_h.data(), ref.data(), (int) n, type, o.op, MPI_COMM_WORLD));
        } else if (C_REDUCE == coll) {
            T_MPI(MPI_Reduce(mine_h.data(), ref.data(), (int) n, type, o.op, root, MPI_COMM_WORLD));
        } else if (C_ALLGATHER == coll) {
            T_MPI(MPI_Allgather(mine_h.data(), (int) n, type, ref.data(), (int) n, type,
                                MPI_COMM_WORLD));
        } else if (C_ALLTOALL == coll) {
            T_MPI(MPI_Alltoall(mine_h.data(), (int) n, type, ref.data(), (int) n, type,
                               MPI_COMM_WORLD));
        } else {
            ref = mine_h;
            T_MPI(MPI_Bcast(ref.data(), (int) n, type, root, MPI_COMM_WORLD));
        }
        if (contributes && !o.kernel) {
            CUDA(cudaMemcpy(mine + moff, mine_h.data(), sn * sizeof(T), cudaMemcpyHostToDevice));
            CUDA(cudaDeviceSynchronize()); /* complete before MPI_Pready reads it */
        }
        /* Polling from epoch 2: the first transfers between GPU buffers open
         * CUDA IPC mappings, which wait for running kernels of the context
         * (a kernel spinning in MPIX_Parrived would never let them). */
        bool kpoll = o.kpoll && check && e > 1;
        int pa = 1, pc = 0; /* -s: this epoch's order of the partitions */
        if (o.scramble && parts > 1) {
            do {
                pa = 1 + rand_r(&seed) % (parts - 1);
            } while (1 != gcd(pa, parts));
            pc = rand_r(&seed) % parts;
        }
        if (o.stream) {
            T_MPI(MPIX_Start_enqueue(&req));
            if (contributes) {
                fill_kernel<T><<<parts, 128, 0, stream>>>(mine + moff, n, count,
                                                          (C_ALLTOALL == coll) ? size : 1, rank,
                                                          e, prod, NULL != o.aggregate, preq,
                                                          (e == o.miss && 0 == rank) ? 0 : -1,
                                                          (e == o.bad && 0 == rank) ? parts : -1,
                                                          pa, pc);
                CUDA(cudaGetLastError());
            }
            if (kpoll) {
                poll_kernel<T><<<parts, 128, 0, stream>>>(rbuf, snap, n, count, blocks, preq);
                CUDA(cudaGetLastError());
            }
            T_MPI(MPIX_Wait_enqueue(&req, MPI_STATUS_IGNORE));
        } else {
            T_MPI(MPI_Start(&req));
            if (NULL == preq && (o.kernel || o.kpoll)) {
                T_MPI(MPIX_Prequest_create(req, &preq));
            }
            if (kpoll) {
                poll_kernel<T><<<parts, 128, 0, stream>>>(rbuf, snap, n, count, blocks, preq);
                CUDA(cudaGetLastError());
            }
            if (contributes && o.kernel) {
                fill_kernel<T><<<parts, 128>>>(mine + moff, n, count,
                                               (C_ALLTOALL == coll) ? size : 1, rank, e, prod,
                                               NULL != o.aggregate, preq, -1, -1, pa, pc);
                CUDA(cudaGetLastError());
            } else if (contributes) {
                for (int p = 0; p < parts; ++p) order[p] = p;
                t_shuffle(order.data(), parts, &seed);
                if (o.late) {
                    int flag = 1;
                    T_MPI(MPI_Parrived(req, order[0], &flag));
                    T_CHECK(!flag, "epoch %d: partition %d arrived before this rank made it ready",
                            e, order[0]);
                    usleep(200);
                }
                for (int p = 0; p < parts; ++p) T_MPI(MPI_Pready(order[p], req));
            }
            if (o.hpoll && check) {
                for (int p = 0; p < parts; ++p) {
                    int flag = 0;
                    while (!flag) T_MPI(MPI_Parrived(req, p, &flag));
                }
            }
            T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        CUDA(cudaStreamSynchronize(stream));
        CUDA(cudaDeviceSynchronize());
        if (check) {
            CUDA(cudaMemcpy(got.data(), rbuf, rn * sizeof(T), cudaMemcpyDeviceToHost));
            for (long j = 0; j < rn; ++j) {
                if (got[j] != ref[j]) {
                    T_CHECK(0, "epoch %d element %ld (partition %ld): %g != %g", e, j,
                            (j % n) / count, (double) got[j], (double) ref[j]);
                    break;
                }
            }
        }
        if (kpoll) {
            CUDA(cudaMemcpy(got.data(), snap, rn * sizeof(T), cudaMemcpyDeviceToHost));
            for (long j = 0; j < rn; ++j) {
                if (got[j] != ref[j]) {
                    T_CHECK(0, "epoch %d element %ld (partition %ld) at MPIX_Parrived: %g != %g",
                            e, j, (j % n) / count, (double) got[j], (double) ref[j]);
                    break;
                }
            }
        }
        if (t_failures > 20) break;
    }
    if (o.stream) {
        /* every enqueued epoch is complete: MPI_Test says so at once */
        int done = 0;
        if (o.miss || o.bad) {
            int c = t_class(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
            T_CHECK((0 == rank) ? MPI_ERR_ARG == c : MPI_SUCCESS == c,
                    "-%c: MPI_Test on rank %d gave class %d", o.miss ? 'M' : 'B', rank, c);
            T_CHECK(done, "MPI_Test after the stream completed: not complete");
            if (MPI_REQUEST_NULL == req) {
                preq = NULL; /* Open MPI freed the failed request, its device request too */
            } else {
                T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            }
        } else {
            T_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
            T_CHECK(done, "MPI_Test after the stream completed: not complete");
            T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
    }
    if (NULL != preq) T_MPI(MPIX_Prequest_free(&preq));
    if (o.kernels_only && MPI_REQUEST_NULL != req) {
        /* a request whose epochs are only enqueued never starts on the host;
         * Open MPI's MPI_Start reports on MPI_COMM_WORLD (no communicator
         * argument), MPI_Wait on the request's */
        T_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
        T_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int c = t_class(MPI_Start(&req));
        T_CHECK(MPI_ERR_REQUEST == c, "-K: MPI_Start gave class %d, not MPI_ERR_REQUEST", c);
        c = t_class(MPI_Wait(&req, MPI_STATUS_IGNORE));
        T_CHECK(MPI_ERR_REQUEST == c, "-K: MPI_Wait after MPI_Start gave class %d", c);
        T_CHECK(MPI_REQUEST_NULL == req, "-K: the failed request is still there");
        T_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    }
    if (MPI_REQUEST_NULL != req) T_MPI(MPI_Request_free(&req));
    if (MPI_COMM_WORLD != comm) T_MPI(MPI_Comm_free(&comm));
    CUDA(cudaFree(sbuf - o.offset));
    CUDA(cudaFree(rbuf - o.offset));
    CUDA(cudaFree(snap));
    CUDA(cudaStreamDestroy(stream));
}

/* GPU buffers refuse what the GPU kernels cannot do, with the error class
 * the standard names, and nothing is left behind. */
static void errors(int parts, int count)
{
    void *buf;
    MPI_Request req;
    MPI_Datatype vec;
    CUDA(cudaMalloc(&buf, (size_t) parts * count * 16 * 2));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int c = t_class(MPIX_Pallreduce_init(MPI_IN_PLACE, buf, parts, count, MPI_2INT, MPI_MAXLOC,
                                     MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    T_CHECK(MPI_ERR_OP == c, "MPI_MAXLOC on GPU buffers gave class %d", c);
    MPI_Type_vector(count, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    c = t_class(MPIX_Pbcast_init(buf, parts, 1, vec, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    T_CHECK(MPI_ERR_TYPE == c, "non-contiguous type on GPU buffers gave class %d", c);
    MPI_Type_free(&vec);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CUDA(cudaFree(buf));
}

/* The GPU engine's epoch counters (all, two-shot, push, bulk push, bulk
 * push in lines, after the producers), from now on. */
enum { GPU_COUNTERS = 6 };
static void gpu_epochs_begin(MPI_T_pvar_session *session, MPI_T_pvar_handle *handle)
{
    static const char *const names[GPU_COUNTERS] = {"part_ucx_coll_gpu_epochs",
                                                    "part_ucx_coll_gpu_twoshot_epochs",
                                                    "part_ucx_coll_gpu_push_epochs",
                                                    "part_ucx_coll_gpu_bulk_epochs",
                                                    "part_ucx_coll_gpu_ll128_epochs",
                                                    "part_ucx_coll_gpu_after_epochs"};
    int provided, index, n = 0;

    T_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    T_MPI(MPI_T_pvar_session_create(session));
    for (int i = 0; i < GPU_COUNTERS; ++i) {
        T_MPI(MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &index));
        T_MPI(MPI_T_pvar_handle_alloc(*session, index, NULL, &handle[i], &n));
        T_MPI(MPI_T_pvar_start(*session, handle[i]));
    }
}

int main(int argc, char **argv)
{
    opts o = {C_ALLREDUCE, 8, 64, 100, 0, 0, 0, 0, 0, 0, 0, 0, NULL, MPI_SUM};
    int dbl = 0, opt, engine = -1;
    while ((opt = getopt(argc, argv, "c:p:n:e:t:o:r:ikawLEOSKsM:B:A:G:V:")) != -1) {
        switch (opt) {
        case 'c':
            o.coll = !strcmp(optarg, "reduce") ? C_REDUCE : !strcmp(optarg, "bcast") ? C_BCAST
                     : !strcmp(optarg, "allgather") ? C_ALLGATHER
                     : !strcmp(optarg, "alltoall") ? C_ALLTOALL : C_ALLREDUCE;
            break;
        case 'p': o.parts = atoi(optarg); break;
        case 'n': o.count = atoi(optarg); break;
        case 'e': o.epochs = atoi(optarg); break;
        case 't': dbl = !strcmp(optarg, "double"); break;
        case 'o':
            o.op = !strcmp(optarg, "max") ? MPI_MAX : !strcmp(optarg, "min") ? MPI_MIN
                   : !strcmp(optarg, "prod") ? MPI_PROD : !strcmp(optarg, "band") ? MPI_BAND
                   : MPI_SUM;
            break;
        case 'r': o.root = atoi(optarg); break;
        case 'i': o.inplace = 1; break;
        case 'k': o.kernel = 1; break;
        case 'A': o.aggregate = optarg; break;
        case 'a': o.kpoll = 1; break;
        case 'w': o.hpoll = 1; break;
        case 'L': o.late = 1; break;
        case 'E': o.errors = 1; break;
        case 'O': o.offset = 1; break;
        case 'G': engine = atoi(optarg); break;
        case 'V': t_mca_odd_ranks(optarg); break;
        case 'S': o.stream = 1; break;
        case 'K': o.kernels_only = 1; break;
        case 'M': o.miss = atoi(optarg); break;
        case 'B': o.bad = atoi(optarg); break;
        case 's': o.scramble = 1; break;
        default: return 2;
        }
    }

    if ((o.kernels_only && !o.stream) || (o.miss && (!o.kernels_only || o.miss != o.epochs)) ||
        (o.bad && (!o.kernels_only || o.bad != o.epochs || o.miss)) || (o.scramble && !o.kernel)) {
        fprintf(stderr, "g_coll: -K needs -S, -M E and -B E need -K and -e E, not both; -s "
                        "needs -k\n");
        return 2;
    }
    if (o.stream && (!o.kernel || o.late)) {
        fprintf(stderr, "g_coll: -S needs -k, and not -L (kernels make stream-ordered "
                        "epochs' partitions ready)\n");
        return 2;
    }
    (void) g_select_gpu();
    if (o.stream) {
        /* a collective off the GPU engine runs its stream-ordered epochs
         * on part/ucx's progress thread */
        int provided;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        T_CHECK(MPI_THREAD_MULTIPLE == provided, "MPI_THREAD_MULTIPLE not provided");
    } else {
        MPI_Init(&argc, &argv);
    }
    bool spans = g_spans_gpus();
    if (o.miss && spans) {
        /* the marks are for ranks that share one GPU: across GPUs every
         * partition is counted, and one never made ready would stop the
         * epoch, as MPI allows */
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (0 == rank) printf("g_coll: -M not tried: the ranks span GPUs\n");
        o.miss = 0;
    }
    if (o.errors) errors(o.parts, o.count);
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle[GPU_COUNTERS];
    if (engine >= 0) gpu_epochs_begin(&session, handle);
    if (dbl) run<double>(o, MPI_DOUBLE);
    else run<int>(o, MPI_INT);
    if (engine >= 0) {
        unsigned long long n = 0, two = 0, push = 0, bulk = 0, lines = 0, after = 0;
        T_MPI(MPI_T_pvar_read(session, handle[0], &n));
        T_MPI(MPI_T_pvar_read(session, handle[1], &two));
        T_MPI(MPI_T_pvar_read(session, handle[2], &push));
        T_MPI(MPI_T_pvar_read(session, handle[3], &bulk));
        T_MPI(MPI_T_pvar_read(session, handle[4], &lines));
        T_MPI(MPI_T_pvar_read(session, handle[5], &after));
        if (16 == engine) {
            int rank, size;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            MPI_Comm_size(MPI_COMM_WORLD, &size);
            bool all = !spans && (C_BCAST != o.coll || rank == o.root % size);
            T_CHECK(all ? after == n : (spans ? 0 == after : true),
                    "%llu of %llu GPU-engine epochs after the producers, expected %s", after, n,
                    all ? "all" : "none");
            engine = 1;
        }
        if (engine >= 12 && engine <= 14) {
            bool want = 12 == engine || (13 == engine && spans);
            T_CHECK(two == n && (want ? bulk == n : 0 == bulk),
                    "%llu two-shot and %llu bulk pushed of %llu GPU-engine epochs, expected "
                    "all two-shot and %s bulk pushed", two, bulk, n, want ? "all" : "none");
            engine = 2;
        }
        if (engine >= 8 && engine <= 11) {
            bool want = (8 == engine || 10 == engine) && spans;
            T_CHECK(want ? lines == n : 0 == lines,
                    "%llu of %llu GPU-engine epochs in 128-byte lines, expected %s", lines, n,
                    want ? "all" : "none");
            engine = (engine <= 9) ? 6 : 2;
        }
        T_CHECK(engine ? n > 0 : 0 == n, "%llu epochs on the GPU engine, expected %s", n,
                engine ? "some" : "none");
        T_CHECK(2 != engine || two == n, "%llu of %llu GPU-engine epochs two-shot, expected all",
                two, n);
        T_CHECK(3 != engine || 0 == two, "%llu of %llu GPU-engine epochs two-shot, expected none",
                two, n);
        T_CHECK(4 != engine || push == n, "%llu of %llu GPU-engine epochs pushed, expected all",
                push, n);
        if (7 == engine) {
            engine = spans ? 6 : 5;
        }
        if (15 == engine) {
            engine = spans ? 2 : 3;
        }
        T_CHECK(5 != engine || (0 == push && 0 == two && 0 == bulk),
                "%llu pushed, %llu bulk pushed and %llu two-shot of %llu GPU-engine epochs, "
                "expected none", push, bulk, two, n);
        T_CHECK(6 != engine || bulk == n,
                "%llu of %llu GPU-engine epochs bulk pushed, expected all", bulk, n);
        for (int i = 0; i < GPU_COUNTERS; ++i) T_MPI(MPI_T_pvar_handle_free(session, &handle[i]));
        T_MPI(MPI_T_pvar_session_free(&session));
        T_MPI(MPI_T_finalize());
    }
    return t_finish("g_coll");
}
