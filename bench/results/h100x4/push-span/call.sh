#!/usr/bin/env bash
# Session 5 call C (4 GPUs): the gcoll lines across GPUs with the span units;
# push threshold across GPUs (np 2 and 4); compute-sanitizer over san-gcoll.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-b
{ nvidia-smi -L; nvidia-smi topo -m; git log -1 --format=%H; } > $OUT/node.txt 2>&1
TEST_BUILD_DIR=/tmp/tbx TEST_TIMEOUT=60 timeout 230 tools/test.sh --gpu -k gcoll > $OUT/x-gcoll.txt 2>&1
echo "x gcoll: $(tail -1 $OUT/x-gcoll.txt) at $(el) s"
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plainb $nccl -- $ncclibs
run() { local np=$1 lab=$2 grids=$3; shift 3; BENCH_LABEL=$lab timeout 60 mpirun -np $np --bind-to none --mca part ucx "$@" -x BENCH_LABEL -x BENCH_NO_TRADITIONAL /tmp/plainb allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
export BENCH_NO_TRADITIONAL=1
for np in 2 4; do
  for p in 8192 32768 131072; do run $np -p$p 1,2,4,8,16,32 --mca part_ucx_coll_gpu_push_bytes $p >> $OUT/push.csv; done
  echo "np $np push at $(el) s"
  run $np -bulk 128,256,512 --mca part_ucx_coll_gpu_bulk_bytes 2097152 --mca part_ucx_coll_gpu_twoshot_bytes 4194304 >> $OUT/kinds.csv
  run $np -pull 128 --mca part_ucx_coll_gpu_bulk_bytes 0 >> $OUT/kinds.csv
  run $np -ts 128,256,512 --mca part_ucx_coll_gpu_twoshot_bytes 262144 >> $OUT/kinds.csv
  echo "np $np kinds at $(el) s"
done
( export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
  mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
  TEST_BUILD_DIR=/tmp/tbx TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 timeout 150 tools/test.sh --gpu -k 'gcoll-[bus]' > $OUT/mps-gcoll.txt 2>&1
  echo quit | nvidia-cuda-mps-control )
echo "mps gcoll: $(tail -1 $OUT/mps-gcoll.txt) at $(el) s"
left=$(( 570 - $(el) ))
[ $left -gt 30 ] && TEST_BUILD_DIR=/tmp/tbx TEST_REUSE_BUILD=1 timeout $left bash tools/sanitize-gpu.sh $OUT/sanitize.txt -k san-gcoll-bulk > /dev/null 2>&1
echo "sanitize: $(grep -a 'passed' $OUT/sanitize.txt | tr '\n' ' ') at $(el) s"
grep -a -h FAIL $OUT/*.txt | head -20
