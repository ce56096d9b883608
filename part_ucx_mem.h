/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Remotely written control words (arrival flags, ready-to-receive words)
 * come from a few large UCX-allocated, registered chunks: mapping memory
 * per request would cost more than the whole MPI_Psend_init budget, and
 * UCX-allocated memory is shared memory that peers on the node write with
 * plain stores.
 */

#ifndef MCA_PART_UCX_MEM_H
#define MCA_PART_UCX_MEM_H

#include "part_ucx.h"

BEGIN_C_DECLS

typedef struct mca_part_ucx_chunk_t mca_part_ucx_chunk_t;

typedef struct mca_part_ucx_block_t {
    void *addr;
    size_t size;
    mca_part_ucx_chunk_t *chunk;
} mca_part_ucx_block_t;

/* Zeroed, 64-byte aligned; the caller holds the module lock. */
int mca_part_ucx_block_alloc(size_t size, mca_part_ucx_block_t *block);
/* Zeroed, 64-byte aligned, pinned and mapped for the GPU (at the same
 * address); local use only, no rkey. The caller holds the module lock. */
int mca_part_ucx_block_alloc_mapped(size_t size, mca_part_ucx_block_t *block);
/* Either kind of block. */
void mca_part_ucx_block_free(mca_part_ucx_block_t *block);
/* Instead of the free of a block that a peer may still write (by RMA, at
 * the address it was given): never handed out again; its chunk goes at
 * mca_part_ucx_mem_fini. The caller holds the module lock. */
void mca_part_ucx_block_retire(mca_part_ucx_block_t *block);
/* Address and size of the block's chunk. */
void mca_part_ucx_block_chunk(const mca_part_ucx_block_t *block, uint64_t *addr, uint64_t *size);
/* The packed rkey of the block's chunk, valid until mca_part_ucx_mem_fini. */
const void *mca_part_ucx_block_rkey(const mca_part_ucx_block_t *block, size_t *len);
/* Make the block's chunk readable and writable by GPU kernels (pinned,
 * mapped into the device address space at the same address); once per
 * chunk, the caller holds the module lock. */
int mca_part_ucx_block_device_map(const mca_part_ucx_block_t *block);
/* Map the chunk the next control blocks come from for the GPU now: the
 * registration (about 150 us for a chunk of UCX shared memory) then falls
 * on an init, not on the first epoch of a GPU receive. */
void mca_part_ucx_mem_device_warm(void);
/* GPU memory of the current device for device requests and collective
 * scratch: an allocation costs tens of microseconds and a free
 * synchronises the device, so freed ones (up to 64 MiB each, 256 MiB in
 * all) are kept for later inits until finalize. The free takes the size
 * and device the allocation gave. Thread safe. */
int mca_part_ucx_devmem_alloc(size_t size, void **ptr, int *dev_id);
/* [addr, addr + len) of GPU memory registered with UCX, so that a peer's
 * cuda_ipc rkey_ptr maps it (the memory type given: no detection). *memh
 * is NULL on error. */
int mca_part_ucx_mem_map_gpu(void *addr, size_t len, ucp_mem_h *memh);
void mca_part_ucx_devmem_free(void *ptr, size_t size, int dev_id);
/* The current GPU's PCI address (domain, bus, device, function) as one
 * number, so that two processes can tell whether they share a GPU; 0 where
 * there is none or it is unknown. */
uint64_t mca_part_ucx_gpu_id(void);
/* Whether buf is in the memory of this thread's current GPU. */
bool mca_part_ucx_on_this_gpu(const void *buf);
void mca_part_ucx_mem_fini(void);

END_C_DECLS

#endif /* MCA_PART_UCX_MEM_H */
