#!/usr/bin/env bash
# Where a stream-copied epoch's time goes, on a GPU node, two ranks on one
# GPU (CUDA MPS, so that both stamp one %globaltimer):
#   bench/trace/stream.sh OUTDIR VARIANT GRIDS [mpirun options]
# with an install's environment. Builds the device plugin with
# -DPART_UCX_STREAM_TRACE, puts it in the install's place for the runs
# (the installed one back at the end), runs `b_stream goodput VARIANT G`
# for each grid G and writes OUTDIR/gG/{rows.csv,gt.0,gt.1,steps.txt}
# (bench/trace/stream_trace.py). The stamps store to host memory: compare
# the steps with each other, not the rows with untraced ones.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 3 ] || { sed -n '2,3p' "$0" >&2; exit 2; }
out=$1 variant=$2 grids=$3
shift 3
. "$here/bench/common.sh"
. "$here/bench/trace/traced.sh"
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -x "$out/b_stream" ] || bench_cuda_build "$here/bench/b_stream.cu" "$out/b_stream"
trace_plugin PART_UCX_STREAM_TRACE
IFS=, read -ra list <<<"$grids"
for g in "${list[@]}"; do
    d=$out/g$g
    mkdir -p "$d"
    PART_UCX_GCOLL_TRACE_FILE=$d/gt mpirun -np 2 --bind-to none --mca part ucx \
        -x PART_UCX_GCOLL_TRACE_FILE "$@" "$out/b_stream" goodput "$variant" "$g" |
        tr -d '\000' | grep -a '^stream_goodput' > "$d/rows.csv" || echo "trace: grid $g failed" >&2
    python3 "$here/bench/trace/stream_trace.py" "$d/gt.0" "$d/gt.1" > "$d/steps.txt" 2>&1 || true
    echo "== $variant, grid $g: $(cut -d, -f5 "$d/rows.csv" | head -1) GB/s"; cat "$d/steps.txt"
done
