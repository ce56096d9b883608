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

/* At finalize: what device requests and the device plugin keep. */
void mca_part_ucx_dev_fini(void);

END_C_DECLS

#endif /* MCA_PART_UCX_DEVREQ_H */
