#!/usr/bin/env bash
# Session 7, call M (4 GPUs), bundle of e5a0a88: the engine's blocks, units
# and protocols at the widest gaps to NCCL (np 2 at 1 MiB, np 4 at 512 KiB
# and 1 MiB), two rounds; NCCL rows once.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf /tmp/pb; mkdir -p /tmp/pb; tar -xJf .bundle/b-e5a0a88.tar.xz -C /tmp/pb
. /tmp/pb/part-ucx/env.sh
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs > $OUT/build.txt 2>&1 || echo "build failed"
run() { local np=$1 lab=$2 grids=$3; shift 3
  BENCH_LABEL=$lab timeout 60 mpirun -np $np --bind-to none --mca part ucx "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plain allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
M=--mca
run 2 "" 256 >> $OUT/nccl.csv; run 4 "" 128,256 >> $OUT/nccl.csv
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  run 2 -def-r$r 256 >> $OUT/sweep.csv
  run 2 -sb128-r$r 256 $M part_ucx_coll_gpu_span_blocks 128 >> $OUT/sweep.csv
  run 2 -sb32-r$r 256 $M part_ucx_coll_gpu_span_blocks 32 >> $OUT/sweep.csv
  run 2 -ll1m-r$r 256 $M part_ucx_coll_gpu_ll128_bytes 1048576 >> $OUT/sweep.csv
  run 2 -ll1m-sb128-r$r 256 $M part_ucx_coll_gpu_ll128_bytes 1048576 $M part_ucx_coll_gpu_span_blocks 128 >> $OUT/sweep.csv
  run 2 -su16k-r$r 256 $M part_ucx_coll_gpu_span_unit_bytes 16384 >> $OUT/sweep.csv
  run 4 -def-r$r 128,256 >> $OUT/sweep.csv
  run 4 -b16-r$r 256 $M part_ucx_coll_gpu_blocks 16 >> $OUT/sweep.csv
  run 4 -b64-r$r 256 $M part_ucx_coll_gpu_blocks 64 >> $OUT/sweep.csv
  run 4 -u64k-r$r 256 $M part_ucx_coll_gpu_unit_bytes 65536 >> $OUT/sweep.csv
  run 4 -sb128-r$r 128 $M part_ucx_coll_gpu_span_blocks 128 >> $OUT/sweep.csv
  run 4 -flagbulk-r$r 128 $M part_ucx_coll_gpu_ll128_bytes 0 >> $OUT/sweep.csv
  run 4 -ts-r$r 128 $M part_ucx_coll_gpu_twoshot_bytes 262144 $M part_ucx_coll_gpu_bulk_bytes 0 >> $OUT/sweep.csv
  echo "round $r at $(el) s"
done
