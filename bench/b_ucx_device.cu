/* UCX's device API (ucp_device_put, ucp_device_counter_inc on device
 * memory lists) against part/ucx's own kernel copy loop and the copy
 * engine (issue 21, section 2), two ranks on one node, rank 0 sends to
 * rank 1. Plain UCP: each rank makes its own context, worker and endpoint;
 * MPI only swaps worker addresses, rkeys and buffer addresses, and holds
 * barriers. One variant per run (bench/run-ucx-device.sh runs them all):
 *   b_ucx_device goodput VARIANT GRIDS
 *       vector add c = a + b + epoch over doubles, 1024 threads per block
 *       (8 KiB per block), then each block moves its 8 KiB of c into
 *       rank 1's buffer (cudaMalloc, registered with ucp_mem_map, its rkey
 *       unpacked by rank 0) and signals its arrival; goodput = bytes of c /
 *       time per epoch (warm-up epochs excluded), timed on rank 1 from a
 *       barrier until the last epoch has arrived. No host per epoch:
 *         rank 1's stream: cuStreamWriteValue64 of epoch e into rank 0's
 *                          ready-to-receive word (mapped by ucp_rkey_ptr),
 *                          cuStreamWaitValue64 until its own done word >= e
 *         rank 0's stream: the kernel of epoch e; each block waits, after
 *                          its vector add, for the ready-to-receive word
 *                          to show e (a GPU memory read), moves its bytes,
 *                          signals; the block that completes the epoch
 *                          (a GPU atomic) signals the done word.
 *       VARIANT (how a block moves and signals):
 *     ucx_put_thread   each thread ucp_device_put<THREAD> of its 8 bytes,
 *                      a block barrier, then ucp_device_counter_inc<BLOCK>
 *                      of the block's arrival counter
 *     ucx_put_warp     each warp ucp_device_put<WARP> of its 256 bytes,
 *                      then the same counter_inc
 *     ucx_put_block    the block ucp_device_put<BLOCK> of its 8 KiB, then
 *                      the same counter_inc
 *                      (UCX variants: the done word is a counter too,
 *                      ucp_device_counter_inc<THREAD> by the last block;
 *                      each call that returns UCS_INPROGRESS is progressed
 *                      with ucp_device_progress_req to completion, as the
 *                      API requires before the block counts as done;
 *                      channel = block index)
 *     kernel_copy_get_ptr  part/ucx's loop (below) into the pointer
 *                      ucp_device_get_ptr gives for the remote list's
 *                      element: the device API's mapping with our stores
 *     kernel_copy      part/ucx's loop (mpix_part_store_bytes): 16-byte stores
 *                      into the pointer ucp_rkey_ptr gave for the same
 *                      rkey, a block barrier, a system-scope release fence
 *                      and a store of e into the block's arrival word; the
 *                      done word a fence and store (mpix_part_epoch_count)
 *     kernel_copy_hostwords  kernel_copy plus the host-memory traffic that
 *                      part/ucx's stream-ordered kernel copy adds to an epoch
 *                      (mpix_part_device.h, part_ucx_stream.c), each piece
 *                      switched on by BENCH_HOSTWORDS (a comma list):
 *                        arrival  each block also writes its arrival into
 *                                 host memory, before the done word's fence
 *                        done     the last block writes three host words
 *                                 after the done word (both sides' done
 *                                 words, the sender's mark)
 *                        rtrread  one read of a host word before a block
 *                                 waits for the ready-to-receive
 *                        rxwrite  rank 1's start writes two host words
 *                                 before the ready-to-receive
 *                        events   rank 1 records an event after its start
 *                                 and after its wait
 *                      so that one run shows what each costs
 *     memcpy_limit     the node's limit: the vector add alone, then on the
 *                      same stream a wait for the ready-to-receive word,
 *                      cudaMemcpyAsync of c into the rkey_ptr-mapped
 *                      buffer, cuStreamWriteValue64 of e into the done
 *                      word (as ipc_limit of bench/b_stream.cu)
 * Rank 1 checks the last epoch's data (values depend on the epoch, the
 * block and the element) and every block's arrival word (= epochs since
 * the grid began) after each grid; a variant whose data is wrong prints
 * no row and exits with 1. Before its first grid, rank 0 prints the
 * registers a thread (and local memory bytes: spills) of the variant's
 * kernel, from cudaFuncGetAttributes.
 * Environment: BENCH_LABEL (nvlink) names the path in the component
 * column; BENCH_ITERS_MAX (2000) caps the epochs of a grid.
 * Output: CSV rows bench,component,param1,param2,value,unit on rank 0:
 *   ucxdev_goodput,VARIANT-LABEL,GRID,BYTES,GB/s,GB/s
 *   ucxdev_regs,VARIANT,KERNEL,LOCAL_BYTES,REGISTERS,registers */
#include <cuda_runtime.h>
#include <mpi.h>
#include <mpix_part_device.h> /* mpix_part_store_bytes: kernel copy's store loop */
#include <ucp/api/ucp.h>
#include <ucp/api/device/ucp_host.h>
#include <ucp/api/device/ucp_device_impl.h>
#include "../examples/common.h" /* CUDA() checks, one GPU per local rank */
#include "stream_ops.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

static int rank, failed;
static const char *label = "nvlink";

enum {
    V_UCX_THREAD,
    V_UCX_WARP,
    V_UCX_BLOCK,
    V_KCOPY_GET_PTR,
    V_KCOPY,
    V_KCOPY_HOST,
    V_LIMIT,
    V_COUNT
};
static const char *names[V_COUNT] = {"ucx_put_thread",        "ucx_put_warp", "ucx_put_block",
                                     "kernel_copy_get_ptr",   "kernel_copy",
                                     "kernel_copy_hostwords", "memcpy_limit"};
static const char *kernel_names[V_COUNT] = {
    "ucxdev_put_thread",  "ucxdev_put_warp",           "ucxdev_put_block",
    "ucxdev_kernel_copy_get_ptr", "ucxdev_kernel_copy", "ucxdev_kernel_copy_hostwords",
    "ucxdev_vadd"};

/* BENCH_HOSTWORDS of kernel_copy_hostwords */
enum { HW_ARRIVAL = 1, HW_DONE = 2, HW_RTRREAD = 4, HW_RXWRITE = 8, HW_EVENTS = 16 };
static const char *hw_names[] = {"arrival", "done", "rtrread", "rxwrite", "events"};
#define UCX_VARIANT(v) ((v) <= V_KCOPY_GET_PTR) /* device memory lists */

enum { BLOCK_THREADS = 1024, BLOCK_BYTES = BLOCK_THREADS * sizeof(double) };

#define CHECK_MPI(call)                                                                  \
    do {                                                                                 \
        int rc_ = (call);                                                                \
        if (MPI_SUCCESS != rc_) {                                                        \
            fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #call, rc_);  \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                \
        }                                                                                \
    } while (0)

#define UCS(call)                                                                        \
    do {                                                                                 \
        ucs_status_t s_ = (call);                                                        \
        if (UCS_OK != s_) {                                                              \
            fprintf(stderr, "b_ucx_device: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,  \
                    ucs_status_string(s_));                                              \
            MPI_Abort(MPI_COMM_WORLD, 4);                                                \
        }                                                                                \
    } while (0)

__host__ __device__ static inline double expected(long i, uint64_t epoch)
{
    return (double) (i & 1023) + (double) (i >> 10) + (double) epoch;
}

/* What the kernels of an epoch need; passed by value (constant bank). */
struct epoch_args {
    const double *a, *b;
    double *c;                /* rank 0's vector add result, the source */
    const uint64_t *rtr;      /* rank 0's ready-to-receive word */
    unsigned *blocks_done;    /* blocks of this epoch that moved and signalled */
    unsigned *error;          /* a UCX device call failed */
    uint64_t epoch;
    /* rank 1's buffer mapped by ucp_rkey_ptr (kernel_copy, memcpy_limit) */
    char *mapped;
    /* UCX: one element, rank 0's c to rank 1's buffer (whose rkey also
     * covers the arrival counters and the done counter) */
    ucp_device_local_mem_list_h local;
    ucp_device_remote_mem_list_h remote;
    size_t arrived_off, done_off; /* in rank 1's buffer */
    /* kernel_copy_hostwords: HW_* bits, and rank 0's words in host memory
     * mapped for the GPU: [0..2] done words and mark, [3] read before the
     * ready-to-receive, [8 + block] arrivals */
    unsigned host_bits;
    volatile uint64_t *host;
};

__device__ static inline void vadd(const struct epoch_args &x)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    x.c[i] = x.a[i] + x.b[i] + (double) x.epoch;
}

/* After the block's vector add: until rank 1's buffer is free for this
 * epoch (rank 1's stream wrote the word into our GPU memory). */
__device__ static inline void wait_rtr(const struct epoch_args &x)
{
    if (0 == threadIdx.x) {
        while (ucs_device_atomic64_read(x.rtr) < x.epoch) {
            __nanosleep(64);
        }
    }
    __syncthreads();
}

__device__ static inline void fence_sys(void)
{
    asm volatile("fence.acq_rel.sys;" ::: "memory");
}

/* A UCX device call's completion: UCS_INPROGRESS is progressed until done
 * (rc_gda); cuda_ipc completes before it returns. */
template <ucs_device_level_t L>
__device__ static inline void ucx_complete(ucs_status_t status, ucp_device_request_t *req,
                                           unsigned *error)
{
    while (UCS_INPROGRESS == status) {
        status = ucp_device_progress_req<L>(req);
    }
    if (UCS_OK != status) {
        atomicOr(error, 1u);
    }
}

/* The block that completes the epoch: acquires the others' signals (each
 * released its data before counting) and releases them all at system scope
 * before the done word. */
template <int V>
__device__ static inline void epoch_done(const struct epoch_args &x, char *base)
{
    if (0 != threadIdx.x || atomicAdd(x.blocks_done, 1u) != gridDim.x - 1) {
        return;
    }
    *x.blocks_done = 0; /* the next epoch's kernel starts after this one ends */
    fence_sys();
    if (V_KCOPY == V || V_KCOPY_GET_PTR == V || V_KCOPY_HOST == V) {
        *(volatile uint64_t *) (base + x.done_off) = x.epoch;
        if (V_KCOPY_HOST == V && (x.host_bits & HW_DONE)) {
            x.host[0] = x.epoch;
            x.host[1] = x.epoch;
            x.host[2] = x.epoch;
        }
    } else {
        ucp_device_request_t req;
        ucs_status_t status = ucp_device_counter_inc<UCS_DEVICE_LEVEL_THREAD>(
            1, x.remote, 0, x.done_off, blockIdx.x, UCP_DEVICE_FLAG_NODELAY, &req);
        ucx_complete<UCS_DEVICE_LEVEL_THREAD>(status, &req, x.error);
    }
}

/* One epoch of a UCX variant: put at level L (each thread, warp or the
 * block its share of the block's bytes), then the block's arrival counter. */
template <int V, ucs_device_level_t L>
__device__ static inline void ucx_epoch(const struct epoch_args &x)
{
    size_t off = (size_t) blockIdx.x * BLOCK_BYTES, len = BLOCK_BYTES;
    ucp_device_request_t req;
    ucs_status_t status;

    vadd(x);
    wait_rtr(x);
    if (UCS_DEVICE_LEVEL_THREAD == L) {
        off += threadIdx.x * sizeof(double);
        len = sizeof(double);
    } else if (UCS_DEVICE_LEVEL_WARP == L) {
        off += (threadIdx.x / 32) * 32 * sizeof(double);
        len = 32 * sizeof(double);
    }
    status = ucp_device_put<L>(x.local, 0, off, x.remote, 0, off, len, blockIdx.x,
                               UCP_DEVICE_FLAG_NODELAY, &req);
    ucx_complete<L>(status, &req, x.error);
    if (UCS_DEVICE_LEVEL_BLOCK != L) {
        __syncthreads(); /* the block's puts before its arrival */
    }
    status = ucp_device_counter_inc<UCS_DEVICE_LEVEL_BLOCK>(
        1, x.remote, 0, x.arrived_off + blockIdx.x * sizeof(uint64_t), blockIdx.x,
        UCP_DEVICE_FLAG_NODELAY, &req);
    ucx_complete<UCS_DEVICE_LEVEL_BLOCK>(status, &req, x.error);
    epoch_done<V>(x, NULL);
}

/* One epoch of part/ucx's kernel copy into rank 1's buffer at `base`. */
template <int V>
__device__ static inline void kcopy_epoch(const struct epoch_args &x, char *base)
{
    size_t off = (size_t) blockIdx.x * BLOCK_BYTES;

    vadd(x);
    if (V_KCOPY_HOST == V && 0 == threadIdx.x && (x.host_bits & HW_RTRREAD)) {
        (void) x.host[3];
    }
    wait_rtr(x);
    mpix_part_store_bytes((const char *) x.c + off, base + off, BLOCK_BYTES, threadIdx.x,
                          blockDim.x);
    __syncthreads();
    if (0 == threadIdx.x) {
        fence_sys();
        *(volatile uint64_t *) (base + x.arrived_off + blockIdx.x * sizeof(uint64_t)) = x.epoch;
        if (V_KCOPY_HOST == V && (x.host_bits & HW_ARRIVAL)) {
            x.host[8 + blockIdx.x] = x.epoch;
        }
    }
    epoch_done<V>(x, base);
}

/* One kernel per variant, with C names so that ptxas -v names them. */
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ucxdev_put_thread(epoch_args x)
{
    ucx_epoch<V_UCX_THREAD, UCS_DEVICE_LEVEL_THREAD>(x);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ucxdev_put_warp(epoch_args x)
{
    ucx_epoch<V_UCX_WARP, UCS_DEVICE_LEVEL_WARP>(x);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ucxdev_put_block(epoch_args x)
{
    ucx_epoch<V_UCX_BLOCK, UCS_DEVICE_LEVEL_BLOCK>(x);
}

/* The same loop into the pointer the device API gives for the remote
 * list's element (the host checked that it has one: cuda_ipc). */
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
    ucxdev_kernel_copy_get_ptr(epoch_args x)
{
    void *base;

    if (UCS_OK != ucp_device_get_ptr(x.remote, 0, &base)) {
        atomicOr(x.error, 1u);
        return;
    }
    kcopy_epoch<V_KCOPY_GET_PTR>(x, (char *) base);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ucxdev_kernel_copy(epoch_args x)
{
    kcopy_epoch<V_KCOPY>(x, x.mapped);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS)
    ucxdev_kernel_copy_hostwords(epoch_args x)
{
    kcopy_epoch<V_KCOPY_HOST>(x, x.mapped);
}

extern "C" __global__ void __launch_bounds__(BLOCK_THREADS) ucxdev_vadd(epoch_args x)
{
    vadd(x);
}

typedef void (*kernel_fn)(epoch_args);
static const kernel_fn kernels[V_COUNT] = {ucxdev_put_thread, ucxdev_put_warp,
                                           ucxdev_put_block, ucxdev_kernel_copy_get_ptr,
                                           ucxdev_kernel_copy, ucxdev_kernel_copy_hostwords,
                                           ucxdev_vadd};

__global__ void init_ab(double *a, double *b)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    a[i] = (double) (i & 1023);
    b[i] = (double) (i >> 10);
}

/* Rank 1: values of c that are not epoch `epoch`'s, and arrival words
 * that do not show it (arrived == NULL: none to check). */
__global__ void count_wrong(const double *c, const uint64_t *arrived, uint64_t epoch,
                            unsigned long long *wrong)
{
    long i = blockIdx.x * (long) blockDim.x + threadIdx.x;
    unsigned bad = c[i] != expected(i, epoch);
    if (NULL != arrived && 0 == threadIdx.x) bad += arrived[blockIdx.x] != epoch;
    if (bad) atomicAdd(wrong, (unsigned long long) bad);
}

/* ucp_device_get_ptr's view of element 0 of the remote list. */
__global__ void get_ptr(ucp_device_remote_mem_list_h remote, void **ptr, ucs_status_t *status)
{
    *status = ucp_device_get_ptr(remote, 0, ptr);
}

/* Swap a byte string with the peer. */
static std::vector<char> swap_blob(const void *buf, size_t len, int peer)
{
    uint64_t mine = len, theirs = 0;
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_UINT64_T, peer, 1, &theirs, 1, MPI_UINT64_T, peer, 1,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    std::vector<char> out(theirs);
    CHECK_MPI(MPI_Sendrecv(buf, (int) len, MPI_BYTE, peer, 2, out.data(), (int) theirs,
                           MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    return out;
}

/* A barrier during which this rank's worker keeps progressing, so that the
 * peer's wireup completes. */
static void barrier_progress(ucp_worker_h worker)
{
    MPI_Request req;
    int done = 0;
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    while (!done) {
        ucp_worker_progress(worker);
        CHECK_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    }
}

static void wait_req(ucp_worker_h worker, ucs_status_ptr_t req)
{
    if (!UCS_PTR_IS_PTR(req)) return;
    while (UCS_INPROGRESS == ucp_request_check_status(req)) {
        ucp_worker_progress(worker);
    }
    ucp_request_free(req);
}

/* Everything of the UCP side of a run. Rank 0 owns c (the source) and the
 * ready-to-receive word; rank 1 owns the receive buffer: data, then one
 * arrival word per block, then the done word. */
struct ucx {
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_ep_h ep;
    ucp_mem_h memh;          /* rank 0: c; rank 1: the receive buffer */
    ucp_mem_h flag_memh;     /* rank 0: the ready-to-receive word */
    ucp_rkey_h rkey;         /* rank 0: the receive buffer's; rank 1: the word's */
    void *mapped;            /* ucp_rkey_ptr of the peer's base */
    ucp_device_local_mem_list_h local;
    ucp_device_remote_mem_list_h remote;
};

static ucp_mem_h mem_map(ucp_context_h ctx, void *addr, size_t len)
{
    ucp_mem_map_params_t mp = {};
    ucp_mem_h memh;
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                    UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
    mp.address = addr;
    mp.length = len;
    mp.memory_type = UCS_MEMORY_TYPE_CUDA;
    UCS(ucp_mem_map(ctx, &mp, &memh));
    return memh;
}

/* Rank 0: the device memory lists for its c and rank 1's buffer (one
 * element each, as ucx_perftest makes them). The remote list needs the
 * endpoint connected both ways: UCS_ERR_NOT_CONNECTED until then, while
 * rank 1 progresses. Returns the status all ranks agree on. */
static ucs_status_t mem_lists(struct ucx *u, void *c, size_t len, uint64_t rbuf)
{
    ucs_status_t status = UCS_OK;
    if (0 == rank) {
        ucp_device_mem_list_elem_t elem = {};
        elem.field_mask = UCP_DEVICE_MEM_LIST_ELEM_FIELD_MEMH | UCP_DEVICE_MEM_LIST_ELEM_FIELD_RKEY |
                          UCP_DEVICE_MEM_LIST_ELEM_FIELD_LOCAL_ADDR |
                          UCP_DEVICE_MEM_LIST_ELEM_FIELD_REMOTE_ADDR |
                          UCP_DEVICE_MEM_LIST_ELEM_FIELD_LENGTH | UCP_DEVICE_MEM_LIST_ELEM_FIELD_EP;
        elem.memh = u->memh;
        elem.local_addr = c;
        elem.length = len;
        elem.remote_addr = rbuf;
        elem.rkey = u->rkey;
        elem.ep = u->ep;
        ucp_device_mem_list_params_t p = {};
        p.field_mask = UCP_DEVICE_MEM_LIST_PARAMS_FIELD_ELEMENTS |
                       UCP_DEVICE_MEM_LIST_PARAMS_FIELD_ELEMENT_SIZE |
                       UCP_DEVICE_MEM_LIST_PARAMS_FIELD_NUM_ELEMENTS |
                       UCP_DEVICE_MEM_LIST_PARAMS_FIELD_WORKER;
        p.element_size = sizeof(elem);
        p.num_elements = 1;
        p.elements = &elem;
        p.worker = u->worker;
        status = ucp_device_local_mem_list_create(&p, &u->local);
        if (UCS_OK != status) {
            fprintf(stderr, "b_ucx_device: ucp_device_local_mem_list_create: %s\n",
                    ucs_status_string(status));
        } else {
            double deadline = MPI_Wtime() + 5;
            do {
                ucp_worker_progress(u->worker);
                status = ucp_device_remote_mem_list_create(&p, &u->remote);
            } while (UCS_ERR_NOT_CONNECTED == status && MPI_Wtime() < deadline);
            if (UCS_OK != status) {
                fprintf(stderr, "b_ucx_device: ucp_device_remote_mem_list_create: %s\n",
                        ucs_status_string(status));
                ucp_device_mem_list_release(u->local);
                u->local = NULL;
            }
        }
    }
    barrier_progress(u->worker);
    CHECK_MPI(MPI_Bcast(&status, sizeof(status), MPI_BYTE, 0, MPI_COMM_WORLD));
    return status;
}

/* Context, worker and endpoint; registrations and rkeys swapped; rank 0
 * maps rank 1's buffer, rank 1 rank 0's word (ucp_rkey_ptr, cuda_ipc). */
static void ucx_open(struct ucx *u, bool device, void *buf, size_t len, uint64_t *flag,
                     uint64_t *peer_buf, uint64_t *peer_flag)
{
    int peer = 1 - rank;
    ucp_config_t *config;
    ucp_params_t params = {};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_RMA | (device ? UCP_FEATURE_AMO64 | UCP_FEATURE_DEVICE : 0);
    UCS(ucp_config_read(NULL, NULL, &config));
    /* The device memory lists need the endpoint connected both ways
     * (UCP_EP_FLAG_REMOTE_CONNECTED), which an endpoint made from a worker
     * address with only connect-to-interface lanes (cuda_ipc, shared
     * memory) never is without a wireup exchange: resolving the remote
     * endpoint's ID at creation makes one. */
    UCS(ucp_config_modify(config, "RESOLVE_REMOTE_EP_ID", "y"));
    UCS(ucp_init(&params, config, &u->ctx));
    ucp_config_release(config);
    ucp_worker_params_t wparams = {};
    wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wparams.thread_mode = UCS_THREAD_MODE_SINGLE;
    UCS(ucp_worker_create(u->ctx, &wparams, &u->worker));

    ucp_address_t *addr;
    size_t addr_len;
    UCS(ucp_worker_get_address(u->worker, &addr, &addr_len));
    std::vector<char> peer_addr = swap_blob(addr, addr_len, peer);
    ucp_worker_release_address(u->worker, addr);
    ucp_ep_params_t eparams = {};
    eparams.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    eparams.address = (const ucp_address_t *) peer_addr.data();
    UCS(ucp_ep_create(u->worker, &eparams, &u->ep));

    void *packed;
    size_t packed_len;
    u->memh = mem_map(u->ctx, buf, len);
    u->flag_memh = 0 == rank ? mem_map(u->ctx, flag, sizeof(*flag)) : NULL;
    UCS(ucp_rkey_pack(u->ctx, 0 == rank ? u->flag_memh : u->memh, &packed, &packed_len));
    std::vector<char> peer_key = swap_blob(packed, packed_len, peer);
    ucp_rkey_buffer_release(packed);
    UCS(ucp_ep_rkey_unpack(u->ep, peer_key.data(), &u->rkey));
    uint64_t mine = (uint64_t) (uintptr_t) (0 == rank ? (void *) flag : buf), theirs;
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_UINT64_T, peer, 3, &theirs, 1, MPI_UINT64_T, peer, 3,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    *peer_buf = 0 == rank ? theirs : 0;
    *peer_flag = 0 == rank ? 0 : theirs;
    ucs_status_t st = ucp_rkey_ptr(u->rkey, theirs, &u->mapped);
    if (UCS_OK != st) {
        fprintf(stderr, "b_ucx_device: rank %d: ucp_rkey_ptr on the peer's GPU memory: %s "
                "(cuda_ipc missing or not reachable?)\n", rank, ucs_status_string(st));
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    /* the endpoint wired up both ways before anything else */
    ucp_request_param_t rp = {};
    wait_req(u->worker, ucp_ep_flush_nbx(u->ep, &rp));
    barrier_progress(u->worker);
}

static void ucx_close(struct ucx *u)
{
    barrier_progress(u->worker); /* no peer writes into our memory any more */
    if (NULL != u->remote) ucp_device_mem_list_release(u->remote);
    if (NULL != u->local) ucp_device_mem_list_release(u->local);
    ucp_rkey_destroy(u->rkey);
    ucp_request_param_t cp = {};
    cp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    cp.flags = UCP_EP_CLOSE_FLAG_FORCE;
    wait_req(u->worker, ucp_ep_close_nbx(u->ep, &cp));
    barrier_progress(u->worker);
    UCS(ucp_mem_unmap(u->ctx, u->memh));
    if (NULL != u->flag_memh) UCS(ucp_mem_unmap(u->ctx, u->flag_memh));
    ucp_worker_destroy(u->worker);
    ucp_cleanup(u->ctx);
}

static int iters_for(size_t bytes)
{
    const char *env = getenv("BENCH_ITERS_MAX");
    size_t most = (NULL != env && atoi(env) > 0) ? (size_t) atoi(env) : 2000;
    size_t it = ((size_t) 1 << 30) / (bytes + 65536);
    return (int) (it < 20 ? 20 : it > most ? most : it);
}

/* Seconds per epoch of variant v at `grid` blocks, measured on rank 1;
 * *last is the last epoch (epochs count from 1 in each grid). */
static double goodput_run(int v, int grid, struct epoch_args x, cudaStream_t s,
                          const uint64_t *peer_flag, uint64_t *done, uint64_t *last,
                          uint64_t *rx_host, cudaEvent_t ev)
{
    size_t bytes = (size_t) grid * BLOCK_BYTES;
    int iters = iters_for(bytes);
    double t0 = 0;

    /* three warm-up epochs, then the timed ones */
    for (int i = -3; i < iters; ++i) {
        uint64_t e = (uint64_t) (i + 4);
        if (0 == i) {
            CUDA(cudaStreamSynchronize(s));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            t0 = MPI_Wtime();
        }
        if (0 == rank) {
            x.epoch = e;
            kernels[v]<<<grid, BLOCK_THREADS, 0, s>>>(x);
            if (V_LIMIT == v) {
                CU(wait_value((CUstream) s, (CUdeviceptr) x.rtr, e, CU_STREAM_WAIT_VALUE_GEQ));
                CUDA(cudaMemcpyAsync(x.mapped, x.c, bytes, cudaMemcpyDeviceToDevice, s));
                CU(write_value((CUstream) s, (CUdeviceptr) (x.mapped + x.done_off), e,
                               CU_STREAM_WRITE_VALUE_DEFAULT));
            }
            CUDA(cudaGetLastError());
        } else {
            for (int k = 0; (x.host_bits & HW_RXWRITE) && k < 2; ++k) {
                CU(write_value((CUstream) s, (CUdeviceptr) (rx_host + k), e,
                               CU_STREAM_WRITE_VALUE_DEFAULT));
            }
            CU(write_value((CUstream) s, (CUdeviceptr) peer_flag, e,
                           CU_STREAM_WRITE_VALUE_DEFAULT));
            if (x.host_bits & HW_EVENTS) CUDA(cudaEventRecord(ev, s));
            CU(wait_value((CUstream) s, (CUdeviceptr) done, e, CU_STREAM_WAIT_VALUE_GEQ));
            if (x.host_bits & HW_EVENTS) CUDA(cudaEventRecord(ev, s));
        }
        *last = e;
    }
    CUDA(cudaStreamSynchronize(s));
    double t = (MPI_Wtime() - t0) / iters;
    CHECK_MPI(MPI_Bcast(&t, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD));
    return t;
}

int main(int argc, char **argv)
{
    int v = -1, size;
    for (int i = 0; argc > 3 && i < V_COUNT; ++i) {
        if (0 == strcmp(argv[2], names[i])) v = i;
    }
    (void) example_select_gpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (getenv("BENCH_LABEL")) label = getenv("BENCH_LABEL");
    unsigned host_bits = 0;
    if (V_KCOPY_HOST == v && NULL != getenv("BENCH_HOSTWORDS")) {
        char *list = strdup(getenv("BENCH_HOSTWORDS"));
        for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
            for (unsigned k = 0; k < sizeof(hw_names) / sizeof(*hw_names); ++k) {
                if (0 == strcmp(tok, hw_names[k])) host_bits |= 1u << k;
            }
        }
        free(list);
    }
    if (v < 0 || 0 != strcmp(argv[1], "goodput") || 2 != size) {
        if (0 == rank) {
            fprintf(stderr, "usage: mpirun -np 2 b_ucx_device goodput VARIANT GRIDS\n"
                            "  (see the comment at the top of bench/b_ucx_device.cu)\n");
        }
        MPI_Finalize();
        return 2;
    }
    int grids[32], ng = 0, maxg = 1;
    for (char *tok = strtok(argv[3], ","); tok && ng < 32; tok = strtok(NULL, ",")) {
        grids[ng] = atoi(tok);
        if (grids[ng] > maxg) maxg = grids[ng];
        ++ng;
    }
    stream_ops_load();
    if (0 == rank) {
        cudaFuncAttributes fa;
        CUDA(cudaFuncGetAttributes(&fa, kernels[v]));
        printf("ucxdev_regs,%s,%s,%zu,%d,registers\n", names[v], kernel_names[v],
               fa.localSizeBytes, fa.numRegs);
        fflush(stdout);
    }

    /* rank 0: a, b, c, the ready-to-receive word, the blocks' count and
     * the error word; rank 1: data | arrival words | done word */
    size_t data = (size_t) maxg * BLOCK_BYTES, arrived_off = data,
           done_off = data + (size_t) maxg * sizeof(uint64_t), len = done_off + 256;
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    double *a = NULL, *b = NULL;
    char *buf;
    uint64_t *flag = NULL;
    unsigned *words = NULL; /* [0] blocks done, [1] error */
    if (0 == rank) {
        len = data;
        CUDA(cudaMalloc(&a, data));
        CUDA(cudaMalloc(&b, data));
        CUDA(cudaMalloc(&flag, 256));
        CUDA(cudaMalloc(&words, 256));
        init_ab<<<maxg, BLOCK_THREADS>>>(a, b);
        CUDA(cudaGetLastError());
    }
    CUDA(cudaMalloc(&buf, len));
    CUDA(cudaDeviceSynchronize()); /* before UCX and the non-blocking stream use them */

    struct ucx u = {};
    uint64_t peer_buf, peer_flag;
    bool device = UCX_VARIANT(v);
    ucx_open(&u, device, buf, len, flag, &peer_buf, &peer_flag);
    ucs_status_t st = device ? mem_lists(&u, buf, len, peer_buf) : UCS_OK;
    if (UCS_OK == st && device && 0 == rank) {
        /* the device API's pointer to the peer's buffer, where the
         * transport has one (cuda_ipc), beside rkey_ptr's (the log) */
        void **dptr, *ptr = NULL;
        ucs_status_t *dst;
        CUDA(cudaMalloc(&dptr, sizeof(*dptr) + sizeof(*dst)));
        dst = (ucs_status_t *) (dptr + 1);
        get_ptr<<<1, 1>>>(u.remote, dptr, dst);
        CUDA(cudaMemcpy(&st, dst, sizeof(st), cudaMemcpyDeviceToHost));
        if (UCS_OK == st) CUDA(cudaMemcpy(&ptr, dptr, sizeof(ptr), cudaMemcpyDeviceToHost));
        CUDA(cudaFree(dptr));
        fprintf(stderr, "b_ucx_device: ucp_device_get_ptr: %s, %p; ucp_rkey_ptr: %p\n",
                ucs_status_string(st), ptr, u.mapped);
        if (V_KCOPY_GET_PTR != v) {
            st = UCS_OK; /* only kernel_copy_get_ptr needs the pointer */
        }
    }
    CHECK_MPI(MPI_Bcast(&st, sizeof(st), MPI_BYTE, 0, MPI_COMM_WORLD));
    if (UCS_OK != st) {
        if (0 == rank) {
            fprintf(stderr, "b_ucx_device: %s: no device memory lists: %s\n", names[v],
                    ucs_status_string(st));
        }
        ucx_close(&u);
        MPI_Finalize();
        return 1;
    }
    struct epoch_args x = {};
    /* kernel_copy_hostwords: host words mapped for the GPU (rank 0: the
     * kernel's, rank 1: its stream's), and rank 1's event */
    uint64_t *host_words = NULL, *host_dev = NULL;
    cudaEvent_t ev = NULL;
    if (V_KCOPY_HOST == v) {
        CUDA(cudaHostAlloc(&host_words, ((size_t) maxg + 8) * sizeof(uint64_t),
                           cudaHostAllocMapped));
        CUDA(cudaHostGetDevicePointer((void **) &host_dev, host_words, 0));
        CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    }
    x.host_bits = host_bits;
    x.host = host_dev;
    if (0 == rank) {
        x.a = a;
        x.b = b;
        x.c = (double *) buf;
        x.rtr = flag;
        x.blocks_done = &words[0];
        x.error = &words[1];
        x.mapped = (char *) u.mapped;
        x.local = u.local;
        x.remote = u.remote;
        x.arrived_off = arrived_off;
        x.done_off = done_off;
    }
    unsigned long long *dwrong;
    CUDA(cudaMalloc(&dwrong, sizeof(*dwrong)));
    for (int g = 0; g < ng && !failed; ++g) {
        int grid = grids[g];
        uint64_t last = 0;
        /* each grid from zero: the data, the arrival and done words (UCX
         * counters are plain 64-bit words: ucp_device_counter_init writes
         * a zero by a memory-type copy), the ready-to-receive word */
        if (0 == rank) {
            CUDA(cudaMemsetAsync(flag, 0, 256, s));
            CUDA(cudaMemsetAsync(words, 0, 256, s));
        } else {
            CUDA(cudaMemsetAsync(buf, 0, len, s));
        }
        CUDA(cudaStreamSynchronize(s));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        double t = goodput_run(v, grid, x, s, (const uint64_t *) u.mapped,
                               (uint64_t *) (buf + done_off), &last, host_dev, ev);
        unsigned long long wrong = 0;
        unsigned error = 0;
        if (0 == rank) {
            CUDA(cudaMemcpy(&error, &words[1], sizeof(error), cudaMemcpyDeviceToHost));
        } else {
            CUDA(cudaMemsetAsync(dwrong, 0, sizeof(*dwrong), s));
            count_wrong<<<grid, BLOCK_THREADS, 0, s>>>(
                (const double *) buf, V_LIMIT == v ? NULL : (const uint64_t *) (buf + arrived_off),
                last, dwrong);
            CUDA(cudaMemcpyAsync(&wrong, dwrong, sizeof(wrong), cudaMemcpyDeviceToHost, s));
            CUDA(cudaStreamSynchronize(s));
        }
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                                MPI_COMM_WORLD));
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &error, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD));
        if (0 != wrong || 0 != error) {
            if (0 == rank) {
                fprintf(stderr, "b_ucx_device: %s grid %d: %llu wrong values or arrival "
                        "words after epoch %llu%s\n", names[v], grid, wrong,
                        (unsigned long long) last, error ? "; a UCX device call failed" : "");
            }
            failed = 1;
        } else if (0 == rank) {
            printf("ucxdev_goodput,%s-%s,%d,%zu,%.4f,GB/s\n", names[v], label, grid,
                   (size_t) grid * BLOCK_BYTES, (double) grid * BLOCK_BYTES / t / 1e9);
            fflush(stdout);
        }
    }
    CUDA(cudaFree(dwrong));
    if (V_KCOPY_HOST == v) {
        CUDA(cudaEventDestroy(ev));
        CUDA(cudaFreeHost(host_words));
    }
    ucx_close(&u);
    CUDA(cudaFree(buf));
    if (0 == rank) {
        CUDA(cudaFree(a));
        CUDA(cudaFree(b));
        CUDA(cudaFree(flag));
        CUDA(cudaFree(words));
    }
    CUDA(cudaStreamDestroy(s));
    MPI_Finalize();
    return failed;
}
