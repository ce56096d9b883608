#!/usr/bin/env bash
# Session 9, call 6 (2 GPUs: four did not come; np 2 with the two-shot forced by _bulk_bytes 0): is the application's system-scope release in
# MPIX_Pready what makes np 3-4 wait for their own partitions at 1 MiB
# (trace-p3: own ready 6.9 us after the kernel began)? Bundle of 6437af0
# plus an experiment-only variable (knobs-s9/q6-experiment.diff):
# PART_UCX_EXP_PREADY_GPU set makes a collective's device MPIX_Pready
# release at GPU scope also where peers on other GPUs read the data (not
# correct under the PTX model; for timing only). A/B np 2-4, two rounds;
# then the engine trace at np 4, 256 blocks, with and without.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; rm -rf $d; mkdir -p $d && tar -xJf .bundle/exp-scope.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-q
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs > $OUT/build.txt 2>&1 || echo "build failed"
run() { local np=$1 lab=$2 grids=$3; shift 3
  BENCH_LABEL=$lab timeout 60 mpirun -np $np --bind-to none --mca part ucx "$@" -x BENCH_LABEL -x BENCH_NO_TRADITIONAL /tmp/plain allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
export BENCH_NO_TRADITIONAL=1
G=16,64,256,1024,4096
B="--mca part_ucx_coll_gpu_bulk_bytes 0"
for r in 1 2; do
  for np in 2; do
    run $np -sys-r$r $G >> $OUT/x-scope.csv
    run $np -sysnobulk-r$r $G $B >> $OUT/x-scope.csv
    PART_UCX_EXP_PREADY_GPU=1 run $np -gpunobulk-r$r $G $B -x PART_UCX_EXP_PREADY_GPU >> $OUT/x-scope.csv
    PART_UCX_EXP_PREADY_GPU=1 run $np -gpu-r$r $G -x PART_UCX_EXP_PREADY_GPU >> $OUT/x-scope.csv
  done
  echo "round $r at $(el) s"
done
bash bench/trace/run.sh /tmp/tsys 2 256 $B > $OUT/trace-sys.txt 2>&1
export PART_UCX_EXP_PREADY_GPU=1
bash bench/trace/run.sh /tmp/tgpu 2 256 $B -x PART_UCX_EXP_PREADY_GPU > $OUT/trace-gpu.txt 2>&1
echo "traces at $(el) s"
tar -cJf $OUT/traces.tar.xz -C /tmp tsys/g256 tgpu/g256 2>/dev/null
