#!/usr/bin/env bash
# The GPU engine's kernel size swept (MCA part_ucx_coll_gpu_blocks and
# part_ucx_coll_gpu_unit_bytes) and where it pushes (part_ucx_coll_gpu_push_bytes,
# part_ucx_coll_gpu_bulk_bytes; the units and push thresholds of both
# placements alike, _span_unit_bytes and _span_push_bytes too), kernel + allreduce on GPU buffers
# (bench/b_coll_gpu.cu, its partitioned rows only), to choose the defaults:
#   bench/run-coll-blocks.sh [OUTDIR]  (default bench/results/coll-blocks-$(hostname -s))
#   BENCH_BLOCKS="32 64 128"     blocks of the engine's kernel (at most)
#   BENCH_UNITS="16384"          unit bytes (at least; across GPUs the default is 4096)
#   BENCH_PUSH="8192"            allreduces pushed up to these many bytes (across
#                                GPUs the default is 65536; 0:
#                                pulled; "0 262144" with BENCH_GRIDS=1,2,4,8,16,64
#                                finds where push stops paying)
#   BENCH_BULK="2097152"         allreduces bulk pushed while each rank's copies,
#                                (ranks - 1) times the data, stay within these bytes
#                                where the ranks span GPUs (0: pulled)
#   BENCH_GRIDS=1,64,1024,4096   grids of 1024 floats a block
#   BENCH_NPS="2 4"              ranks (sharing a GPU under CUDA MPS where
#                                there are fewer GPUs)
# Writes OUTDIR/results.csv (component: the row's, then -bBLOCKS-uUNIT-pPUSH-kBULK) and
# OUTDIR/tables.txt (us an epoch, one column a setting: bench/label_table.py).
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
                for k in ${BENCH_BULK:-2097152}; do
                    BENCH_LABEL="-b$b-u$u-p$p-k$k" timeout "${BENCH_TIMEOUT:-120}" \
                        mpirun -np "$np" --oversubscribe --bind-to none --mca part ucx \
                        --mca part_ucx_coll_gpu_blocks "$b" --mca part_ucx_coll_gpu_unit_bytes "$u" \
                        --mca part_ucx_coll_gpu_span_unit_bytes "$u" \
                        --mca part_ucx_coll_gpu_push_bytes "$p" --mca part_ucx_coll_gpu_span_push_bytes "$p" \
                        --mca part_ucx_coll_gpu_bulk_bytes "$k" \
                        "$build/b_coll_gpu" allreduce "${BENCH_GRIDS:-1,64,1024,4096}" |
                        tr -d '\000' | grep -a '^gallreduce,' | tee -a "$csv" ||
                        echo "bench: np $np blocks $b unit $u push $p bulk $k failed" |
                        tee -a "$out/errors.txt" >&2
                done
            done
        done
    done
done
{ echo "kernel + allreduce [us an epoch] by the GPU engine's blocks (b), unit bytes (u)," \
       "push bytes (p) and bulk push bytes (k)"; python3 "$here/bench/label_table.py" "$csv"; } > "$out/tables.txt"
cat "$out/tables.txt"
