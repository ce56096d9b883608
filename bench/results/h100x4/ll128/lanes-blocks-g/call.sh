#!/usr/bin/env bash
# Session 6 call G (4 GPUs): LL128 lines a lane takes at a time (AT 1/2/4,
# PART_UCX_EXP_LL128_AT, an experiment's switch) and more blocks (64, span
# units of 1 KiB) against the flagged bulk push, np 2 and 4, 16-512 blocks;
# the ll128 lines at AT 1 and AT 4.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; rm -rf $d; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-g
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plaing $nccl -- $ncclibs
run() { local np=$1 lab=$2 grids=$3; shift 3; BENCH_LABEL=$lab BENCH_NO_TRADITIONAL=1 timeout 60 mpirun -np $np --bind-to none --mca part ucx "$@" -x BENCH_LABEL -x BENCH_NO_TRADITIONAL -x PART_UCX_EXP_LL128_AT /tmp/plaing allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
G=16,32,64,128,256,512
B64="--mca part_ucx_coll_gpu_blocks 64 --mca part_ucx_coll_gpu_span_unit_bytes 1024"
for round in 1 2; do
for np in 2 4; do
  PART_UCX_EXP_LL128_AT=1 run $np -flagged-r$round $G --mca part_ucx_coll_gpu_ll128 0 >> $OUT/ab.csv
  for at in 1 2 4; do PART_UCX_EXP_LL128_AT=$at run $np -at$at-r$round $G >> $OUT/ab.csv; done
  PART_UCX_EXP_LL128_AT=1 run $np -flagged-b64-r$round $G --mca part_ucx_coll_gpu_ll128 0 $B64 >> $OUT/ab.csv
  for at in 1 2; do PART_UCX_EXP_LL128_AT=$at run $np -at$at-b64-r$round $G $B64 >> $OUT/ab.csv; done
  echo "round $round np $np at $(el) s"
done
done
for at in 1 4; do
  PART_UCX_EXP_LL128_AT=$at TEST_BUILD_DIR=/tmp/tbg TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 timeout 100 tools/test.sh --gpu -k gcoll-ll128 > $OUT/x-ll128-at$at.txt 2>&1
  echo "ll128 lines at $at: $(tail -1 $OUT/x-ll128-at$at.txt) at $(el) s"
done
grep -a -h FAIL $OUT/*.txt | head -20
