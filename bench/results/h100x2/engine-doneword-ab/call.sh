#!/usr/bin/env bash
# Session 4 call 2: done words without a count where a partition lies in one
# unit, and the epoch read beside the arguments' copy (new) against HEAD's
# plugin (base), same install; gcoll lines and compute-sanitizer with new.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/p; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache
{ nvidia-smi -L; nvidia-smi topo -m; echo "bundle: ${BUNDLE_COMMIT:-?}"; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs
pl=$d/part-ucx/lib/openmpi/part_ucx_device.so
ngpu=$(nvidia-smi -L | wc -l)
run() { local np=$1 lab=$2; shift 2; BENCH_LABEL=$lab timeout 90 mpirun -np $np --bind-to none --mca part ucx -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plain allreduce "$@" 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
ab() { for v in base new; do cp .bundle/exp/$v.so $pl; BENCH_NO_TRADITIONAL=1 run $1 -$v $2 >> $3; done; }
if [ $ngpu -ge 2 ]; then
  for r in 1 2 3; do ab 2 1,4,16,64,256,1024 $OUT/x-ab.csv; done; echo "x ab at $(el) s"
  cp .bundle/exp/new.so $pl
  TEST_BUILD_DIR=/tmp/tx timeout 150 tools/test.sh --gpu -k gcoll > $OUT/x-gcoll.txt 2>&1
  echo "x gcoll: $(tail -1 $OUT/x-gcoll.txt) at $(el) s"
fi
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
for r in 1 2; do ab 2 1,4,16,64,256,1024 $OUT/mps-ab.csv; ab 4 1,16,64,1024 $OUT/mps-ab.csv; done; echo "mps ab at $(el) s"
cp .bundle/exp/new.so $pl
TEST_BUILD_DIR=/tmp/tmps timeout 150 tools/test.sh --gpu -k gcoll > $OUT/mps-gcoll.txt 2>&1
echo "mps gcoll: $(tail -1 $OUT/mps-gcoll.txt) at $(el) s"
echo quit | nvidia-cuda-mps-control
unset CUDA_VISIBLE_DEVICES CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
left=$(( 540 - $(el) ))
[ $left -gt 30 ] && timeout $left bash tools/sanitize-gpu.sh $OUT/sanitize.txt -k san-gcoll > /dev/null 2>&1
echo "sanitize: $(grep -a 'passed' $OUT/sanitize.txt | tr '\n' ' ') at $(el) s"
