#!/usr/bin/env bash
# Session 9, call 4 (4 GPUs), bundle of 6437af0: fewer engine blocks at
# 256 KiB-4 MiB. The engine's resident blocks take room that the
# application's kernel (1024 threads a block) then lacks: 256 such blocks
# fit the 132 SMs at two a block alongside at most 8 engine blocks, else
# a second wave. Defaults against blocks and span blocks 8 and 16, np 2-4,
# two rounds, NCCL rows once.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; rm -rf $d; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-q
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs > $OUT/build.txt 2>&1 || echo "build failed"
run() { local np=$1 lab=$2 grids=$3; shift 3
  BENCH_LABEL=$lab timeout 100 mpirun -np $np --bind-to none --oversubscribe --mca part ucx "$@" -x BENCH_LABEL -x BENCH_NO_TRADITIONAL /tmp/plain allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
export BENCH_NO_TRADITIONAL=1
M=--mca
G=64,128,256,512,1024
for np in 2 3 4; do run $np "" $G >> $OUT/x-nccl.csv; done
for r in 1 2; do
  for np in 2 3 4; do
    run $np -def-r$r $G >> $OUT/x-few.csv
    run $np -b8-r$r $G $M part_ucx_coll_gpu_blocks 8 $M part_ucx_coll_gpu_span_blocks 8 >> $OUT/x-few.csv
    run $np -b16-r$r $G $M part_ucx_coll_gpu_blocks 16 $M part_ucx_coll_gpu_span_blocks 16 >> $OUT/x-few.csv
    run $np -b4-r$r $G $M part_ucx_coll_gpu_blocks 4 $M part_ucx_coll_gpu_span_blocks 4 >> $OUT/x-few.csv
  done
  echo "round $r at $(el) s"
done
