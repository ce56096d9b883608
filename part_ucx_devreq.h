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
 * write and wait on; NULL where there are none. epoch (host memory mapped
 * for the GPU): the epoch kernels work in, for MPIX_Parrived and the host.
 * Only for a kernel copy whose kernels complete epochs themselves: the
 * kernels' copy of the epoch and the epoch a stream started last (GPU
 * memory), the last epoch whose data left the send buffer (done: host
 * memory, for MPI_Wait; done_dev: GPU memory, for the stream). */
typedef struct mca_part_ucx_dev_words_t {
    volatile uint64_t *epoch;
    volatile uint64_t *epoch_dev;
    volatile uint64_t *started_dev;
    volatile uint64_t *done;
    volatile uint64_t *done_dev;
    bool gpu_scope; /* the kernels release at GPU scope (mark_gpu_scope) */
} mca_part_ucx_dev_words_t;

void mca_part_ucx_dev_stream_words(mca_part_ucx_request_t *req, mca_part_ucx_dev_words_t *w);

/* A progress-engine send whose stream moves the epochs it starts (within a
 * node, part_ucx_stream_copy_engine): the start sets epoch_dev to the
 * epoch (the kernels read it) and groups_dev to 0 (their count of the
 * groups they completed, which a host-started epoch with partitions the
 * host readied may have left behind); the epoch left the send buffer once
 * *sent reaches it. */
typedef struct mca_part_ucx_dev_copy_words_t {
    volatile uint64_t *epoch_dev;
    volatile uint64_t *groups_dev;
    const volatile uint64_t *sent;
} mca_part_ucx_dev_copy_words_t;

/* false: the host runs the request's stream-ordered epochs. */
bool mca_part_ucx_dev_stream_copy_words(mca_part_ucx_request_t *req,
                                        mca_part_ucx_dev_copy_words_t *w);

/* The epoch's copy on stream, at its MPIX_Wait_enqueue (the device
 * plugin's stream_copy; count: a captured epoch's pair, whose epoch the
 * stream reads when it gets there). 0 or negative. */
int mca_part_ucx_dev_stream_copy(mca_part_ucx_request_t *req, void *stream, uint64_t epoch,
                                 volatile uint64_t *count);

/* A stream-only kernel-copy send whose kernels only mark
 * (part_ucx_stream_copy_after_bytes): each MPIX_Wait_enqueue copies the
 * epoch after them and completes it on both sides (the device plugin's
 * stream_copy_after). 0 or negative. */
bool mca_part_ucx_dev_copies_after(const mca_part_ucx_request_t *req);
int mca_part_ucx_dev_stream_copy_after(mca_part_ucx_request_t *req, void *stream);

/* *started_dev of a send whose kernels count its epochs
 * (MPIX_PREQUEST_STREAM_KERNELS of mpix_part_device.h). */
#define MCA_PART_UCX_DEV_STREAM_KERNELS UINT64_MAX

/* At finalize: what device requests and the device plugin keep. */
void mca_part_ucx_dev_fini(void);

END_C_DECLS

#endif /* MCA_PART_UCX_DEVREQ_H */
