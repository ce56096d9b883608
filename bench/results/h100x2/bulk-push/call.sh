#!/usr/bin/env bash
# Session 4 call 3: the bulk push allreduce (part_ucx_coll_gpu_bulk_bytes)
# against the pull, same install (bulk 0 vs 1 MiB); NCCL rows; gcoll lines
# across the GPUs and under MPS; compute-sanitizer over san-gcoll.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; mkdir -p $d && tar -xJf .bundle/part-ucx-bulk.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-b
{ nvidia-smi -L; nvidia-smi topo -m; echo "bundle: ${BUNDLE_COMMIT:-?}"; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plainb $nccl -- $ncclibs
ngpu=$(nvidia-smi -L | wc -l)
run() { local np=$1 lab=$2 grids=$3; shift 3; BENCH_LABEL=$lab timeout 90 mpirun -np $np --bind-to none --mca part ucx "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plainb allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
ab() { BENCH_NO_TRADITIONAL=1 run $1 -pull $2 --mca part_ucx_coll_gpu_bulk_bytes 0 >> $3
       BENCH_NO_TRADITIONAL=1 run $1 -bulk $2 --mca part_ucx_coll_gpu_bulk_bytes 1048576 --mca part_ucx_coll_gpu_twoshot_bytes 2097152 >> $3; }
if [ $ngpu -ge 2 ]; then
  for r in 1 2; do ab 2 1,4,16,64,128,256 $OUT/x-ab.csv; done; echo "x ab at $(el) s"
  run 2 "" 1,4,16,64,128,256,1024 > $OUT/x-nccl.csv; echo "x nccl at $(el) s"
  TEST_BUILD_DIR=/tmp/tbx timeout 170 tools/test.sh --gpu -k gcoll > $OUT/x-gcoll.txt 2>&1
  echo "x gcoll: $(tail -1 $OUT/x-gcoll.txt) at $(el) s"
fi
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
for r in 1 2; do ab 2 1,4,16,64,128,256 $OUT/mps-ab.csv; ab 4 1,16,64,128 $OUT/mps-ab.csv; done; echo "mps ab at $(el) s"
TEST_BUILD_DIR=/tmp/tbm timeout 170 tools/test.sh --gpu -k gcoll > $OUT/mps-gcoll.txt 2>&1
echo "mps gcoll: $(tail -1 $OUT/mps-gcoll.txt) at $(el) s"
echo quit | nvidia-cuda-mps-control
unset CUDA_VISIBLE_DEVICES CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
left=$(( 560 - $(el) ))
[ $left -gt 30 ] && timeout $left bash tools/sanitize-gpu.sh $OUT/sanitize.txt -k san-gcoll > /dev/null 2>&1
echo "sanitize: $(grep -a 'passed' $OUT/sanitize.txt | tr '\n' ' ') at $(el) s"
grep -a -h FAIL $OUT/*.txt | head -20
