/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Stream-ordered epochs (part_ucx_stream.c; MPIX_Start_enqueue and
 * MPIX_Wait_enqueue are the module entries of part_ucx_mpix.h).
 */

#ifndef MCA_PART_UCX_STREAM_H
#define MCA_PART_UCX_STREAM_H

BEGIN_C_DECLS

/* At finalize, first: the progress thread of host-run epochs stopped. */
void mca_part_ucx_stream_fini(void);

END_C_DECLS

#endif /* MCA_PART_UCX_STREAM_H */
