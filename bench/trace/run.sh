#!/usr/bin/env bash
# Where the GPU engine's epochs spend their time, on a GPU node:
#   bench/trace/run.sh OUTDIR NP GRIDS [mpirun options]
# with an install's environment (tools/env.sh or a bundle's env.sh).
# Builds the device plugin with -DPART_UCX_GCOLL_TRACE and b_coll_gpu
# with -DBENCH_TRACE, puts the traced plugin in the install's place for
# the runs (the installed one back at the end), runs `b_coll_gpu allreduce
# G` for each grid G (BENCH_NO_TRADITIONAL) and writes, per grid and rank,
# the traces (OUTDIR/gG/gt.R, at.R), the rows (rows.csv), the phases
# (phases-rR.txt, bench/trace/gcoll_trace.py) and the last epoch's units
# on every rank (units.txt, bench/trace/units_timeline.py). PART_UCX_TRACE_NVCC_FLAGS
# adds nvcc flags to the traced plugin's build (-DGCOLL_DEFER_BLOCKS=N, say,
# for an experiment). Both traces stamp host
# memory and the traced kernels take more registers: compare the phases
# with each other, not the rows with untraced ones.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 3 ] || { sed -n '2,3p' "$0" >&2; exit 2; }
out=$1 np=$2 grids=$3
shift 3
. "$here/bench/common.sh"
. "$here/bench/trace/traced.sh"
bench_nccl
mkdir -p "$out"
out=$(cd "$out" && pwd)
bench_cuda_build "$here/bench/b_coll_gpu.cu" "$out/b_coll_gpu" -DBENCH_TRACE $nccl -- $ncclibs
trace_plugin PART_UCX_GCOLL_TRACE
IFS=, read -ra list <<<"$grids"
for g in "${list[@]}"; do
    d=$out/g$g
    mkdir -p "$d"
    BENCH_NO_TRADITIONAL=1 PART_UCX_GCOLL_TRACE_FILE=$d/gt BENCH_TRACE_FILE=$d/at \
        mpirun -np "$np" --bind-to none --mca part ucx -x BENCH_NO_TRADITIONAL \
        -x PART_UCX_GCOLL_TRACE_FILE -x BENCH_TRACE_FILE "$@" "$out/b_coll_gpu" allreduce "$g" |
        tr -d '\000' | grep -a '^gallreduce' > "$d/rows.csv" || echo "trace: grid $g failed" >&2
    for ((r = 0; r < np; ++r)); do
        python3 "$here/bench/trace/gcoll_trace.py" "$d/gt.$r" "$d/at.$r" > "$d/phases-r$r.txt" 2>&1 || true
    done
    python3 "$here/bench/trace/units_timeline.py" "$d" "$np" > "$d/units.txt" 2>&1 || true
    echo "== grid $g, rank 0"; cat "$d/phases-r0.txt"
done
