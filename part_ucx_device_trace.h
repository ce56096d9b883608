/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * A per-phase trace of the GPU engine's kernel, for finding where an
 * epoch's time goes (bench/trace/README.md). Built into the device plugin
 * only with -DPART_UCX_GCOLL_TRACE, never into an install's: each stamp
 * is a store to host memory, which the kernel's end then has to flush.
 *
 * Thread 0 of block 0 stamps %globaltimer at the kernel's entry and after
 * each step of its first unit; the block that completes the epoch stamps
 * the end. Record e % PART_TRACE_SLOTS holds epoch e, in host memory that
 * the process writes out when the plugin is unloaded or the process exits,
 * to $PART_UCX_GCOLL_TRACE_FILE.<rank> (mpirun's OMPI_COMM_WORLD_RANK, or
 * the pid), a line an epoch: "GT e t0 .. t7" (ns; 0: not reached). The
 * collectives of a process share the records.
 *
 * Beside them, the last epoch of every unit and block (where the epoch
 * phases above are block 0's first unit only, these show how the units
 * and blocks of one epoch overlap the producer and each other): thread 0
 * of the block that moves unit k stamps when the peers' readiness was
 * seen, the unit moved and its words told; thread 0 of each block stamps
 * its start and the end of its finish loop. Lines "GU k e peers moved
 * told" and "GB b e start finished" (bench/trace/units_timeline.py).
 * The gate of after mode (part_gcoll_gate): thread 0 of each of its
 * blocks stamps its entry, the end of its wait for the producer
 * (griddepcontrol.wait) and its leaving, "GG b e entry waited left".
 */

#ifndef PART_UCX_DEVICE_TRACE_H
#define PART_UCX_DEVICE_TRACE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PART_TRACE_SLOTS 1024
#define PART_TRACE_STAMPS 8

/* The stamps, in order. */
enum {
    PART_TRACE_ENTRY,     /* the kernel began (block 0) */
    PART_TRACE_EPOCH,     /* arguments copied, epoch read */
    PART_TRACE_OWN_READY, /* thread 0's own partition ready */
    PART_TRACE_PEERS,     /* the peers' readiness seen (block barrier) */
    PART_TRACE_MOVED,     /* the first unit moved and reduced (block barrier) */
    PART_TRACE_TOLD,      /* its consumed and done words written */
    PART_TRACE_FINISHED,  /* block 0's units finished (block barrier) */
    PART_TRACE_END        /* the last block wrote the finished word */
};

typedef struct part_trace_rec {
    unsigned long long epoch, t[PART_TRACE_STAMPS];
} part_trace_rec;

static part_trace_rec *part_trace_host; /* NULL: no trace asked for */
__device__ part_trace_rec *part_trace_dev;

/* The units' and blocks' records: epoch and three stamps each; units and
 * blocks past these counts are not stamped. */
#define PART_TRACE_UNITS 4096
#define PART_TRACE_BLOCKS 1024
#define PART_TRACE_GATES 16
#define PART_TRACE_QUADS (PART_TRACE_UNITS + PART_TRACE_BLOCKS + PART_TRACE_GATES)
enum { PART_TRACE_UNIT_PEERS = 1, PART_TRACE_UNIT_MOVED, PART_TRACE_UNIT_TOLD };
enum { PART_TRACE_BLOCK_START = 1, PART_TRACE_BLOCK_FINISHED };
enum { PART_TRACE_GATE_ENTRY = 1, PART_TRACE_GATE_WAITED, PART_TRACE_GATE_LEFT };
typedef unsigned long long part_trace_quad[4];
static part_trace_quad *part_trace_quads_host; /* units, blocks, then the gate's blocks */
__device__ part_trace_quad *part_trace_quads;

__device__ static inline unsigned long long part_trace_now(void)
{
    unsigned long long t;

    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ static inline void part_trace_stamp_at(uint64_t e, int i, unsigned long long t)
{
    part_trace_rec *r = part_trace_dev;

    if (NULL != r) {
        r += e % PART_TRACE_SLOTS;
        r->epoch = e;
        r->t[i] = t;
    }
}

__device__ static inline void part_trace_stamp(uint64_t e, int i)
{
    part_trace_stamp_at(e, i, part_trace_now());
}

/* Record `i` of unit k (block: k = PART_TRACE_UNITS + blockIdx.x; the
 * gate's block: k = PART_TRACE_UNITS + PART_TRACE_BLOCKS + blockIdx.x). */
__device__ static inline void part_trace_quad_stamp_at(uint64_t e, uint64_t k, int i,
                                                       unsigned long long t)
{
    if (NULL != part_trace_quads && k < PART_TRACE_QUADS) {
        part_trace_quads[k][0] = e;
        part_trace_quads[k][i] = t;
    }
}

__device__ static inline void part_trace_quad_stamp(uint64_t e, uint64_t k, int i)
{
    part_trace_quad_stamp_at(e, k, i, part_trace_now());
}

static void part_trace_write(void)
{
    char name[512];
    const char *base = getenv("PART_UCX_GCOLL_TRACE_FILE");
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    FILE *f;

    if (NULL == part_trace_host || NULL == base) {
        return;
    }
    snprintf(name, sizeof(name), "%s.%d", base, (NULL != rank) ? atoi(rank) : (int) getpid());
    if (NULL == (f = fopen(name, "w"))) {
        return;
    }
    for (unsigned s = 0; s < PART_TRACE_SLOTS; ++s) {
        const volatile part_trace_rec *r = part_trace_host + s;
        if (0 == r->epoch) {
            continue;
        }
        fprintf(f, "GT %llu", r->epoch);
        for (unsigned i = 0; i < PART_TRACE_STAMPS; ++i) {
            fprintf(f, " %llu", r->t[i]);
        }
        fputc('\n', f);
    }
    for (unsigned k = 0; NULL != part_trace_quads_host && k < PART_TRACE_QUADS; ++k) {
        const volatile unsigned long long *q = part_trace_quads_host[k];
        if (0 == q[0]) {
            continue;
        }
        if (k < PART_TRACE_UNITS) {
            fprintf(f, "GU %u %llu %llu %llu %llu\n", k, q[0], q[1], q[2], q[3]);
        } else if (k < PART_TRACE_UNITS + PART_TRACE_BLOCKS) {
            fprintf(f, "GB %u %llu %llu %llu\n", k - PART_TRACE_UNITS, q[0], q[1], q[2]);
        } else {
            fprintf(f, "GG %u %llu %llu %llu %llu\n", k - PART_TRACE_UNITS - PART_TRACE_BLOCKS,
                    q[0], q[1], q[2], q[3]);
        }
    }
    fclose(f);
}

/* `bytes` of zeroed host memory, mapped for the GPU, whose device address
 * goes into the __device__ pointer `symbol`; NULL (and a line on stderr
 * naming `what`) where any step fails. */
static void *part_trace_mapped(size_t bytes, const void *symbol, const char *what)
{
    void *host = calloc(1, bytes), *dev = NULL;

    if (NULL == host || cudaSuccess != cudaHostRegister(host, bytes, cudaHostRegisterMapped) ||
        cudaSuccess != cudaHostGetDevicePointer(&dev, host, 0) ||
        cudaSuccess != cudaMemcpyToSymbol(symbol, &dev, sizeof(dev))) {
        (void) cudaGetLastError();
        fprintf(stderr, "part/ucx: no GPU engine %s (host memory for it)\n", what);
        free(host);
        return NULL;
    }
    return host;
}

/* Once, outside any stream capture (at the engine's load), where
 * $PART_UCX_GCOLL_TRACE_FILE is set: host memory mapped for the GPU,
 * which outlives the CUDA context for the write at exit (an atexit
 * handler of a shared object also runs when it is unloaded). The units'
 * and blocks' records are a second mapping, which the epochs' trace goes
 * on without. */
static void part_trace_setup(void)
{
    static bool done = false;

    if (done || NULL == getenv("PART_UCX_GCOLL_TRACE_FILE")) {
        return;
    }
    done = true;
    part_trace_host = (part_trace_rec *) part_trace_mapped(
        PART_TRACE_SLOTS * sizeof(part_trace_rec), (const void *) &part_trace_dev, "trace");
    if (NULL == part_trace_host) {
        return;
    }
    part_trace_quads_host = (part_trace_quad *) part_trace_mapped(
        PART_TRACE_QUADS * sizeof(part_trace_quad),
        (const void *) &part_trace_quads, "unit trace");
    atexit(part_trace_write);
}

#endif /* PART_UCX_DEVICE_TRACE_H */
