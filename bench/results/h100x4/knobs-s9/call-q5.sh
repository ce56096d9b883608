#!/usr/bin/env bash
# Session 9, call 5 (4 GPUs), bundle of 6437af0: the bulk-pushed
# two-shot (part_ucx_coll_gpu_twoshot_push 1) with more blocks at 4-64
# MiB: stores stream, and a block waiting for its peers' flags moves
# nothing, so more units in flight may hide that wait. Against the pulled
# default, np 2-4, two rounds; NCCL rows once.
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
  BENCH_LABEL=$lab timeout 100 mpirun -np $np --bind-to none --oversubscribe --mca part ucx "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plain allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
G=1024,4096,16384
for np in 2 3 4; do run $np "" $G >> $OUT/x-nccl.csv; done
echo "nccl at $(el) s"
export BENCH_NO_TRADITIONAL=1
M=--mca
for r in 1 2; do
  for np in 2 3 4; do
    run $np -pull-r$r $G >> $OUT/x-push.csv
    run $np -push-r$r $G $M part_ucx_coll_gpu_twoshot_push 1 >> $OUT/x-push.csv
    run $np -push64-r$r $G $M part_ucx_coll_gpu_twoshot_push 1 $M part_ucx_coll_gpu_blocks 64 >> $OUT/x-push.csv
    run $np -push256-r$r $G $M part_ucx_coll_gpu_twoshot_push 1 $M part_ucx_coll_gpu_blocks 256 >> $OUT/x-push.csv
  done
  echo "round $r at $(el) s"
done
