/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * MPI_T performance variables of part/ucx (part_ucx_pvar.c): process-wide
 * counters, one relaxed atomic add per batch of partitions or message.
 */

#ifndef MCA_PART_UCX_PVAR_H
#define MCA_PART_UCX_PVAR_H

#include "ompi_config.h"

#include "opal/mca/mca.h"
#include "opal/sys/atomic.h"

typedef enum {
    MCA_PART_UCX_PVAR_PARTS_PUT,        /* partitions sent by put */
    MCA_PART_UCX_PVAR_PARTS_AM,         /* ... as active messages */
    MCA_PART_UCX_PVAR_PARTS_HOST_COPY,  /* ... copied by the host (GPU data) */
    MCA_PART_UCX_PVAR_PARTS_KERNEL_COPY, /* ... stored by kernels (GPU data) */
    MCA_PART_UCX_PVAR_BYTES_SENT,       /* their bytes */
    MCA_PART_UCX_PVAR_PARTS_HELD,       /* received one epoch early, held */
    MCA_PART_UCX_PVAR_RTR_RIDING,       /* ready-to-receive on a partition message */
    MCA_PART_UCX_PVAR_RTR_ALONE,        /* ready-to-receive on its own */
    MCA_PART_UCX_PVAR_SETUP_UNEXPECTED, /* setup records before their receive */
    MCA_PART_UCX_PVAR_COLL_GPU_EPOCHS,  /* collective epochs run by the GPU engine */
    MCA_PART_UCX_PVAR_COLL_GPU_TWOSHOT, /* ... of them two-shot allreduces */
    MCA_PART_UCX_PVAR_COLL_GPU_PUSH,    /* ... of them push allreduces */
    MCA_PART_UCX_PVAR_COLL_GPU_BULK,    /* ... of them bulk push allreduces */
    MCA_PART_UCX_PVAR_COLL_GPU_LL128,   /* ... bulk push or two-shot in 128-byte lines */
    MCA_PART_UCX_PVAR_COLL_GPU_AFTER,   /* ... stream-ordered, after the producers */
    MCA_PART_UCX_PVAR_COUNT
} mca_part_ucx_pvar_t;

/* One cache line each: counters of different paths are added to by
 * different threads. */
typedef struct {
    opal_atomic_int64_t value;
    char pad[64 - sizeof(opal_atomic_int64_t)];
} mca_part_ucx_counter_t;

extern mca_part_ucx_counter_t mca_part_ucx_counters[MCA_PART_UCX_PVAR_COUNT];

static inline void mca_part_ucx_count(mca_part_ucx_pvar_t which, int64_t n)
{
    opal_atomic_add_fetch_64(&mca_part_ucx_counters[which].value, n);
}

int mca_part_ucx_pvar_register(const mca_base_component_t *component);

#endif /* MCA_PART_UCX_PVAR_H */
