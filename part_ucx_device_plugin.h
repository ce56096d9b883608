/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

#ifndef MCA_PART_UCX_DEVICE_PLUGIN_H
#define MCA_PART_UCX_DEVICE_PLUGIN_H

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include "part_ucx_device.h"

BEGIN_C_DECLS

/* The plugin's table, loaded on first use; NULL (after one help message)
 * where it is missing or cannot run. */
const mca_part_ucx_device_ops_t *mca_part_ucx_device(void);
/* Events and streams from process-wide pools (the plugin must be loaded);
 * put back only once their work is complete. */
int mca_part_ucx_device_event_get(void **event);
void mca_part_ucx_device_event_put(void *event);
int mca_part_ucx_device_stream_get(void **stream);
void mca_part_ucx_device_stream_put(void *stream);
/* A copy of host memory into GPU memory, complete on return, on a
 * non-blocking stream: opal's accelerator copies on a stream that waits
 * for the legacy default stream, where a kernel may be polling
 * MPIX_Parrived for this very data. Without the plugin, opal's copy. */
int mca_part_ucx_device_copy_in(void *dst, const void *src, size_t len);
/* The plugin and that stream ready before the first copy (a UCX callback). */
void mca_part_ucx_device_copy_in_warm(void);
/* At finalize: the pools' streams and events destroyed. */
void mca_part_ucx_device_fini(void);
/* The kernel's element type or operation; -1 where the plugin has none. */
int mca_part_ucx_device_dt(ompi_datatype_t *dtype);
int mca_part_ucx_device_op(ompi_op_t *op);

END_C_DECLS

#endif /* MCA_PART_UCX_DEVICE_PLUGIN_H */
