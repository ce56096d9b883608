#!/usr/bin/env bash
# This session's call (4 GPUs): the graph-host fix (ce7d780) and the
# bulk-pushed two-shot (e855717): its suite and sanitizer lines across
# GPUs, then A/B part_ucx_coll_gpu_twoshot_push 1 vs 0 in one install at
# 1-64 MiB, np 2/3/4, with NCCL; then GPU 0 under MPS: 2 vs 0.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; rm -rf $d; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-p
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
TEST_BUILD_DIR=/tmp/tbp TEST_TIMEOUT=60 timeout 200 tools/test.sh --gpu -k '@(*twoshot-push*|*graph-host*)' > $OUT/x-new.txt 2>&1
echo "x new: $(tr -d '\000' < $OUT/x-new.txt | tail -n 1) at $(el) s"
mkdir -p /tmp/fl; for f in $(tr -d '\000' < $OUT/x-new.txt | awk '/^FAIL/{print $2}'); do cp /tmp/tbp/$f.*log /tmp/fl/ 2>/dev/null; done
ls /tmp/fl | grep -q . && tar -cJf $OUT/failed-logs.tar.xz -C /tmp fl
TEST_BUILD_DIR=/tmp/tbp TEST_REUSE_BUILD=1 timeout 90 bash tools/sanitize-gpu.sh $OUT/sanitize.txt -k 'san-gcoll-twoshot-push*' > /dev/null 2>&1
echo "sanitize: $(tr -d '\000' < $OUT/sanitize.txt | grep -a 'passed' | tr '\n' ' ') at $(el) s"
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs > $OUT/build.txt 2>&1 || echo "build failed"
run() { local np=$1 lab=$2 grids=$3; shift 3
  BENCH_LABEL=$lab timeout 90 mpirun -np $np --bind-to none --oversubscribe --mca part ucx "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plain allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
G=256,512,1024,4096,16384
for np in 2 3 4; do
  run $np "" $G >> $OUT/x-nccl.csv
  for r in 1 2; do
    BENCH_NO_TRADITIONAL=1 run $np -push-r$r $G --mca part_ucx_coll_gpu_twoshot_push 1 >> $OUT/x-ab.csv
    BENCH_NO_TRADITIONAL=1 run $np -pull-r$r $G --mca part_ucx_coll_gpu_twoshot_push 0 >> $OUT/x-ab.csv
  done
  echo "np $np at $(el) s"
done
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
M=1024,4096,16384
for np in 2 4; do
  run $np "" $M >> $OUT/mps-ab.csv
  BENCH_NO_TRADITIONAL=1 run $np -push $M --mca part_ucx_coll_gpu_twoshot_push 2 >> $OUT/mps-ab.csv
  echo "mps np $np at $(el) s"
done
echo quit | nvidia-cuda-mps-control
