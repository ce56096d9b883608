#!/usr/bin/env bash
# The GPU engine's kernel size swept (MCA part_ucx_coll_gpu_blocks and
# part_ucx_coll_gpu_unit_bytes) and where it pushes (part_ucx_coll_gpu_push_bytes),
# kernel + allreduce on GPU buffers
# (bench/b_coll_gpu.cu, its partitioned rows only), to choose the defaults:
#   bench/run-coll-blocks.sh [OUTDIR]  (default bench/results/coll-blocks-$(hostname -s))
#   BENCH_BLOCKS="32 64 128"     blocks of the engine's kernel (at most)
#   BENCH_UNITS="16384"          unit bytes (at least)
#   BENCH_PUSH="8192"            allreduces pushed up to these many bytes (0:
#                                pulled; "0 262144" with BENCH_GRIDS=1,2,4,8,16,64
#                                finds where push stops paying)
#   BENCH_GRIDS=1,64,1024,4096   grids of 1024 floats a block
#   BENCH_NPS="2 4"              ranks (sharing a GPU under CUDA MPS where
#                                there are fewer GPUs)
# Writes OUTDIR/results.csv (component: the row's, then -bBLOCKS-uUNIT-pPUSH) and
# OUTDIR/tables.txt (us an epoch, one column a setting).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tools/env.sh"
. "$here/bench/common.sh"
out=${1:-$here/bench/results/coll-blocks-$(hostname -s)}
mkdir -p "$out"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 BENCH_NO_TRADITIONAL=1
bench_cuda_build "$here/bench/b_coll_gpu.cu" "$build/b_coll_gpu" || exit 1
csv=$out/results.csv
echo "bench,component,param1,param2,value,unit" > "$csv"
: > "$out/errors.txt"
for np in ${BENCH_NPS:-2 4}; do
    for b in ${BENCH_BLOCKS:-32 64 128}; do
        for u in ${BENCH_UNITS:-16384}; do
            for p in ${BENCH_PUSH:-8192}; do
                BENCH_LABEL="-b$b-u$u-p$p" timeout "${BENCH_TIMEOUT:-120}" \
                    mpirun -np "$np" --oversubscribe --bind-to none --mca part ucx \
                    --mca part_ucx_coll_gpu_blocks "$b" --mca part_ucx_coll_gpu_unit_bytes "$u" \
                    --mca part_ucx_coll_gpu_push_bytes "$p" \
                    "$build/b_coll_gpu" allreduce "${BENCH_GRIDS:-1,64,1024,4096}" |
                    tr -d '\000' | grep -a '^gallreduce,' | tee -a "$csv" ||
                    echo "bench: np $np blocks $b unit $u push $p failed" |
                    tee -a "$out/errors.txt" >&2
            done
        done
    done
done
python3 - "$csv" > "$out/tables.txt" <<'PY'
import csv, sys
from collections import defaultdict
t = defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    mode, _, setting = r["component"].partition("-")
    t[(mode, int(r["param2"]), int(r["param1"]))][setting] = float(r["value"])
settings = sorted({s for v in t.values() for s in v}, key=lambda s: [int(x[1:]) for x in s.split("-")])
print("kernel + allreduce [us an epoch] by the GPU engine's blocks (b), unit bytes (u) "
      "and push bytes (p)")
w = max([14] + [len(s) + 2 for s in settings])
print(f"{'mode':>20} {'np':>3} {'grid':>6}" + "".join(f"{s:>{w}}" for s in settings))
for (mode, np_, grid) in sorted(t):
    row = t[(mode, np_, grid)]
    print(f"{mode:>20} {np_:>3} {grid:>6}" + "".join(f"{row.get(s, float('nan')):>{w}.1f}" for s in settings))
PY
cat "$out/tables.txt"
