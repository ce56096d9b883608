#!/usr/bin/env bash
# GPU benchmarks of the device bindings, on a GPU node, in one run:
#   bench/run-gpu.sh [OUTDIR]     (default bench/results/gpu-$(hostname -s))
#   BENCH_QUICK=1                 fewer grid sizes
# Goodput of vector add + transfer (traditional vs progress engine vs kernel
# copy) over cuda_ipc and with UCX limited to TCP (standing for two nodes),
# the cost of each MPIX_Pready level, and the device request overheads.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tools/env.sh"
. "$here/bench/common.sh"
out=${1:-$here/bench/results/gpu-$(hostname -s)}
mkdir -p "$out"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
bench_cuda_build "$here/bench/b_device.cu" "$build/b_device"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0
if [ -n "${BENCH_QUICK:-}" ]; then
    grids=1,16,256,4096; threads=1,32,1024
else
    grids=1,4,16,64,256,1024,4096,16384,65536,131072; threads=1,2,4,8,16,32,64,128,256,512,1024
fi
csv=$out/results.csv
echo "bench,component,param1,param2,value,unit" > "$csv"
rm -f "$out/errors.txt"
limit=${BENCH_TIMEOUT:-240}
run() { # label [mpirun args] -- b_device args
    local label=$1; shift
    BENCH_LABEL=$label timeout "$limit" mpirun -np 2 --bind-to none --mca part ucx "$@" | tr -d '\000' |
        tee -a "$csv" || echo "bench: $label $* failed or ran past ${limit}s" | tee -a "$out/errors.txt" >&2
}
run nvlink "$build/b_device" overhead
run nvlink "$build/b_device" pready "$threads"
run nvlink "$build/b_device" goodput "$grids"
# the progress engine with one message per partition, for comparison with
# adjacent ready partitions joined (part_ucx_join_bytes_gpu, 16 MiB default)
(export BENCH_MODES=progress
 run nvlink-nojoin -x BENCH_MODES --mca part_ucx_join_bytes_gpu 0 \
     "$build/b_device" goodput "$grids")
run tcp -x UCX_TLS=tcp,cuda_copy,self --mca pml_ucx_tls any --mca pml_ucx_devices any \
    "$build/b_device" goodput "$grids"
bench_machine "$out"
bench_plot "$csv" "$out"
