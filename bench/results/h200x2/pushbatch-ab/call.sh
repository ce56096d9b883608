#!/usr/bin/env bash
# Session 3 call 2: the batched push (GCOLL_PUSH_BATCH 4 and 2) against HEAD's push,
# plugin swapped, across GPUs and on one GPU under MPS; then the gcoll lines and
# compute-sanitizer over the push line with the installed (batch 4) plugin.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
d=/tmp/p; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/bcg $nccl -- $ncclibs
pl=$d/part-ucx/lib/openmpi/part_ucx_device.so; cp $pl /tmp/installed.so
echo "built at $(el) s"
ngpu=$(nvidia-smi -L | wc -l)
run() { local np=$1 lab=$2; shift 2
  BENCH_LABEL=$lab timeout 100 mpirun -np $np --bind-to none --mca part ucx -x BENCH_LABEL "$@" 2>&1 |
  tr -d '\000' | grep -a '^gallreduce'; }
ab() { # np grids out
  for v in old b4 b2; do cp .bundle/exp/$v.so $pl
    BENCH_NO_TRADITIONAL=1 run $1 -$v-push -x BENCH_NO_TRADITIONAL --mca part_ucx_coll_gpu_push_bytes 262144 /tmp/bcg allreduce $2 >> $3
  done
  BENCH_NO_TRADITIONAL=1 run $1 -b4-pull -x BENCH_NO_TRADITIONAL --mca part_ucx_coll_gpu_push_bytes 0 /tmp/bcg allreduce $2 >> $3
}
if [ $ngpu -ge 2 ]; then
  for round in 1 2; do ab 2 1,4,16,64,256 $OUT/x-ab.csv; echo "x round $round at $(el) s"; done
fi
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
ab 2 1,4,16,64,256 $OUT/mps-ab.csv; echo "mps np2 at $(el) s"
ab 4 1,16,64 $OUT/mps-ab.csv; echo "mps np4 at $(el) s"
cp /tmp/installed.so $pl
TEST_BUILD_DIR=/tmp/tmps timeout 200 tools/test.sh --gpu -k gcoll > $OUT/mps-gcoll.txt 2>&1
echo "mps gcoll: $(tail -1 $OUT/mps-gcoll.txt) at $(el) s"
echo quit | nvidia-cuda-mps-control
unset CUDA_VISIBLE_DEVICES CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
left=$(( 560 - $(el) ))
[ $left -gt 30 ] && timeout $left bash tools/sanitize-gpu.sh $OUT/sanitize.txt -k san-gcoll-push > /dev/null 2>&1
echo "sanitize: $(grep -a 'passed' $OUT/sanitize.txt | tr '\n' ' ') at $(el) s"
