/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Device requests (MPIX_Prequest_create/free, part_ucx_devreq.c): bound to
 * a request, they reach it through its hooks (mca_part_ucx_dev_ops_t).
 */

#ifndef MCA_PART_UCX_DEVREQ_H
#define MCA_PART_UCX_DEVREQ_H

#include "part_ucx_request.h"

BEGIN_C_DECLS

/* The words of a request's device request that stream-ordered epochs
 * write and wait on (host memory mapped for the GPU); NULL where there are
 * none. epoch: the epoch kernels work in; stream_epoch and done, only for a
 * kernel copy whose kernels complete epochs themselves: the epoch a stream
 * started last, and the last epoch whose data left the send buffer. */
typedef struct mca_part_ucx_dev_words_t {
    volatile uint64_t *epoch;
    volatile uint64_t *stream_epoch;
    volatile uint64_t *done;
    const volatile uint64_t *error;
} mca_part_ucx_dev_words_t;

void mca_part_ucx_dev_stream_words(mca_part_ucx_request_t *req, mca_part_ucx_dev_words_t *w);

/* At finalize: what device requests and the device plugin keep. */
void mca_part_ucx_dev_fini(void);

END_C_DECLS

#endif /* MCA_PART_UCX_DEVREQ_H */
