#!/usr/bin/env bash
# A CUDA timeline (Nsight Systems) of one bench/b_stream.cu run, two ranks,
# to see where a stream-ordered epoch's time goes:
#   bench/run-profile.sh OUTDIR B_STREAM-ARGS...   e.g. OUTDIR hrtt kernels
# Writes OUTDIR/rank{0,1}.nsys-rep, and per rank the summaries of
# `nsys stats` (CUDA API calls, kernels, GPU trace: the last 400 lines of
# the trace, the steady state) as OUTDIR/rank{0,1}-stats.txt. Without nsys
# it says so and fails.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tools/env.sh"
. "$here/bench/common.sh"
out=${1:?usage: bench/run-profile.sh OUTDIR B_STREAM-ARGS...}
shift
mkdir -p "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
nsys=$(command -v nsys || ls "$cuda"/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null |
       head -n 1)
[ -n "$nsys" ] || { echo "bench: no nsys on this node" >&2; exit 1; }
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
"$cuda/bin/nvcc" -O2 -std=c++17 -arch=sm_90 -ccbin "$(command -v mpicxx)" -c \
    -o "$build/b_stream.o" "$here/bench/b_stream.cu" &&
    mpicxx -o "$build/b_stream" "$build/b_stream.o" -L"$cuda/lib64" -lcudart || exit 1
bench_variants_begin
export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-32}
bench_machine "$out"
timeout "$limit" mpirun -np 2 --bind-to none --mca part ucx \
    "$nsys" profile -t cuda --cuda-memory-usage=false -f true \
    -o "$out/rank%q{OMPI_COMM_WORLD_RANK}" "$build/b_stream" "$@" > "$out/run.log" 2>&1
rc=$?
for r in 0 1; do
    [ -e "$out/rank$r.nsys-rep" ] || continue
    {
        "$nsys" stats -q -r cuda_api_sum,cuda_gpu_kern_sum -f column "$out/rank$r.nsys-rep"
        "$nsys" stats -q -r cuda_gpu_trace -f column "$out/rank$r.nsys-rep" | tail -n 400
    } > "$out/rank$r-stats.txt" 2>&1
done
exit "$rc"
