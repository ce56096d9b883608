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
    fclose(f);
}

/* Once, outside any stream capture (at the engine's load), where
 * $PART_UCX_GCOLL_TRACE_FILE is set: host memory mapped for the GPU,
 * which outlives the CUDA context for the write at exit (an atexit
 * handler of a shared object also runs when it is unloaded). */
static void part_trace_setup(void)
{
    static bool done = false;
    size_t bytes = PART_TRACE_SLOTS * sizeof(part_trace_rec);
    void *dev = NULL;

    if (done || NULL == getenv("PART_UCX_GCOLL_TRACE_FILE")) {
        return;
    }
    done = true;
    part_trace_host = (part_trace_rec *) calloc(PART_TRACE_SLOTS, sizeof(part_trace_rec));
    if (NULL == part_trace_host ||
        cudaSuccess != cudaHostRegister(part_trace_host, bytes, cudaHostRegisterMapped) ||
        cudaSuccess != cudaHostGetDevicePointer(&dev, part_trace_host, 0) ||
        cudaSuccess != cudaMemcpyToSymbol(part_trace_dev, &dev, sizeof(dev))) {
        (void) cudaGetLastError();
        fprintf(stderr, "part/ucx: no GPU engine trace (host memory for it)\n");
        part_trace_host = NULL;
        return;
    }
    atexit(part_trace_write);
}

#endif /* PART_UCX_DEVICE_TRACE_H */
