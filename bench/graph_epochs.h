/* Epochs replayed from CUDA graphs in the benchmarks (bench/b_stream.cu,
 * bench/b_coll_gpu.cu): a graph captures K epochs; a kernel takes its
 * epoch as an offset 1..K from a word in GPU memory (ebase), which the
 * graph advances by K at its end, so that every replay moves on although
 * the captured arguments stay. Include after examples/common.h (CUDA()). */
#ifndef BENCH_GRAPH_EPOCHS_H
#define BENCH_GRAPH_EPOCHS_H

#include <cuda_runtime.h>
#include <stdlib.h>

/* Epochs a graph captures (BENCH_GRAPH_EPOCHS, default 32): the host
 * launches the graph, not each epoch. */
static int graph_epochs(void)
{
    const char *env = getenv("BENCH_GRAPH_EPOCHS");
    return (NULL != env && atoi(env) > 0) ? atoi(env) : 32;
}

/* A kernel's epoch: its argument, or in a graph (ebase) its offset from
 * the epochs before the replay. Through the read-only cache: only the
 * graph's last kernel (advance) writes the word, and every thread of every
 * block reads it; a volatile read would send each warp's to the one L2
 * line, which at large grids costs the graph variants more than their
 * kernels' own work. */
__device__ static inline int epoch_at(int epoch, const int *ebase)
{
    return (NULL != ebase) ? __ldg(ebase) + epoch : epoch;
}

__global__ void advance(int *ebase, int k)
{
    *ebase += k;
}

/* *ebase = base, the epochs before the first replay (s synchronised). */
static void graph_base(int *ebase, int base, cudaStream_t s)
{
    CUDA(cudaMemcpyAsync(ebase, &base, sizeof(base), cudaMemcpyHostToDevice, s));
    CUDA(cudaStreamSynchronize(s));
}

/* The graph of epoch(k), k = 1..K, captured from s, then (where ebase is
 * given) advance(ebase, K). */
template <class F>
static cudaGraphExec_t graph_capture(cudaStream_t s, int K, int *ebase, F epoch)
{
    cudaGraph_t g;
    cudaGraphExec_t exec;
    CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int k = 1; k <= K; ++k) epoch(k);
    if (NULL != ebase) advance<<<1, 1, 0, s>>>(ebase, K);
    CUDA(cudaStreamEndCapture(s, &g));
    /* per-node priorities: the GPU engine's kernel keeps the greatest
     * priority it was launched with (part_ucx_coll_gpu_priority), as
     * launched outside a graph; NCCL's kernels and ours keep theirs */
    CUDA(cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagUseNodePriority));
    CUDA(cudaGraphDestroy(g));
    return exec;
}

#endif /* BENCH_GRAPH_EPOCHS_H */
