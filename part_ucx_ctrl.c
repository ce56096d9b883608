/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#include "ompi_config.h"

#include "opal/mca/accelerator/accelerator.h"
#include "opal/mca/common/ucx/common_ucx.h"
#include "opal/mca/pmix/pmix-internal.h"
#include "opal/mca/timer/base/base.h"
#include "opal/util/show_help.h"
#include "ompi/attribute/attribute.h"

#include "part_ucx.h"
#include "part_ucx_ctrl.h"
#include "part_ucx_pvar.h"

/* A control message copied out of the AM callback, handled later by
 * mca_part_ucx_ctrl_progress() where blocking UCX calls are allowed. */
typedef struct mca_part_ucx_ctrl_item_t {
    mca_part_ucx_link_t link;
    unsigned id;
    size_t len;
    uint64_t data[]; /* aligned for the message structs */
} mca_part_ucx_ctrl_item_t;

typedef struct {
    ompi_comm_extended_cid_t cid;
    opal_process_name_t name;
} mca_part_ucx_seq_key_t;

/* Matching. A bucket per (communicator id, source, tag) holds the receives
 * posted and the setup records arrived in sequence, each list in order;
 * only one of them is non-empty at a time. */
typedef struct {
    ompi_comm_extended_cid_t cid;
    int32_t src;
    int32_t tag;
} mca_part_ucx_match_key_t;

struct mca_part_ucx_bucket_t {
    mca_part_ucx_match_key_t key;
    mca_part_ucx_link_t posted;     /* mca_part_ucx_post_t */
    mca_part_ucx_link_t unexpected; /* mca_part_ucx_setup_msg_t */
};

typedef struct {
    ompi_comm_extended_cid_t cid;
    opal_process_name_t sender;
    uint64_t seq;
} mca_part_ucx_held_key_t;

/* The incoming queue has its own lock: AM callbacks run inside
 * ucp_worker_progress, holding the worker's lock, so they must never wait
 * for the module lock, which is held around UCX calls. */
static mca_part_ucx_link_t mca_part_ucx_incoming;
static opal_atomic_int32_t mca_part_ucx_num_incoming;
static opal_mutex_t mca_part_ucx_incoming_lock;

static mca_part_ucx_ctrl_handlers_t mca_part_ucx_handlers;

/* The modex key is the component's; the value lists every worker's address:
 * uint32 count, then per worker a uint32 length and the address. */
static int mca_part_ucx_publish_addresses(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    ucp_address_t **addrs;
    size_t *lens, total = sizeof(uint32_t);
    ucs_status_t status;
    uint8_t *p;
    int i, rc = OMPI_SUCCESS;

    addrs = calloc(m->num_workers, sizeof(*addrs));
    lens = calloc(m->num_workers, sizeof(*lens));
    if (NULL == addrs || NULL == lens) {
        free(addrs);
        free(lens);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (i = 0; i < m->num_workers; ++i) {
        status = ucp_worker_get_address(m->workers[i], &addrs[i], &lens[i]);
        if (UCS_OK != status) {
            rc = OMPI_ERROR;
            goto out;
        }
        total += sizeof(uint32_t) + lens[i];
    }

    m->address_blob = malloc(total);
    if (NULL == m->address_blob) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    m->address_blob_len = total;
    p = m->address_blob;
    *(uint32_t *) p = (uint32_t) m->num_workers;
    p += sizeof(uint32_t);
    for (i = 0; i < m->num_workers; ++i) {
        *(uint32_t *) p = (uint32_t) lens[i];
        memcpy(p + sizeof(uint32_t), addrs[i], lens[i]);
        p += sizeof(uint32_t) + lens[i];
    }

    /* The part framework is selected after MPI_Init's fence: the value is
     * committed now and read by peers on first use (direct modex). */
    OPAL_MODEX_SEND(rc, PMIX_GLOBAL, mca_part_ucx_module.version,
                    m->address_blob, m->address_blob_len);
    if (OMPI_SUCCESS == rc && PMIX_SUCCESS != PMIx_Commit()) {
        rc = OMPI_ERROR;
    }

out:
    for (i = 0; i < m->num_workers; ++i) {
        if (NULL != addrs[i]) {
            ucp_worker_release_address(m->workers[i], addrs[i]);
        }
    }
    free(addrs);
    free(lens);
    return rc;
}

static ucs_status_t mca_part_ucx_am_cb(void *arg, const void *header, size_t header_length,
                                       void *data, size_t length,
                                       const ucp_am_recv_param_t *param)
{
    mca_part_ucx_ctrl_item_t *item;

    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
        /* Control messages are sent eager only. */
        MCA_PART_UCX_ERROR("unexpected rendezvous control message dropped");
        return UCS_OK;
    }
    item = malloc(sizeof(*item) + length);
    if (NULL == item) {
        return UCS_OK;
    }
    item->id = (unsigned) (uintptr_t) arg;
    item->len = length;
    memcpy(item->data, data, length);

    OPAL_THREAD_LOCK(&mca_part_ucx_incoming_lock);
    mca_part_ucx_link_append(&mca_part_ucx_incoming, &item->link);
    opal_atomic_add_fetch_32(&mca_part_ucx_num_incoming, 1);
    OPAL_THREAD_UNLOCK(&mca_part_ucx_incoming_lock);
    return UCS_OK;
}

/* Partition data is written in place right away: the receiver's request
 * checks the header (part_ucx_recvreq.c). */
static ucs_status_t mca_part_ucx_data_cb(void *arg, const void *header, size_t header_length,
                                         void *data, size_t length,
                                         const ucp_am_recv_param_t *param)
{
    const mca_part_ucx_data_hdr_t *hdr = header;

    if (header_length != sizeof(*hdr)) {
        MCA_PART_UCX_ERROR("malformed partition message dropped");
        if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
            ucp_am_data_release((ucp_worker_h) arg, data);
        }
        return UCS_OK;
    }
    if (0 != hdr->rtr.epoch) { /* a ready-to-receive riding along */
        mca_part_ucx_handlers.rtr(&hdr->rtr);
    }
    return mca_part_ucx_handlers.data((ucp_worker_h) arg, hdr, data, length,
                                      param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV);
}

/* A ready-to-receive: written into the send request's word right away, as
 * the put it stands for would have written it. */
static ucs_status_t mca_part_ucx_rtr_cb(void *arg, const void *header, size_t header_length,
                                        void *data, size_t length,
                                        const ucp_am_recv_param_t *param)
{
    (void) length;
    if (header_length != sizeof(mca_part_ucx_rtr_msg_t) ||
        (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        MCA_PART_UCX_ERROR("malformed ready-to-receive message dropped");
        if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
            ucp_am_data_release((ucp_worker_h) arg, data);
        }
        return UCS_OK;
    }
    mca_part_ucx_handlers.rtr(header);
    return UCS_OK;
}

static int mca_part_ucx_set_am_handler(ucp_worker_h worker, unsigned id, ucp_am_recv_callback_t cb,
                                       void *arg)
{
    ucp_am_handler_param_t param = {0};

    param.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                       UCP_AM_HANDLER_PARAM_FIELD_ARG;
    param.id = id;
    param.cb = cb;
    param.arg = arg;
    return (UCS_OK == ucp_worker_set_am_recv_handler(worker, &param)) ? OMPI_SUCCESS
                                                                       : OMPI_ERROR;
}

int mca_part_ucx_ctrl_init(const mca_part_ucx_ctrl_handlers_t *handlers)
{
    ucp_worker_h w0 = mca_part_ucx_module.workers[0];
    int i, rc;

    mca_part_ucx_handlers = *handlers;
    OBJ_CONSTRUCT(&mca_part_ucx_incoming_lock, opal_mutex_t);
    mca_part_ucx_link_init(&mca_part_ucx_incoming);
    mca_part_ucx_num_incoming = 0;

    rc = mca_part_ucx_set_am_handler(w0, MCA_PART_UCX_AM_SETUP, mca_part_ucx_am_cb,
                                     (void *) (uintptr_t) MCA_PART_UCX_AM_SETUP);
    if (OMPI_SUCCESS == rc) {
        rc = mca_part_ucx_set_am_handler(w0, MCA_PART_UCX_AM_ACK, mca_part_ucx_am_cb,
                                         (void *) (uintptr_t) MCA_PART_UCX_AM_ACK);
    }
    if (OMPI_SUCCESS == rc) {
        rc = mca_part_ucx_set_am_handler(w0, MCA_PART_UCX_AM_RTR, mca_part_ucx_rtr_cb, w0);
    }
    for (i = 0; OMPI_SUCCESS == rc && i < mca_part_ucx_module.num_workers; ++i) {
        rc = mca_part_ucx_set_am_handler(mca_part_ucx_module.workers[i], MCA_PART_UCX_AM_DATA,
                                         mca_part_ucx_data_cb, mca_part_ucx_module.workers[i]);
    }
    if (OMPI_SUCCESS == rc) {
        rc = mca_part_ucx_publish_addresses();
    }
    if (OMPI_SUCCESS != rc) {
        opal_show_help("help-part-ucx.txt", "ucx init failed", true,
                       "active message handlers and worker addresses", opal_strerror(rc));
    }
    return rc;
}

ucs_status_t mca_part_ucx_wait(ucp_worker_h worker, void *op)
{
    ucs_status_t status;

    if (!UCS_PTR_IS_PTR(op)) {
        return UCS_PTR_STATUS(op);
    }
    while (UCS_INPROGRESS == (status = ucp_request_check_status(op))) {
        ucp_worker_progress(worker);
    }
    ucp_request_free(op);
    return status;
}

void mca_part_ucx_op_release(void **op)
{
    if (NULL != *op) {
        (void) mca_part_ucx_wait(mca_part_ucx_module.workers[0], *op);
        *op = NULL;
    }
}

struct mca_part_ucx_rkey_t {
    mca_part_ucx_rkey_t *next;
    int worker;
    size_t len;
    ucp_rkey_h rkey;
    int gpu_state;                  /* 0 not tried, 1 registered, -1 impossible */
    char *gpu_base;                 /* the chunk mapped here and registered */
    uint64_t chunk_addr, chunk_size;
    char packed[];
};

static opal_mutex_t mca_part_ucx_rkey_lock = OPAL_MUTEX_STATIC_INIT;

int mca_part_ucx_peer_rkey(mca_part_ucx_peer_t *peer, int worker, const void *packed,
                           size_t len, ucp_rkey_h *rkey)
{
    mca_part_ucx_rkey_t *k;
    int rc = OMPI_SUCCESS;

    OPAL_THREAD_LOCK(&mca_part_ucx_rkey_lock);
    for (k = peer->rkeys; NULL != k; k = k->next) {
        if (k->worker == worker && k->len == len && 0 == memcmp(k->packed, packed, len)) {
            break;
        }
    }
    if (NULL == k && NULL != (k = malloc(sizeof(*k) + len))) {
        opal_timer_t t0 = opal_timer_base_get_usec();
        if (UCS_OK == ucp_ep_rkey_unpack(peer->eps[worker], packed, &k->rkey)) {
            MCA_PART_UCX_VERBOSE(5, "key of a control chunk of %s unpacked: %llu us",
                                 OPAL_NAME_PRINT(peer->name),
                                 (unsigned long long) (opal_timer_base_get_usec() - t0));
            k->worker = worker;
            k->len = len;
            k->gpu_state = 0;
            k->gpu_base = NULL;
            memcpy(k->packed, packed, len);
            k->next = peer->rkeys;
            peer->rkeys = k;
        } else {
            free(k);
            k = NULL;
        }
    }
    if (NULL == k) {
        rc = OMPI_ERROR;
    } else {
        *rkey = k->rkey;
    }
    OPAL_THREAD_UNLOCK(&mca_part_ucx_rkey_lock);
    return rc;
}

int mca_part_ucx_peer_gpu_ptr(mca_part_ucx_peer_t *peer, ucp_rkey_h rkey, uint64_t chunk_addr,
                              uint64_t chunk_size, uint64_t addr, size_t len, void **ptr)
{
    mca_part_ucx_rkey_t *k;
    void *base = NULL;
    int rc = OMPI_ERROR;

    OPAL_THREAD_LOCK(&mca_part_ucx_rkey_lock);
    for (k = peer->rkeys; NULL != k && k->rkey != rkey; k = k->next) {
    }
    if (NULL != k && 0 == k->gpu_state) {
        k->gpu_state = -1;
        if (0 < chunk_size && UCS_OK == ucp_rkey_ptr(rkey, chunk_addr, &base) &&
            OPAL_SUCCESS == opal_accelerator.host_register(MCA_ACCELERATOR_NO_DEVICE_ID, base,
                                                           chunk_size)) {
            k->gpu_state = 1;
            k->gpu_base = base;
            k->chunk_addr = chunk_addr;
            k->chunk_size = chunk_size;
        }
        MCA_PART_UCX_VERBOSE(5, "control chunk of a peer %s for this GPU",
                             (1 == k->gpu_state) ? "mapped" : "cannot be mapped");
    }
    /* The peer named the range: it must lie in the chunk we registered. */
    if (NULL != k && 1 == k->gpu_state && addr >= k->chunk_addr && len <= k->chunk_size &&
        addr - k->chunk_addr <= k->chunk_size - len) {
        *ptr = k->gpu_base + (addr - k->chunk_addr);
        rc = OMPI_SUCCESS;
    }
    OPAL_THREAD_UNLOCK(&mca_part_ucx_rkey_lock);
    return rc;
}

static void mca_part_ucx_peer_destroy(mca_part_ucx_peer_t *peer)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    ucp_request_param_t param = {0};
    mca_part_ucx_rkey_t *k;
    int i;

    while (NULL != (k = peer->rkeys)) {
        peer->rkeys = k->next;
        if (1 == k->gpu_state) {
            (void) opal_accelerator.host_unregister(MCA_ACCELERATOR_NO_DEVICE_ID, k->gpu_base);
        }
        ucp_rkey_destroy(k->rkey);
        free(k);
    }

    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    for (i = 0; i < m->num_workers; ++i) {
        if (NULL != peer->eps[i]) { /* not closed in order at finalize */
            (void) mca_part_ucx_wait(m->workers[i], ucp_ep_close_nbx(peer->eps[i], &param));
        }
    }
    free(peer->eps);
    free(peer);
}

static void mca_part_ucx_seq_table_clear(opal_hash_table_t *table)
{
    void *key, *slot, *node = NULL;
    size_t key_size;

    while (OPAL_SUCCESS == opal_hash_table_get_first_key_ptr(table, &key, &key_size, &slot,
                                                             &node)) {
        opal_hash_table_remove_value_ptr(table, key, key_size);
        free(slot);
        node = NULL;
    }
}

/* Every peer's endpoints, closed as pml/ucx closes its own: in an order
 * that spreads the disconnects (opal_common_ucx_del_procs), then one fence
 * of all processes, so that no endpoint is torn down while a peer still
 * flushes to it. Every process that initialized the module gets here, in
 * MPI_Finalize or when part/ucx is not selected, so all reach the fence. */
static void mca_part_ucx_close_endpoints(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    opal_common_ucx_del_proc_t *procs;
    size_t n = 0, cap = opal_hash_table_get_size(&m->peers) + 1;
    mca_part_ucx_peer_t *peer;
    void *node = NULL;
    uint64_t key;
    int i, rc;

    if (NULL == m->workers || NULL == (procs = calloc(cap, sizeof(*procs)))) {
        return;
    }
    for (i = 0; i < m->num_workers; ++i) {
        n = 0;
        for (rc = opal_hash_table_get_first_key_uint64(&m->peers, &key, (void **) &peer, &node);
             OPAL_SUCCESS == rc && n < cap;
             rc = opal_hash_table_get_next_key_uint64(&m->peers, &key, (void **) &peer, node,
                                                      &node)) {
            if (NULL != peer->eps[i]) {
                procs[n].ep = peer->eps[i];
                procs[n++].vpid = peer->name.vpid;
                peer->eps[i] = NULL;
            }
        }
        if (i + 1 < m->num_workers) {
            (void) opal_common_ucx_del_procs_nofence(procs, n, OMPI_PROC_MY_NAME->vpid, 1,
                                                     m->workers[i]);
        } else {
            (void) opal_common_ucx_del_procs(procs, n, OMPI_PROC_MY_NAME->vpid, 1, m->workers[i]);
        }
    }
    free(procs);
}

void mca_part_ucx_ctrl_fini(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_link_t *item;
    mca_part_ucx_peer_t *peer;
    mca_part_ucx_bucket_t *b;
    mca_part_ucx_post_t *post;
    uint64_t key;
    void *node = NULL, *key_ptr;
    size_t key_size;

    mca_part_ucx_close_endpoints();
    while (OPAL_SUCCESS == opal_hash_table_get_first_key_uint64(&m->peers, &key, (void **) &peer,
                                                                &node)) {
        opal_hash_table_remove_value_uint64(&m->peers, key);
        mca_part_ucx_peer_destroy(peer);
        node = NULL;
    }
    if (NULL != mca_part_ucx_incoming.next) {
        while (!mca_part_ucx_link_empty(&mca_part_ucx_incoming)) {
            item = mca_part_ucx_incoming.next;
            mca_part_ucx_link_remove(item);
            free(item);
        }
        OBJ_DESTRUCT(&mca_part_ucx_incoming_lock);
    }
    node = NULL;
    while (OPAL_SUCCESS == opal_hash_table_get_first_key_ptr(&m->match, &key_ptr, &key_size,
                                                             (void **) &b, &node)) {
        opal_hash_table_remove_value_ptr(&m->match, key_ptr, key_size);
        while (!mca_part_ucx_link_empty(&b->unexpected)) {
            item = b->unexpected.next;
            mca_part_ucx_link_remove(item);
            free(container_of(item, mca_part_ucx_setup_msg_t, link));
        }
        while (!mca_part_ucx_link_empty(&b->posted)) {
            post = container_of(b->posted.next, mca_part_ucx_post_t, link);
            mca_part_ucx_link_remove(&post->link);
            post->bucket = NULL;
            if (post->tombstone) {
                free(post); /* a tombstone; receives are the user's */
            }
        }
        free(b);
        node = NULL;
    }
    mca_part_ucx_seq_table_clear(&m->setup_ahead);
    mca_part_ucx_seq_table_clear(&m->seq_in);
    mca_part_ucx_seq_table_clear(&m->seq_out);
    free(m->address_blob);
    m->address_blob = NULL;
}

_Static_assert(sizeof(opal_process_name_t) == sizeof(uint64_t), "process names are 64 bits");

static uint64_t mca_part_ucx_name_key(const opal_process_name_t *name)
{
    uint64_t key;

    memcpy(&key, name, sizeof(key));
    return key;
}

/* Read a peer's worker addresses. The value was put after the fence of
 * MPI_Init, so a miss in the local cache is retried against the server. */
static int mca_part_ucx_modex_recv(const opal_process_name_t *name, void **blob, size_t *len)
{
    char *key = mca_base_component_to_string(mca_part_ucx_module.version);
    pmix_value_t *val = NULL;
    pmix_info_t info[1];
    pmix_status_t prc;
    pmix_proc_t proc;
    bool refresh = true;

    if (NULL == key) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    OPAL_PMIX_CONVERT_NAME(&proc, name);
    prc = PMIx_Get(&proc, key, NULL, 0, &val);
    if (PMIX_SUCCESS != prc || NULL == val) {
        PMIX_INFO_LOAD(&info[0], PMIX_GET_REFRESH_CACHE, &refresh, PMIX_BOOL);
        prc = PMIx_Get(&proc, key, info, 1, &val);
        PMIX_INFO_DESTRUCT(&info[0]);
    }
    free(key);
    if (PMIX_SUCCESS != prc || NULL == val || PMIX_BYTE_OBJECT != val->type) {
        if (NULL != val) {
            PMIX_VALUE_RELEASE(val);
        }
        return OMPI_ERR_NOT_FOUND;
    }
    *blob = val->data.bo.bytes;
    *len = val->data.bo.size;
    val->data.bo.bytes = NULL;
    PMIX_VALUE_RELEASE(val);
    return OMPI_SUCCESS;
}

static mca_part_ucx_peer_t *mca_part_ucx_peer_create(const opal_process_name_t *name)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    ucp_ep_params_t params = {0};
    mca_part_ucx_peer_t *peer;
    uint8_t *blob = NULL, *p, *end;
    size_t len = 0;
    uint32_t count, alen;
    ucs_status_t status;
    opal_timer_t t0 = opal_timer_base_get_usec(), t1;
    int i;

    if (OMPI_SUCCESS != mca_part_ucx_modex_recv(name, (void **) &blob, &len)) {
        MCA_PART_UCX_ERROR("no worker address for peer %s", OPAL_NAME_PRINT(*name));
        return NULL;
    }
    t1 = opal_timer_base_get_usec();
    peer = calloc(1, sizeof(*peer));
    if (NULL == peer || NULL == (peer->eps = calloc(m->num_workers, sizeof(ucp_ep_h)))) {
        free(peer);
        free(blob);
        return NULL;
    }
    opal_atomic_lock_init(&peer->rtr_lock, OPAL_ATOMIC_LOCK_UNLOCKED);
    peer->name = *name;

    p = blob;
    end = blob + len;
    count = (len >= sizeof(uint32_t)) ? *(uint32_t *) p : 0;
    p += sizeof(uint32_t);
    if ((int) count != m->num_workers) {
        opal_show_help("help-part-ucx.txt", "num_workers mismatch", true,
                       OPAL_NAME_PRINT(*name), (int) count, m->num_workers);
        goto err;
    }
    for (i = 0; i < m->num_workers; ++i) {
        if (p + sizeof(uint32_t) > end) {
            goto err;
        }
        alen = *(uint32_t *) p;
        p += sizeof(uint32_t);
        if (p + alen > end) {
            goto err;
        }
        params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
        params.address = (const ucp_address_t *) p;
        status = ucp_ep_create(m->workers[i], &params, &peer->eps[i]);
        if (UCS_OK != status) {
            MCA_PART_UCX_ERROR("ucp_ep_create to %s failed: %s", OPAL_NAME_PRINT(*name),
                               ucs_status_string(status));
            goto err;
        }
        p += alen;
    }
    free(blob);
    MCA_PART_UCX_VERBOSE(5, "connected to %s on %d worker(s): %llu us (worker address %llu)",
                         OPAL_NAME_PRINT(*name), m->num_workers,
                         (unsigned long long) (opal_timer_base_get_usec() - t0),
                         (unsigned long long) (t1 - t0));
    return peer;

err:
    free(blob);
    mca_part_ucx_peer_destroy(peer);
    return NULL;
}

mca_part_ucx_peer_t *mca_part_ucx_peer_get_by_name(const opal_process_name_t *name)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_peer_t *peer = NULL;
    uint64_t key = mca_part_ucx_name_key(name);

    OPAL_THREAD_LOCK(&m->lock);
    if (OPAL_SUCCESS != opal_hash_table_get_value_uint64(&m->peers, key, (void **) &peer)) {
        peer = mca_part_ucx_peer_create(name);
        if (NULL != peer) {
            opal_hash_table_set_value_uint64(&m->peers, key, peer);
        }
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    return peer;
}

mca_part_ucx_peer_t *mca_part_ucx_peer_get(ompi_proc_t *proc)
{
    return mca_part_ucx_peer_get_by_name(&proc->super.proc_name);
}

/* Every control message: eager on worker 0, `buf` as the data or (header)
 * as the header; `param` may add a callback. */
static ucs_status_ptr_t mca_part_ucx_ctrl_am_send(mca_part_ucx_peer_t *peer, unsigned id,
                                                  const void *buf, size_t len, bool header,
                                                  ucp_request_param_t *param)
{
    ucs_status_ptr_t ret;

    param->op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
    param->flags = UCP_AM_SEND_FLAG_EAGER;
    ret = header ? ucp_am_send_nbx(peer->eps[0], id, buf, len, NULL, 0, param)
                 : ucp_am_send_nbx(peer->eps[0], id, NULL, 0, buf, len, param);
    if (UCS_PTR_IS_ERR(ret)) {
        MCA_PART_UCX_ERROR("control message to %s failed: %s", OPAL_NAME_PRINT(peer->name),
                           ucs_status_string(UCS_PTR_STATUS(ret)));
    }
    return ret;
}

int mca_part_ucx_ctrl_send(mca_part_ucx_peer_t *peer, unsigned id, const void *buf, size_t len,
                           void **op)
{
    ucp_request_param_t param = {0};
    ucs_status_ptr_t ret = mca_part_ucx_ctrl_am_send(peer, id, buf, len, false, &param);

    *op = UCS_PTR_IS_PTR(ret) ? ret : NULL;
    return UCS_PTR_IS_ERR(ret) ? OMPI_ERROR : OMPI_SUCCESS;
}

static void mca_part_ucx_owned_sent_cb(void *op, ucs_status_t status, void *user_data)
{
    (void) status;
    free(user_data);
    ucp_request_free(op);
}

/* A control message whose buffer goes with it: freed once sent. */
static void mca_part_ucx_ctrl_send_owned(mca_part_ucx_peer_t *peer, unsigned id, void *buf,
                                         size_t len, bool header)
{
    ucp_request_param_t param = {0};
    ucs_status_ptr_t ret;

    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send = mca_part_ucx_owned_sent_cb;
    param.user_data = buf;
    ret = mca_part_ucx_ctrl_am_send(peer, id, buf, len, header, &param);
    if (!UCS_PTR_IS_PTR(ret)) {
        free(buf);
    }
}

void mca_part_ucx_ctrl_rtr_released(mca_part_ucx_peer_t *peer, const mca_part_ucx_rtr_msg_t *rtr,
                                    bool sent)
{
    ucp_worker_h w0 = mca_part_ucx_module.workers[0];
    ucp_request_param_t param = {0};
    mca_part_ucx_rtr_msg_t *msg;

    /* this message may overtake a put on its way: the ready-to-receive
     * puts and messages land first */
    if (sent && UCS_OK != mca_part_ucx_wait(w0, ucp_ep_flush_nbx(peer->eps[0], &param))) {
        return; /* the sender keeps its word: wasted, never written wrongly */
    }
    if (NULL == (msg = malloc(sizeof(*msg)))) {
        return;
    }
    *msg = *rtr;
    msg->epoch = MCA_PART_UCX_RTR_RELEASED;
    /* as a header, as every ready-to-receive message (mca_part_ucx_rtr_cb) */
    mca_part_ucx_ctrl_send_owned(peer, MCA_PART_UCX_AM_RTR, msg, sizeof(*msg), true);
}

/* Tell the sender of a setup record that no receive will use it (the
 * receive it matched was freed, or the record was unusable): its request
 * fails instead of waiting. */
static void mca_part_ucx_setup_refuse(const mca_part_ucx_setup_msg_t *msg, int error)
{
    mca_part_ucx_peer_t *peer = mca_part_ucx_peer_get_by_name(&msg->sender);
    mca_part_ucx_ack_msg_t *ack;

    if (NULL == peer || NULL == (ack = calloc(1, sizeof(*ack)))) {
        return;
    }
    ack->sreq_id = msg->sreq_id;
    ack->sreq_cookie = msg->sreq_cookie;
    ack->rreq_id = -1;
    ack->error = error;
    mca_part_ucx_ctrl_send_owned(peer, MCA_PART_UCX_AM_ACK, ack, sizeof(*ack), false);
}

static uint64_t *mca_part_ucx_seq_slot(opal_hash_table_t *table,
                                       const ompi_comm_extended_cid_t *cid,
                                       const opal_process_name_t *name)
{
    mca_part_ucx_seq_key_t key;
    uint64_t *slot = NULL;

    memset(&key, 0, sizeof(key));
    key.cid = *cid;
    key.name = *name;
    if (OPAL_SUCCESS != opal_hash_table_get_value_ptr(table, &key, sizeof(key),
                                                      (void **) &slot)) {
        slot = calloc(1, sizeof(*slot));
        if (NULL == slot) {
            return NULL;
        }
        opal_hash_table_set_value_ptr(table, &key, sizeof(key), slot);
    }
    return slot;
}

/* The sequence number is taken and the record sent under the module lock,
 * and given back if the send fails: a number the receiver never sees would
 * hold every later record of this (communicator id, receiver) forever. The
 * counters outlive communicators on purpose: records of a communicator
 * freed while they travel stay in order with those of the next one that
 * gets its id (each is matched by the receive, or the tombstone of one,
 * that its own init paired it with). */
int mca_part_ucx_ctrl_send_setup(mca_part_ucx_peer_t *peer, ompi_communicator_t *comm,
                                 mca_part_ucx_setup_msg_t *msg, size_t len, void **op)
{
    ompi_comm_extended_cid_t cid = ompi_comm_get_extended_cid(comm);
    uint64_t *slot;
    int rc;

    OPAL_THREAD_LOCK(&mca_part_ucx_module.lock);
    slot = mca_part_ucx_seq_slot(&mca_part_ucx_module.seq_out, &cid, &peer->name);
    if (NULL == slot) {
        OPAL_THREAD_UNLOCK(&mca_part_ucx_module.lock);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    msg->seq = *slot;
    rc = mca_part_ucx_ctrl_send(peer, MCA_PART_UCX_AM_SETUP, msg, len, op);
    if (OMPI_SUCCESS == rc) {
        ++*slot;
    }
    OPAL_THREAD_UNLOCK(&mca_part_ucx_module.lock);
    return rc;
}

static mca_part_ucx_bucket_t *mca_part_ucx_bucket(const ompi_comm_extended_cid_t *cid,
                                                  int32_t src, int32_t tag, bool create)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_match_key_t key;
    mca_part_ucx_bucket_t *b = NULL;

    memset(&key, 0, sizeof(key));
    key.cid = *cid;
    key.src = src;
    key.tag = tag;
    if (OPAL_SUCCESS == opal_hash_table_get_value_ptr(&m->match, &key, sizeof(key), (void **) &b) ||
        !create) {
        return b;
    }
    b = malloc(sizeof(*b));
    if (NULL == b) {
        return NULL;
    }
    b->key = key;
    mca_part_ucx_link_init(&b->posted);
    mca_part_ucx_link_init(&b->unexpected);
    if (OPAL_SUCCESS != opal_hash_table_set_value_ptr(&m->match, &key, sizeof(key), b)) {
        free(b);
        return NULL;
    }
    return b;
}

/* An empty bucket goes: buckets live as long as something waits in them. */
static void mca_part_ucx_bucket_trim(mca_part_ucx_bucket_t *b)
{
    if (mca_part_ucx_link_empty(&b->posted) && mca_part_ucx_link_empty(&b->unexpected)) {
        opal_hash_table_remove_value_ptr(&mca_part_ucx_module.match, &b->key, sizeof(b->key));
        free(b);
    }
}

/* The receive (or tombstone) at the head of a bucket takes the record. */
static void mca_part_ucx_match_pair(mca_part_ucx_post_t *post, mca_part_ucx_setup_msg_t *msg)
{
    mca_part_ucx_link_remove(&post->link);
    post->bucket = NULL;
    if (post->tombstone) {
        MCA_PART_UCX_VERBOSE(10, "setup record of rank %d tag %d for a receive freed before it: "
                             "refused", msg->src, msg->tag);
        mca_part_ucx_setup_refuse(msg, MPI_ERR_REQUEST);
        free(post);
    } else {
        if (MPI_SUCCESS != msg->error) {
            mca_part_ucx_setup_refuse(msg, msg->error);
        }
        mca_part_ucx_handlers.matched(post, msg);
    }
    free(msg);
}

/* Every receive matches setup records of its (communicator, source, tag)
 * in the order the sender initialized them: records are considered in
 * sequence order, and posted receives in the order they were created. */
static void mca_part_ucx_match_msg(mca_part_ucx_setup_msg_t *msg)
{
    mca_part_ucx_bucket_t *b = mca_part_ucx_bucket(&msg->cid, msg->src, msg->tag, true);

    if (NULL == b) {
        mca_part_ucx_setup_refuse(msg, MPI_ERR_NO_MEM);
        free(msg);
        return;
    }
    if (!mca_part_ucx_link_empty(&b->posted)) {
        mca_part_ucx_match_pair(container_of(b->posted.next, mca_part_ucx_post_t, link),
                                msg);
        mca_part_ucx_bucket_trim(b);
        return;
    }
    mca_part_ucx_link_append(&b->unexpected, &msg->link);
    mca_part_ucx_count(MCA_PART_UCX_PVAR_SETUP_UNEXPECTED, 1);
}

int mca_part_ucx_match_posted(mca_part_ucx_post_t *post, ompi_communicator_t *comm, int src,
                              int tag)
{
    ompi_comm_extended_cid_t cid = ompi_comm_get_extended_cid(comm);
    mca_part_ucx_bucket_t *b = mca_part_ucx_bucket(&cid, src, tag, true);
    mca_part_ucx_setup_msg_t *msg;

    if (NULL == b) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    post->tombstone = false;
    if (!mca_part_ucx_link_empty(&b->unexpected)) {
        msg = container_of(b->unexpected.next, mca_part_ucx_setup_msg_t, link);
        mca_part_ucx_link_remove(&msg->link);
        mca_part_ucx_link_append(&b->posted, &post->link); /* at once out again */
        mca_part_ucx_match_pair(post, msg);
        mca_part_ucx_bucket_trim(b);
        return OMPI_SUCCESS;
    }
    post->bucket = b;
    mca_part_ucx_link_append(&b->posted, &post->link);
    return OMPI_SUCCESS;
}

void mca_part_ucx_match_withdraw(mca_part_ucx_post_t *post)
{
    mca_part_ucx_post_t *tomb;

    if (NULL == post->bucket) {
        return; /* matched, or never posted */
    }
    tomb = malloc(sizeof(*tomb));
    if (NULL == tomb) {
        /* Without one, the next receive of the bucket would take this
         * one's record: say so rather than let data go astray unnoticed. */
        MCA_PART_UCX_ERROR("no memory to withdraw a freed receive from rank %d tag %d; "
                           "a later receive of that tag may be matched wrongly",
                           post->bucket->key.src, post->bucket->key.tag);
        mca_part_ucx_link_remove(&post->link);
        mca_part_ucx_bucket_trim(post->bucket);
        post->bucket = NULL;
        return;
    }
    /* in its place in the list, so that the order of later receives stays */
    tomb->tombstone = true;
    tomb->bucket = post->bucket;
    tomb->link = post->link;
    tomb->link.prev->next = &tomb->link;
    tomb->link.next->prev = &tomb->link;
    post->link.prev = post->link.next = NULL;
    post->bucket = NULL;
}

/* A freed communicator: its id may come back with the next one created.
 * Setup records still unexpected can be for no receive any more (receives
 * are posted on a live communicator only): they go, their senders told.
 * Receives and tombstones stay: each still owns a record on its way. */
static int mca_part_ucx_comm_delete(ompi_communicator_t *comm, int keyval, void *attr,
                                    void *extra)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    ompi_comm_extended_cid_t cid = ompi_comm_get_extended_cid(comm);
    mca_part_ucx_bucket_t *b, **dead = NULL;
    mca_part_ucx_setup_msg_t *msg;
    size_t n = 0, cap = 0, i;
    void *key, *node = NULL;
    size_t key_size;
    int rc;

    (void) keyval;
    (void) extra;
    if (NULL != attr) {
        mca_part_ucx_comm_state_t *state = attr;
        if (NULL != state->coll_comm) {
            (void) ompi_comm_free(&state->coll_comm);
        }
        free(state);
    }
    if (!m->initialized) {
        return OMPI_SUCCESS;
    }
    OPAL_THREAD_LOCK(&m->lock);
    for (rc = opal_hash_table_get_first_key_ptr(&m->match, &key, &key_size, (void **) &b, &node);
         OPAL_SUCCESS == rc;
         rc = opal_hash_table_get_next_key_ptr(&m->match, &key, &key_size, (void **) &b, node,
                                               &node)) {
        if (0 != memcmp(&b->key.cid, &cid, sizeof(cid)) ||
            mca_part_ucx_link_empty(&b->unexpected)) {
            continue;
        }
        if (!mca_part_ucx_grow((void **) &dead, n, &cap, sizeof(*dead))) {
            break;
        }
        dead[n++] = b;
    }
    for (i = 0; i < n; ++i) { /* the table is not changed while walked */
        b = dead[i];
        while (!mca_part_ucx_link_empty(&b->unexpected)) {
            msg = container_of(b->unexpected.next, mca_part_ucx_setup_msg_t, link);
            mca_part_ucx_link_remove(&msg->link);
            MCA_PART_UCX_VERBOSE(5, "communicator freed: setup record of rank %d tag %d matched "
                                 "no receive", msg->src, msg->tag);
            mca_part_ucx_setup_refuse(msg, MPI_ERR_COMM);
            free(msg);
        }
        mca_part_ucx_bucket_trim(b);
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    free(dead);
    return OMPI_SUCCESS;
}

mca_part_ucx_comm_state_t *mca_part_ucx_comm_state(ompi_communicator_t *comm)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    ompi_attribute_fn_ptr_union_t copy_fn, del_fn;
    void *value;
    int flag = 0, rc;

    OPAL_THREAD_LOCK(&m->lock);
    if (MPI_KEYVAL_INVALID == m->comm_keyval) {
        copy_fn.attr_communicator_copy_fn = (MPI_Comm_copy_attr_function *) MPI_COMM_NULL_COPY_FN;
        del_fn.attr_communicator_delete_fn =
            (MPI_Comm_delete_attr_function *) mca_part_ucx_comm_delete;
        /* a reference of our own on the attribute system: our keyval is
         * given back at finalize, after the communicators' reference */
        rc = ompi_attr_get_ref();
        if (OMPI_SUCCESS == rc) {
            rc = ompi_attr_create_keyval(COMM_ATTR, copy_fn, del_fn, &m->comm_keyval, NULL, 0,
                                         NULL);
            if (OMPI_SUCCESS != rc) {
                (void) ompi_attr_put_ref();
            }
        }
        if (OMPI_SUCCESS != rc) {
            m->comm_keyval = MPI_KEYVAL_INVALID;
            OPAL_THREAD_UNLOCK(&m->lock);
            return NULL;
        }
    }
    rc = ompi_attr_get_c(comm->c_keyhash, m->comm_keyval, &value, &flag);
    if (OMPI_SUCCESS == rc && !flag) {
        value = calloc(1, sizeof(mca_part_ucx_comm_state_t));
        rc = (NULL == value) ? OMPI_ERR_OUT_OF_RESOURCE
                             : ompi_attr_set_c(COMM_ATTR, comm, &comm->c_keyhash,
                                               m->comm_keyval, value, false);
        if (OMPI_SUCCESS != rc) {
            free(value);
        }
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    return (OMPI_SUCCESS == rc) ? value : NULL;
}

static void mca_part_ucx_handle_setup(mca_part_ucx_setup_msg_t *msg, size_t len)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_held_key_t hkey;
    uint64_t *expected;

    if (len < sizeof(*msg)) {
        MCA_PART_UCX_ERROR("malformed setup record dropped");
        free(msg);
        return;
    }
    /* One that cannot be used still takes its place in the sequence, and
     * fails the receive it matches (and its sender), not every later one. */
    msg->error = MPI_SUCCESS;
    if (msg->rtr_rkey_len > MCA_PART_UCX_MAX_RKEY || len < sizeof(*msg) + msg->rtr_rkey_len) {
        MCA_PART_UCX_ERROR("malformed setup record from rank %d tag %d", msg->src, msg->tag);
        msg->error = MPI_ERR_INTERN;
    }
    MCA_PART_UCX_VERBOSE(10, "setup from %s rank %d tag %d seq %" PRIu64 " parts %" PRIu64
                         " bytes %" PRIu64, OPAL_NAME_PRINT(msg->sender), msg->src, msg->tag,
                         msg->seq, msg->parts, msg->total_bytes);

    expected = mca_part_ucx_seq_slot(&m->seq_in, &msg->cid, &msg->sender);
    if (NULL == expected) {
        MCA_PART_UCX_ERROR("no memory for a setup record: records from %s are stuck",
                           OPAL_NAME_PRINT(msg->sender));
        free(msg);
        return;
    }
    memset(&hkey, 0, sizeof(hkey));
    hkey.cid = msg->cid;
    hkey.sender = msg->sender;
    if (msg->seq != *expected) {
        /* Arrived ahead of an earlier record of the same sender: hold it
         * (a second one of the same number is not the sender's). */
        void *dup = NULL;
        hkey.seq = msg->seq;
        if (msg->seq < *expected ||
            OPAL_SUCCESS == opal_hash_table_get_value_ptr(&m->setup_ahead, &hkey, sizeof(hkey),
                                                          &dup) ||
            OPAL_SUCCESS != opal_hash_table_set_value_ptr(&m->setup_ahead, &hkey, sizeof(hkey),
                                                          msg)) {
            MCA_PART_UCX_ERROR("setup record out of sequence dropped");
            free(msg);
        }
        return;
    }
    for (;;) {
        ++*expected;
        mca_part_ucx_match_msg(msg);
        /* the next one may have been held */
        hkey.seq = *expected;
        if (OPAL_SUCCESS != opal_hash_table_get_value_ptr(&m->setup_ahead, &hkey, sizeof(hkey),
                                                          (void **) &msg)) {
            break;
        }
        opal_hash_table_remove_value_ptr(&m->setup_ahead, &hkey, sizeof(hkey));
    }
}

int mca_part_ucx_ctrl_progress(void)
{
    mca_part_ucx_module_t *m = &mca_part_ucx_module;
    mca_part_ucx_ctrl_item_t *item;
    mca_part_ucx_link_t batch, *link;
    int count = 0;

    if (0 == mca_part_ucx_num_incoming) {
        return 0;
    }
    /* Take the whole queue, then handle it under the module lock only. */
    mca_part_ucx_link_init(&batch);
    OPAL_THREAD_LOCK(&mca_part_ucx_incoming_lock);
    while (!mca_part_ucx_link_empty(&mca_part_ucx_incoming)) {
        link = mca_part_ucx_incoming.next;
        mca_part_ucx_link_remove(link);
        mca_part_ucx_link_append(&batch, link);
        opal_atomic_add_fetch_32(&mca_part_ucx_num_incoming, -1);
    }
    OPAL_THREAD_UNLOCK(&mca_part_ucx_incoming_lock);

    OPAL_THREAD_LOCK(&m->lock);
    while (!mca_part_ucx_link_empty(&batch)) {
        link = batch.next;
        mca_part_ucx_link_remove(link);
        item = container_of(link, mca_part_ucx_ctrl_item_t, link);
        if (MCA_PART_UCX_AM_SETUP == item->id) {
            /* The record is kept until matched, in the item's own memory
             * (moved to its start: no allocation that could fail and lose
             * a record here). */
            size_t len = item->len;
            memmove(item, item->data, len);
            mca_part_ucx_handle_setup((mca_part_ucx_setup_msg_t *) item, len);
        } else {
            mca_part_ucx_handlers.answer((const mca_part_ucx_ack_msg_t *) item->data, item->len);
            free(item);
        }
        ++count;
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    return count;
}
