/* UCX-level check of ucp_rkey_ptr on CUDA memory (UCX's own since 1.21; the
 * patch in ucx-patches/ before); MPI only
 * bootstraps. Each rank maps a cudaMalloc buffer with a UCP context of its
 * own; the ranks swap worker addresses and packed rkeys, and a kernel of each
 * rank writes a pattern (writer, byte index, seed) into the peer's buffer
 * through the device pointer that ucp_rkey_ptr returned, at a non-zero
 * offset. Every byte of each buffer is checked on the host, the untouched
 * bytes around the window included.
 * Also: ucp_rkey_ptr on a host buffer of the peer (allocated by UCX, so sysv
 * or posix may serve it) gives a usable pointer (checked) or an error.
 *   -n  expect refusal (run with UCX_TLS=^cuda_ipc): ucp_rkey_ptr must fail
 *       on the CUDA rkey with UNREACHABLE or UNSUPPORTED, and the pattern
 *       takes the fallback: ucp_put_nbx into the peer's host buffer, which
 *       the peer copies into its GPU buffer. */
#include <cuda_runtime.h>
#include <mpi.h>
#include <ucp/api/ucp.h>
#include <unistd.h>
#include <vector>
#include "tutil.h"
#include "gutil.h"


#define UCS(call)                                                                \
    do {                                                                         \
        ucs_status_t _s = (call);                                                \
        if (UCS_OK != _s) {                                                      \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
                    ucs_status_string(_s));                                      \
            MPI_Abort(MPI_COMM_WORLD, 4);                                        \
        }                                                                        \
    } while (0)

static const size_t OFF = 4096 + 64;            /* window offset in the buffer */
static const size_t LEN = (1 << 20) + 37;       /* window length */
static const size_t SIZE = OFF + LEN + 4096;    /* buffer size */
static const uint8_t INIT = 0x5a;               /* bytes outside the window */
static const unsigned SEED = 20260;

__host__ __device__ static inline uint8_t pattern(int writer, size_t i, unsigned seed)
{
    uint32_t v = (uint32_t) writer * 2654435761u ^ (uint32_t) i * 2246822519u ^ seed * 40503u;
    v ^= v >> 15;
    return (uint8_t) (v ^ (v >> 8) ^ (v >> 24));
}

__global__ void fill(uint8_t *dst, size_t len, int writer, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < len;
         i += (size_t) gridDim.x * blockDim.x) {
        dst[i] = pattern(writer, i, seed);
    }
    __threadfence_system();
}

/* Swap a byte string with the peer. */
static std::vector<char> swap_blob(const void *buf, size_t len, int peer)
{
    uint64_t mine = len, theirs = 0;
    T_MPI(MPI_Sendrecv(&mine, 1, MPI_UINT64_T, peer, 1, &theirs, 1, MPI_UINT64_T, peer, 1,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    std::vector<char> out(theirs);
    T_MPI(MPI_Sendrecv(buf, (int) len, MPI_BYTE, peer, 2, out.data(), (int) theirs, MPI_BYTE,
                       peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    return out;
}

/* A barrier during which this rank's worker keeps progressing, so that
 * operations of the peer that need it (wireup, emulated RMA) complete. */
static void barrier_progress(ucp_worker_h worker)
{
    MPI_Request req;
    int done = 0;
    T_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    while (!done) {
        ucp_worker_progress(worker);
        T_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    }
}

static ucs_status_t wait_req(ucp_worker_h worker, ucs_status_ptr_t req)
{
    ucs_status_t status;
    if (!UCS_PTR_IS_PTR(req)) return UCS_PTR_STATUS(req);
    while ((status = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        ucp_worker_progress(worker);
    }
    ucp_request_free(req);
    return status;
}

/* Checks a whole buffer: INIT outside the window, the peer's pattern inside. */
static void verify(const uint8_t *buf, int writer, unsigned seed, const char *what)
{
    size_t bad = 0, first = SIZE;
    for (size_t i = 0; i < SIZE; ++i) {
        uint8_t want = (i >= OFF && i < OFF + LEN) ? pattern(writer, i - OFF, seed) : INIT;
        if (buf[i] != want && bad++ == 0) first = i;
    }
    T_CHECK(bad == 0, "%s: %zu bad bytes, first at %zu (window %zu..%zu)", what, bad, first,
            OFF, OFF + LEN);
}

int main(int argc, char **argv)
{
    int expect_refusal = 0, opt, rank, size;
    while ((opt = getopt(argc, argv, "n")) != -1) {
        if (opt == 'n') expect_refusal = 1;
        else return 2;
    }
    (void) g_select_gpu();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "u_rkey_ptr needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = 1 - rank;

    /* GPU buffer, and a host buffer allocated by UCX (shared memory if it can) */
    uint8_t *dbuf;
    CUDA(cudaMalloc(&dbuf, SIZE));
    CUDA(cudaMemset(dbuf, INIT, SIZE));
    CUDA(cudaDeviceSynchronize()); /* the CUDA context is current from here on */

    ucp_config_t *config;
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_params_t params = {};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_RMA;
    UCS(ucp_config_read(NULL, NULL, &config));
    UCS(ucp_init(&params, config, &ctx));
    ucp_config_release(config);
    ucp_worker_params_t wparams = {};
    wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wparams.thread_mode = UCS_THREAD_MODE_SINGLE;
    UCS(ucp_worker_create(ctx, &wparams, &worker));

    ucp_mem_h dmemh, hmemh;
    ucp_mem_map_params_t mp = {};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                    UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
    mp.address = dbuf;
    mp.length = SIZE;
    mp.memory_type = UCS_MEMORY_TYPE_CUDA;
    UCS(ucp_mem_map(ctx, &mp, &dmemh));
    mp = {};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    mp.length = SIZE;
    mp.flags = UCP_MEM_MAP_ALLOCATE;
    UCS(ucp_mem_map(ctx, &mp, &hmemh));
    ucp_mem_attr_t mattr = {};
    mattr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS;
    UCS(ucp_mem_query(hmemh, &mattr));
    uint8_t *hbuf = (uint8_t *) mattr.address;
    memset(hbuf, INIT, SIZE);

    /* Swap worker addresses, rkeys and buffer addresses */
    ucp_address_t *addr;
    size_t addr_len;
    UCS(ucp_worker_get_address(worker, &addr, &addr_len));
    std::vector<char> peer_addr = swap_blob(addr, addr_len, peer);
    ucp_worker_release_address(worker, addr);
    ucp_ep_h ep;
    ucp_ep_params_t eparams = {};
    eparams.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    eparams.address = (const ucp_address_t *) peer_addr.data();
    UCS(ucp_ep_create(worker, &eparams, &ep));

    ucp_rkey_h drkey, hrkey;
    void *packed;
    size_t packed_len;
    UCS(ucp_rkey_pack(ctx, dmemh, &packed, &packed_len));
    std::vector<char> peer_dkey = swap_blob(packed, packed_len, peer);
    ucp_rkey_buffer_release(packed);
    UCS(ucp_rkey_pack(ctx, hmemh, &packed, &packed_len));
    std::vector<char> peer_hkey = swap_blob(packed, packed_len, peer);
    ucp_rkey_buffer_release(packed);
    UCS(ucp_ep_rkey_unpack(ep, peer_dkey.data(), &drkey));
    UCS(ucp_ep_rkey_unpack(ep, peer_hkey.data(), &hrkey));
    uint64_t mine[2] = {(uint64_t) (uintptr_t) dbuf, (uint64_t) (uintptr_t) hbuf}, theirs[2];
    T_MPI(MPI_Sendrecv(mine, 2, MPI_UINT64_T, peer, 3, theirs, 2, MPI_UINT64_T, peer, 3,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    uint64_t peer_dbuf = theirs[0], peer_hbuf = theirs[1];

    std::vector<uint8_t> host(SIZE);

    /* 1. Host rkey: a pointer from sysv/posix must work for the CPU; an error is fine */
    void *hptr = NULL;
    ucs_status_t hst = ucp_rkey_ptr(hrkey, peer_hbuf + OFF, &hptr), peer_hst;
    if (hst == UCS_OK) {
        for (size_t i = 0; i < LEN; ++i) ((uint8_t *) hptr)[i] = pattern(rank, i, SEED + 1);
    }
    printf("[rank %d] ucp_rkey_ptr on host rkey: %s\n", rank, ucs_status_string(hst));
    T_MPI(MPI_Sendrecv(&hst, sizeof(hst), MPI_BYTE, peer, 4, &peer_hst, sizeof(peer_hst),
                       MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    barrier_progress(worker);
    if (peer_hst == UCS_OK) verify(hbuf, peer, SEED + 1, "host buffer written through rkey_ptr");
    memset(hbuf, INIT, SIZE);
    barrier_progress(worker);

    /* 2. CUDA rkey: an address outside the peer's allocation is refused by
     * the rkey_ptr of ucx-patches/ (UCX < 1.21). UCX's own, since 1.21, maps
     * the allocation and offsets into it without a range check: part/ucx
     * only asks for the base the receiver registered and stays within the
     * sizes both sides agreed on. */
    void *dptr = NULL;
    ucs_status_t st = ucp_rkey_ptr(drkey, peer_dbuf - 1, &dptr);
#if UCP_API_VERSION < UCP_VERSION(1, 21)
    T_CHECK(st != UCS_OK, "ucp_rkey_ptr accepted an address before the buffer");
#else
    printf("[rank %d] ucp_rkey_ptr before the buffer: %s (UCX >= 1.21: not range-checked)\n",
           rank, ucs_status_string(st));
#endif

    /* 3. CUDA rkey at an offset: a kernel writes through it, or the fallback */
    st = ucp_rkey_ptr(drkey, peer_dbuf + OFF, &dptr);
    printf("[rank %d] ucp_rkey_ptr on CUDA rkey: %s (%s expected)\n", rank,
           ucs_status_string(st), expect_refusal ? "refusal" : "success");
    if (!expect_refusal) {
        T_CHECK(st == UCS_OK, "ucp_rkey_ptr on the CUDA rkey: %s", ucs_status_string(st));
        if (st == UCS_OK) {
            fill<<<128, 256>>>((uint8_t *) dptr, LEN, rank, SEED);
            CUDA(cudaGetLastError());
            CUDA(cudaDeviceSynchronize());
        }
        barrier_progress(worker);
    } else {
        T_CHECK(st == UCS_ERR_UNREACHABLE || st == UCS_ERR_UNSUPPORTED,
                "expected a refusal, got %s", ucs_status_string(st));
        /* Fallback: the same pattern, made on the GPU, put into the peer's
         * host buffer; the peer copies it into its GPU buffer. */
        uint8_t *stage;
        CUDA(cudaMalloc(&stage, LEN));
        fill<<<128, 256>>>(stage, LEN, rank, SEED);
        CUDA(cudaGetLastError());
        CUDA(cudaMemcpy(host.data(), stage, LEN, cudaMemcpyDeviceToHost));
        CUDA(cudaFree(stage));
        ucp_request_param_t rp = {};
        UCS(wait_req(worker, ucp_put_nbx(ep, host.data(), LEN, peer_hbuf + OFF, hrkey, &rp)));
        UCS(wait_req(worker, ucp_ep_flush_nbx(ep, &rp)));
        barrier_progress(worker);
        CUDA(cudaMemcpy(dbuf + OFF, hbuf + OFF, LEN, cudaMemcpyHostToDevice));
    }
    CUDA(cudaMemcpy(host.data(), dbuf, SIZE, cudaMemcpyDeviceToHost));
    int before = t_failures;
    verify(host.data(), peer, SEED, "GPU buffer");
    printf("[rank %d] %s: GPU buffer %s\n", rank, t_failures == before ? "PASS" : "FAIL",
           expect_refusal ? "written by the ucp_put_nbx fallback" : "written through rkey_ptr");

    /* Teardown: nobody touches a peer buffer past this barrier */
    barrier_progress(worker);
    ucp_rkey_destroy(drkey);
    ucp_rkey_destroy(hrkey);
    ucp_request_param_t cp = {};
    cp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    cp.flags = UCP_EP_CLOSE_FLAG_FORCE;
    wait_req(worker, ucp_ep_close_nbx(ep, &cp));
    barrier_progress(worker);
    UCS(ucp_mem_unmap(ctx, dmemh));
    UCS(ucp_mem_unmap(ctx, hmemh));
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
    CUDA(cudaFree(dbuf));
    return t_finish("u_rkey_ptr");
}
