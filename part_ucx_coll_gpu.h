/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * The GPU engine of partitioned collectives: where every rank of the
 * communicator is on this node with GPU buffers that UCX maps into the
 * others' GPU address space (cuda_ipc rkey_ptr), one kernel an epoch
 * (part_ucx_device_coll.h) runs the whole collective on the GPU: it waits
 * for the partitions the ranks' kernels (or hosts) make ready, reads the
 * peers' buffers directly, reduces or copies, and marks the results it
 * finished. The host issues nothing per partition or per step: it launches
 * the kernel at MPI_Start (or enqueues it at MPIX_Start_enqueue, on a
 * stream forked from the application's) and reads one word to see the
 * epoch complete. Elsewhere the schedule engine (part_ucx_schedule.c) runs
 * the collective with point-to-point channels.
 *
 * Why a kernel of its own and not the producing kernel's blocks: a block
 * that completes a partition in MPIX_Pready cannot wait for the peers'
 * partitions (it would hold the application's kernel, and a peer's
 * partition may depend on ours), and a kernel launched before the
 * producer lets partitions move while the producer still runs, the one
 * thing a collective called after the producer cannot do.
 */

#ifndef MCA_PART_UCX_COLL_GPU_H
#define MCA_PART_UCX_COLL_GPU_H

#include "part_ucx_coll.h"

BEGIN_C_DECLS

typedef struct mca_part_ucx_gcoll_t mca_part_ucx_gcoll_t;

/* Whether this rank could run collective `kind` (mca_part_ucx_gcoll_kind_t,
 * -1: none fits, e.g. an in-place alltoall) on the GPU engine: every one of
 * its buffers on the GPU, the plugin's kernel, the communicator on this
 * node and small enough, the MCA parameter part_ucx_coll_gpu_engine. The
 * ranks then agree (the smallest answer wins). */
bool mca_part_ucx_gcoll_possible(const mca_part_ucx_coll_t *c, int kind, bool in_place);
/* This process's settings of the engine (its MCA variables, negative ones
 * as their least), which the ranks then settle (part_ucx_coll.h). */
void mca_part_ucx_gcoll_params_local(mca_part_ucx_gcoll_params_t *p);
/* The engine's kind for collective kind `kind` with `bytes` in the partition
 * space, for ranks on one GPU or spanning GPUs (span): an allreduce chooses
 * one-shot, two-shot, push (only where push_ok) or bulk push here (the same
 * on every rank: the arguments, settings and placement agreed). */
int mca_part_ucx_gcoll_kind(const mca_part_ucx_gcoll_params_t *p, int kind, int n,
                            uint64_t bytes, bool span, bool push_ok);
/* Collective over c->comm: map the ranks' buffers and windows, and make the
 * kernel's arguments. *used: every rank could (no rank runs it otherwise,
 * and c is left for the schedule engine); the return code is an error
 * only where the collective must fail. */
int mca_part_ucx_gcoll_setup(mca_part_ucx_coll_t *c, int kind, int root,
                             size_t block_bytes, bool *used);
void mca_part_ucx_gcoll_release(mca_part_ucx_coll_t *c);

/* An epoch the host starts; launch: its kernel on the collective's stream
 * (at the epoch's first progress: see part_ucx_coll_gpu.c), if not yet. */
int mca_part_ucx_gcoll_start(mca_part_ucx_coll_t *c, uint64_t epoch);
int mca_part_ucx_gcoll_launch(mca_part_ucx_coll_t *c);
/* An epoch a stream starts (epoch 0: the stream counts the epochs in
 * *epoch_word): the stream's place; join, at MPIX_Wait_enqueue: the kernel
 * on the collective's stream from that place, and the application's
 * stream waits for it. */
int mca_part_ucx_gcoll_enqueue(mca_part_ucx_coll_t *c, void *stream, uint64_t epoch,
                               const volatile uint64_t *epoch_word);
int mca_part_ucx_gcoll_join(mca_part_ucx_coll_t *c, void *stream);
/* The GPU word a counted start also writes, from which the kernel takes the
 * epoch (reads of host memory from many blocks queue up). */
volatile uint64_t *mca_part_ucx_gcoll_epoch_word(const mca_part_ucx_coll_t *c);
/* The host word the kernel writes each epoch into once it is complete. */
const volatile uint64_t *mca_part_ucx_gcoll_finished(const mca_part_ucx_coll_t *c);

/* Host MPI_Pready of user partition u, MPI_Parrived of [first, last]. */
int mca_part_ucx_gcoll_pready(mca_part_ucx_coll_t *c, size_t u, uint64_t epoch);
bool mca_part_ucx_gcoll_parrived(const mca_part_ucx_coll_t *c, size_t first, size_t last,
                                 uint64_t epoch);
/* A device request's words: the ready words its kernels' MPIX_Pready marks
 * (GPU memory; the stream-ordered marks where mca_part_ucx_gcoll_ordered)
 * and the done words MPIX_Parrived reads (host memory). */
volatile uint64_t *mca_part_ucx_gcoll_ready_words(const mca_part_ucx_coll_t *c);
volatile uint64_t *mca_part_ucx_gcoll_done_words(const mca_part_ucx_coll_t *c);
/* Whether the kernels' MPIX_Pready only mark (MPIX_PREQUEST_TAG_ORDERED):
 * a collective declared "mpix_stream_kernels" whose engine runs after the
 * producers (part_ucx_coll_gpu_after_bytes); the gate publishes the marks. */
bool mca_part_ucx_gcoll_ordered(const mca_part_ucx_coll_t *c);
/* The device request's error word (NULL: none any more), where the gate
 * reports a partition that no MPIX_Pready marked. */
int mca_part_ucx_gcoll_attach(mca_part_ucx_coll_t *c, volatile uint32_t *error);
/* Whether only this GPU's threads read the ready words and this rank's
 * data (every rank runs on this GPU, or a push allreduce), so a kernel's
 * MPIX_Pready releases its data at GPU scope. */
bool mca_part_ucx_gcoll_gpu_scope(const mca_part_ucx_coll_t *c);
void mca_part_ucx_gcoll_dump(const mca_part_ucx_coll_t *c, uint64_t epoch);

END_C_DECLS

#endif /* MCA_PART_UCX_COLL_GPU_H */
