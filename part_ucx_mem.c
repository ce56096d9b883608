/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#include "ompi_config.h"

#include "part_ucx_mem.h"
#include "part_ucx_device_plugin.h"

#include "opal/mca/accelerator/accelerator.h"
#include "opal/mca/timer/base/base.h"

#include <unistd.h>

#define MCA_PART_UCX_CHUNK_SIZE (1024 * 1024)
#define MCA_PART_UCX_MIN_BLOCK  64
#define MCA_PART_UCX_CLASSES    48
#define MCA_PART_UCX_MAPPED_CHUNK_SIZE (256 * 1024)

struct mca_part_ucx_chunk_t {
    mca_part_ucx_chunk_t *next;
    ucp_mem_h memh;
    char *base;
    size_t size;
    size_t used;
    void *rkey;
    size_t rkey_len;
    bool device_mapped;             /* the GPU can read and write it */
    bool device_registered;         /* ... through our registration: undone at fini */
    bool device_map_failed;         /* ... and that was refused: not again */
    int pool;                       /* MCA_PART_UCX_POOL_* */
};

/* UCX-allocated chunks (remotely written words) and private pinned chunks
 * mapped for the GPU (words kernels read or write). */
enum { MCA_PART_UCX_POOL_UCX, MCA_PART_UCX_POOL_MAPPED, MCA_PART_UCX_POOLS };

/* Free blocks of each power-of-two size, linked through their first word. */
typedef struct mca_part_ucx_free_t {
    struct mca_part_ucx_free_t *next;
    mca_part_ucx_chunk_t *chunk;
} mca_part_ucx_free_t;

static mca_part_ucx_chunk_t *mca_part_ucx_chunks[MCA_PART_UCX_POOLS];
static mca_part_ucx_free_t *mca_part_ucx_free_lists[MCA_PART_UCX_POOLS][MCA_PART_UCX_CLASSES];

static int mca_part_ucx_size_class(size_t size, size_t *rounded)
{
    size_t s = MCA_PART_UCX_MIN_BLOCK;
    int c = 0;

    while (s < size) {
        s <<= 1;
        ++c;
    }
    *rounded = s;
    return c;
}

static mca_part_ucx_chunk_t *mca_part_ucx_chunk_new(size_t need)
{
    ucp_mem_map_params_t params = {0};
    ucp_mem_attr_t attr = {0};
    mca_part_ucx_chunk_t *chunk;
    ucs_status_t status;
    opal_timer_t t0 = opal_timer_base_get_usec();

    chunk = calloc(1, sizeof(*chunk));
    if (NULL == chunk) {
        return NULL;
    }
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    params.length = (need > MCA_PART_UCX_CHUNK_SIZE) ? need : MCA_PART_UCX_CHUNK_SIZE;
    params.flags = UCP_MEM_MAP_ALLOCATE;
    status = ucp_mem_map(mca_part_ucx_module.context, &params, &chunk->memh);
    if (UCS_OK != status) {
        MCA_PART_UCX_ERROR("allocating %zu bytes of registered memory failed: %s", params.length,
                           ucs_status_string(status));
        free(chunk);
        return NULL;
    }
    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
    status = ucp_mem_query(chunk->memh, &attr);
    if (UCS_OK == status) {
        status = ucp_rkey_pack(mca_part_ucx_module.context, chunk->memh, &chunk->rkey,
                               &chunk->rkey_len);
    }
    if (UCS_OK != status) {
        ucp_mem_unmap(mca_part_ucx_module.context, chunk->memh);
        free(chunk);
        return NULL;
    }
    chunk->base = attr.address;
    chunk->size = attr.length;
    chunk->pool = MCA_PART_UCX_POOL_UCX;
    MCA_PART_UCX_VERBOSE(5, "registered control chunk of %zu bytes: %llu us", chunk->size,
                         (unsigned long long) (opal_timer_base_get_usec() - t0));
    return chunk;
}

/* Private pages: the accelerator can pin them, where it may refuse UCX's
 * shared-memory chunks (cuMemHostRegister does on some nodes). */
static mca_part_ucx_chunk_t *mca_part_ucx_chunk_new_mapped(size_t need)
{
    size_t page = (size_t) sysconf(_SC_PAGESIZE);
    size_t size = (need > MCA_PART_UCX_MAPPED_CHUNK_SIZE) ? need : MCA_PART_UCX_MAPPED_CHUNK_SIZE;
    mca_part_ucx_chunk_t *chunk = calloc(1, sizeof(*chunk));
    void *addr = NULL;

    size = (size + page - 1) / page * page;
    if (NULL == chunk || 0 != posix_memalign(&addr, page, size)) {
        free(chunk);
        return NULL;
    }
    if (OPAL_SUCCESS != opal_accelerator.host_register(MCA_ACCELERATOR_NO_DEVICE_ID, addr, size)) {
        free(addr);
        free(chunk);
        return NULL;
    }
    chunk->base = addr;
    chunk->size = size;
    chunk->device_mapped = chunk->device_registered = true;
    chunk->pool = MCA_PART_UCX_POOL_MAPPED;
    MCA_PART_UCX_VERBOSE(5, "pinned chunk of %zu bytes mapped for the GPU", size);
    return chunk;
}

static int mca_part_ucx_pool_alloc(int pool, size_t size, mca_part_ucx_block_t *block)
{
    mca_part_ucx_free_t *f;
    mca_part_ucx_chunk_t *chunk;
    size_t rounded;
    int c = mca_part_ucx_size_class(size, &rounded);

    if (c >= MCA_PART_UCX_CLASSES) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    f = mca_part_ucx_free_lists[pool][c];
    if (NULL != f) {
        mca_part_ucx_free_lists[pool][c] = f->next;
        block->addr = f;
        block->chunk = f->chunk;
    } else {
        for (chunk = mca_part_ucx_chunks[pool]; NULL != chunk; chunk = chunk->next) {
            if (chunk->size - chunk->used >= rounded) {
                break;
            }
        }
        if (NULL == chunk) {
            chunk = (MCA_PART_UCX_POOL_UCX == pool) ? mca_part_ucx_chunk_new(rounded)
                                                : mca_part_ucx_chunk_new_mapped(rounded);
            if (NULL == chunk) {
                return OMPI_ERR_OUT_OF_RESOURCE;
            }
            chunk->next = mca_part_ucx_chunks[pool];
            mca_part_ucx_chunks[pool] = chunk;
        }
        block->addr = chunk->base + chunk->used;
        block->chunk = chunk;
        chunk->used += rounded;
    }
    block->size = rounded;
    memset(block->addr, 0, rounded);
    return OMPI_SUCCESS;
}

int mca_part_ucx_block_alloc(size_t size, mca_part_ucx_block_t *block)
{
    return mca_part_ucx_pool_alloc(MCA_PART_UCX_POOL_UCX, size, block);
}

/* Words only this process writes, read by GPU kernels or written by them
 * (device requests, receive flags of GPU buffers, which the am transfer
 * sets locally). */
int mca_part_ucx_block_alloc_mapped(size_t size, mca_part_ucx_block_t *block)
{
    return mca_part_ucx_pool_alloc(MCA_PART_UCX_POOL_MAPPED, size, block);
}

void mca_part_ucx_block_free(mca_part_ucx_block_t *block)
{
    mca_part_ucx_free_t *f = block->addr;
    size_t rounded;
    int c;

    if (NULL == f) {
        return;
    }
    c = mca_part_ucx_size_class(block->size, &rounded);
    f->chunk = block->chunk;
    f->next = mca_part_ucx_free_lists[block->chunk->pool][c];
    mca_part_ucx_free_lists[block->chunk->pool][c] = f;
    block->addr = NULL;
}

void mca_part_ucx_block_retire(mca_part_ucx_block_t *block)
{
    /* Zeroed at the next allocation is not enough: a write that comes
     * after it would be taken for the new owner's. */
    if (NULL != block->addr) {
        MCA_PART_UCX_VERBOSE(10, "control block %p of %zu bytes retired: a peer may still "
                             "write it", block->addr, block->size);
    }
    block->addr = NULL;
}

void mca_part_ucx_block_chunk(const mca_part_ucx_block_t *block, uint64_t *addr, uint64_t *size)
{
    *addr = (NULL != block->chunk) ? (uint64_t) (uintptr_t) block->chunk->base : 0;
    *size = (NULL != block->chunk) ? block->chunk->size : 0; /* none: the setup failed */
}

const void *mca_part_ucx_block_rkey(const mca_part_ucx_block_t *block, size_t *len)
{
    if (NULL == block->chunk->rkey) {
        *len = 0; /* mapped pool: not remotely accessible */
        return NULL;
    }
    *len = block->chunk->rkey_len;
    return block->chunk->rkey;
}

int mca_part_ucx_block_device_map(const mca_part_ucx_block_t *block)
{
    mca_part_ucx_chunk_t *chunk = block->chunk;
    const mca_part_ucx_device_ops_t *gpu;
    int rc;

    if (chunk->device_mapped) {
        return OMPI_SUCCESS;
    }
    if (chunk->device_map_failed) {
        return OMPI_ERROR;
    }
    /* UCX's cuda_copy registers what ucp_mem_map allocates, mapped: a
     * second registration would be refused (already registered). */
    gpu = mca_part_ucx_device();
    if (NULL != gpu && gpu->host_mapped(chunk->base)) {
        chunk->device_mapped = true;
        MCA_PART_UCX_VERBOSE(5, "control chunk of %zu bytes already mapped for the GPU by UCX",
                             chunk->size);
        return OMPI_SUCCESS;
    }
    rc = opal_accelerator.host_register(MCA_ACCELERATOR_NO_DEVICE_ID, chunk->base, chunk->size);
    if (OPAL_SUCCESS != rc) {
        chunk->device_map_failed = true;
        return rc;
    }
    chunk->device_mapped = chunk->device_registered = true;
    MCA_PART_UCX_VERBOSE(5, "control chunk of %zu bytes mapped for the GPU", chunk->size);
    return OMPI_SUCCESS;
}

void mca_part_ucx_mem_device_warm(void)
{
    mca_part_ucx_block_t block;

    if (OMPI_SUCCESS == mca_part_ucx_block_alloc(MCA_PART_UCX_MIN_BLOCK, &block)) {
        (void) mca_part_ucx_block_device_map(&block);
        mca_part_ucx_block_free(&block);
    }
}

/* GPU memory kept for the next init, by power-of-two size and device. */
typedef struct mca_part_ucx_devmem_t {
    struct mca_part_ucx_devmem_t *next;
    void *ptr;
    int dev_id;
} mca_part_ucx_devmem_t;

#define MCA_PART_UCX_DEVMEM_MIN_CLASS 12 /* 4 KiB */
#define MCA_PART_UCX_DEVMEM_MAX_CLASS 26 /* 64 MiB: larger ones go back at once */
#define MCA_PART_UCX_DEVMEM_KEEP      ((size_t) 256 << 20)

static opal_mutex_t mca_part_ucx_devmem_lock = OPAL_MUTEX_STATIC_INIT;
static mca_part_ucx_devmem_t *mca_part_ucx_devmem_cached[MCA_PART_UCX_DEVMEM_MAX_CLASS + 1];
static size_t mca_part_ucx_devmem_kept = 0;

static int mca_part_ucx_devmem_class(size_t size)
{
    int c = MCA_PART_UCX_DEVMEM_MIN_CLASS;

    while (c <= MCA_PART_UCX_DEVMEM_MAX_CLASS && ((size_t) 1 << c) < size) {
        ++c;
    }
    return c; /* > MCA_PART_UCX_DEVMEM_MAX_CLASS: not kept */
}

uint64_t mca_part_ucx_gpu_id(void)
{
    opal_accelerator_pci_attr_t pci;
    int dev;

    if (OPAL_SUCCESS != opal_accelerator.get_device(&dev) || dev < 0 ||
        OPAL_SUCCESS != opal_accelerator.get_device_pci_attr(dev, &pci)) {
        return 0;
    }
    return ((uint64_t) pci.domain_id << 24 | (uint64_t) pci.bus_id << 16 |
            (uint64_t) pci.device_id << 8 | (uint64_t) pci.function_id) + 1;
}

bool mca_part_ucx_on_this_gpu(const void *buf)
{
    uint64_t flags;
    int dev = -1, cur;

    return NULL != buf && opal_accelerator.check_addr(buf, &dev, &flags) > 0 &&
           OPAL_SUCCESS == opal_accelerator.get_device(&cur) && dev == cur;
}

int mca_part_ucx_mem_map_gpu(void *addr, size_t len, ucp_mem_h *memh)
{
    ucp_mem_map_params_t params = {0};

    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                        UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
    params.address = addr;
    params.length = len;
    params.memory_type = UCS_MEMORY_TYPE_CUDA;
    if (UCS_OK != ucp_mem_map(mca_part_ucx_module.context, &params, memh)) {
        *memh = NULL;
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

int mca_part_ucx_devmem_alloc(size_t size, void **ptr, int *dev_id_out)
{
    int c = mca_part_ucx_devmem_class(size), dev_id = MCA_ACCELERATOR_NO_DEVICE_ID;
    mca_part_ucx_devmem_t *e = NULL, **prev;

    (void) opal_accelerator.get_device(&dev_id);
    *dev_id_out = dev_id;
    if (c <= MCA_PART_UCX_DEVMEM_MAX_CLASS) {
        OPAL_THREAD_LOCK(&mca_part_ucx_devmem_lock);
        for (prev = &mca_part_ucx_devmem_cached[c]; NULL != (e = *prev); prev = &e->next) {
            if (e->dev_id == dev_id) {
                *prev = e->next;
                mca_part_ucx_devmem_kept -= (size_t) 1 << c;
                break;
            }
        }
        OPAL_THREAD_UNLOCK(&mca_part_ucx_devmem_lock);
        if (NULL != e) {
            *ptr = e->ptr;
            free(e);
            return OMPI_SUCCESS;
        }
        size = (size_t) 1 << c;
    }
    return (OPAL_SUCCESS == opal_accelerator.mem_alloc(dev_id, ptr, size))
               ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

void mca_part_ucx_devmem_free(void *ptr, size_t size, int dev_id)
{
    int c = mca_part_ucx_devmem_class(size);
    mca_part_ucx_devmem_t *e = NULL;

    if (NULL == ptr) {
        return;
    }
    if (c <= MCA_PART_UCX_DEVMEM_MAX_CLASS) {
        e = malloc(sizeof(*e));
    }
    OPAL_THREAD_LOCK(&mca_part_ucx_devmem_lock);
    if (NULL != e && mca_part_ucx_devmem_kept + ((size_t) 1 << c) <= MCA_PART_UCX_DEVMEM_KEEP) {
        e->ptr = ptr;
        e->dev_id = dev_id;
        e->next = mca_part_ucx_devmem_cached[c];
        mca_part_ucx_devmem_cached[c] = e;
        mca_part_ucx_devmem_kept += (size_t) 1 << c;
        ptr = NULL;
    }
    OPAL_THREAD_UNLOCK(&mca_part_ucx_devmem_lock);
    if (NULL != ptr) {
        free(e);
        (void) opal_accelerator.mem_release(dev_id, ptr);
    }
}

static void mca_part_ucx_devmem_fini(void)
{
    mca_part_ucx_devmem_t *e;
    int c;

    for (c = 0; c <= MCA_PART_UCX_DEVMEM_MAX_CLASS; ++c) {
        while (NULL != (e = mca_part_ucx_devmem_cached[c])) {
            mca_part_ucx_devmem_cached[c] = e->next;
            (void) opal_accelerator.mem_release(e->dev_id, e->ptr);
            free(e);
        }
    }
    mca_part_ucx_devmem_kept = 0;
}

void mca_part_ucx_mem_fini(void)
{
    mca_part_ucx_chunk_t *chunk;
    int pool;

    mca_part_ucx_devmem_fini();
    for (pool = 0; pool < MCA_PART_UCX_POOLS; ++pool) {
        while (NULL != (chunk = mca_part_ucx_chunks[pool])) {
            mca_part_ucx_chunks[pool] = chunk->next;
            if (chunk->device_registered) {
                (void) opal_accelerator.host_unregister(MCA_ACCELERATOR_NO_DEVICE_ID, chunk->base);
            }
            if (MCA_PART_UCX_POOL_UCX == pool) {
                ucp_rkey_buffer_release(chunk->rkey);
                ucp_mem_unmap(mca_part_ucx_module.context, chunk->memh);
            } else {
                free(chunk->base);
            }
            free(chunk);
        }
    }
    memset(mca_part_ucx_free_lists, 0, sizeof(mca_part_ucx_free_lists));
}
