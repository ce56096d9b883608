#!/usr/bin/env bash
# Partitioned collectives benchmarks, side by side in one run (seed 000 §VI-B):
#   bench/run-coll.sh [OUTDIR]   (default bench/results/coll-$(hostname -s))
#   BENCH_QUICK=1                fewer sizes
#   BENCH_COLL_HOST=0            GPU rows only (no host-buffer sweep)
# CPU: partitioned allreduce vs MPI_Allreduce on host buffers, np 2..8, and
# MPIX_Pallreduce_init overhead. GPU (where a GPU is present), np 2 and 4:
# kernel + allreduce vs grid size, traditional vs partitioned (device
# MPIX_Pready; within a node the GPU engine, host-started and
# stream-ordered, and stream-ordered with the engine after the producers)
# vs the schedule engine (host_engine) vs NCCL, and the init
# overhead on GPU buffers; then the two limits (the kernel alone, the kernel
# and a copy of what a rank must move) beside the one-shot and two-shot
# prototypes the GPU engine grew from (bench/b_coll_oneshot.cu).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tools/env.sh"
. "$here/bench/common.sh"
out=${1:-$here/bench/results/coll-$(hostname -s)}
mkdir -p "$out"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
mpicc -O2 -Wall -Wextra -o "$build/b_coll" "$here/bench/b_coll.c"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0
if [ -n "${BENCH_QUICK:-}" ]; then
    sizes=4096,1048576; nps="2 4"; grids=1,64,1024
else
    sizes=64,1024,16384,262144,4194304,16777216; nps="2 3 4 6 8"
    grids=1,4,16,64,256,1024,4096,16384
fi
csv=$out/results.csv
echo "bench,component,param1,param2,value,unit" > "$csv"
rm -f "$out/errors.txt"
limit=${BENCH_TIMEOUT:-300}
run() { # np mpirun-args... -- program args
    local np=$1; shift
    timeout "$limit" mpirun -np "$np" --oversubscribe --bind-to none --mca part ucx "$@" |
        tr -d '\000' | tee -a "$csv" ||
        echo "bench: np $np $* failed or ran past ${limit}s" | tee -a "$out/errors.txt" >&2
}
[ "${BENCH_COLL_HOST:-1}" = 0 ] && nps=
for np in $nps; do
    run "$np" "$build/b_coll" allreduce "$sizes" 8
    run "$np" "$build/b_coll" overhead
done

cuda=${CUDA_HOME:-/usr/local/cuda}
if nvidia-smi -L >/dev/null 2>&1 && [ -x "$cuda/bin/nvcc" ]; then
    bench_nccl
    # shellcheck disable=SC2086
    bench_cuda_build "$here/bench/b_coll_gpu.cu" "$build/b_coll_gpu" $nccl -- $ncclibs
    # np 2 and 4: one rank per GPU where there are as many, else ranks
    # sharing a GPU (under CUDA MPS, bench/README.md)
    for np in 2 4; do
        run "$np" "$build/b_coll_gpu" allreduce "$grids"
        # stream-ordered epochs with the engine after the producers
        # (part_ucx_coll_gpu_after_bytes 1) and info mpix_stream_kernels
        # (MPIX_Pready only marks): rows partitioned_stream_after and
        # partitioned_graph_after (where the ranks span GPUs the setting
        # does not apply: the rows are then those of mpix_stream_kernels)
        BENCH_STREAM_KERNELS=1 BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1 BENCH_LABEL=_after \
            run "$np" --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS \
            -x BENCH_NO_TRADITIONAL -x BENCH_NO_HOST -x BENCH_LABEL "$build/b_coll_gpu" allreduce "$grids"
        # the schedule engine (part_ucx_coll_gpu_engine 0), host-started only:
        # its stream-ordered epochs need MPI_THREAD_MULTIPLE
        BENCH_NO_STREAM=1 timeout "$limit" mpirun -np "$np" --oversubscribe --bind-to none \
            --mca part ucx --mca part_ucx_coll_gpu_engine 0 "$build/b_coll_gpu" allreduce \
            "$grids" | tr -d '\000' | grep -a '^gallreduce,partitioned,' |
            sed 's/^gallreduce,partitioned,/gallreduce,host_engine,/' | tee -a "$csv" ||
            echo "bench: np $np schedule-engine GPU allreduce failed or ran past ${limit}s" |
            tee -a "$out/errors.txt" >&2
    done
    run 2 "$build/b_coll_gpu" overhead
    # the GPU-executed one-shot and two-shot prototypes and the two limits (issue 22),
    # np 2 and 4 (ranks may share a GPU under CUDA MPS)
    bench_cuda_build "$here/bench/b_coll_oneshot.cu" "$build/b_coll_oneshot"
    run 2 "$build/b_coll_oneshot" "$grids"
    run 4 "$build/b_coll_oneshot" "$grids"
fi
bench_machine "$out"
bench_plot "$csv" "$out"
