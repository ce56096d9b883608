/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Where a user buffer lives. It is asked once, at init, through opal's
 * accelerator framework (no CUDA symbols in libmpi), and then handed to
 * UCX explicitly: UCX 1.13 otherwise guesses from its memtype cache, which
 * misses allocations it did not see (CUDA VMM, pools, a runtime resolving
 * driver entry points itself) and then copies GPU memory with the CPU.
 */

#ifndef MCA_PART_UCX_MEMTYPE_H
#define MCA_PART_UCX_MEMTYPE_H

#include "opal/mca/accelerator/accelerator.h"

#include <string.h>
#include <ucp/api/ucp.h>

static inline bool mca_part_ucx_is_device(const void *addr, size_t len)
{
    uint64_t flags = 0;
    int dev = 0;

    return len > 0 && opal_accelerator.check_addr(addr, &dev, &flags) > 0;
}

static inline ucs_memory_type_t mca_part_ucx_memtype(bool device)
{
    return device ? UCS_MEMORY_TYPE_CUDA : UCS_MEMORY_TYPE_HOST;
}

/* part_ucx_device_plugin.c: on a non-blocking stream, where a kernel on
 * the legacy default stream may poll MPIX_Parrived for the same data. */
int mca_part_ucx_device_copy_in(void *dst, const void *src, size_t len);

/* Copy a partition that arrived in host memory into the user buffer. */
static inline int mca_part_ucx_copy_in(void *dst, const void *src, size_t len, bool device)
{
    if (!device) {
        memcpy(dst, src, len);
        return OPAL_SUCCESS;
    }
    return mca_part_ucx_device_copy_in(dst, src, len);
}

#endif /* MCA_PART_UCX_MEMTYPE_H */
