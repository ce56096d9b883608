#!/usr/bin/env bash
# Two builds of part/ucx side by side on one GPU node, interleaved round by
# round so that drift of the node hits both alike:
#   bench/run-ab.sh OLD.tar.xz NEW.tar.xz OUTDIR [ROUNDS]
#   BENCH_MPS=1   under CUDA MPS (a control daemon for the run)
# Each tarball is a tools/bundle.sh bundle (e.g. one built at an older
# commit on the same Open MPI and UCX). Runs bench/b_device goodput
# (traditional, progress engine, kernel copy) at 16-1024 blocks and
# bench/b_part host latency with each, writes OUTDIR/ab.csv, and prints the
# table of medians (bench/ab_table.py, which also draws ab.png).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
old=${1:?usage: run-ab.sh OLD.tar.xz NEW.tar.xz OUTDIR [ROUNDS]}
new=${2:?usage: run-ab.sh OLD.tar.xz NEW.tar.xz OUTDIR [ROUNDS]}
out=${3:?usage: run-ab.sh OLD.tar.xz NEW.tar.xz OUTDIR [ROUNDS]}
rounds=${4:-5}
mkdir -p "$out"
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
. "$here/bench/common.sh"
if [ -n "${BENCH_MPS:-}" ]; then
    export CUDA_MPS_PIPE_DIRECTORY=/tmp/part-ucx-ab-mps CUDA_MPS_LOG_DIRECTORY=/tmp/part-ucx-ab-mps-log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    nvidia-cuda-mps-control -d && trap 'echo quit | nvidia-cuda-mps-control' EXIT
fi
for v in old new; do
    d=/tmp/part-ucx-ab-$v
    rm -rf "$d" && mkdir -p "$d/b" && tar -xJf "$([ $v = old ] && echo "$old" || echo "$new")" -C "$d" || exit 1
    ( . "$d/part-ucx/env.sh"
      bench_cuda_build "$here/bench/b_device.cu" "$d/b/b_device" &&
          mpicc -O2 -pthread -o "$d/b/b_part" "$here/bench/b_part.c" ) || exit 1
done
echo "bench,component,param1,param2,value,unit" > "$out/ab.csv"
for round in $(seq "$rounds"); do
    for v in old new; do
        ( d=/tmp/part-ucx-ab-$v; . "$d/part-ucx/env.sh"
          timeout 120 mpirun -np 2 --bind-to none --mca part ucx "$d/b/b_device" goodput 16,64,256,1024
          BENCH_COMPONENT=ucx timeout 120 mpirun -np 2 --bind-to core --mca part ucx -x BENCH_COMPONENT \
              "$d/b/b_part" latency 8,4096,262144 1,16,64
        ) 2>/dev/null | tr -d '\000' | grep -E '^(goodput|latency),' |
            sed -E "s/^(goodput|latency),([^,]*),/\1,$v:\2,/" >> "$out/ab.csv"
    done
done
python3 "$here/bench/ab_table.py" "$out/ab.csv" "$out" | tee "$out/ab.txt"
