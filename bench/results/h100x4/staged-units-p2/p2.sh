#!/usr/bin/env bash
# Next session's second call (4 GPUs): staged reductions against registers
# (part_ucx_coll_gpu_staged_loads 1/0, one install) at 1-64 MiB across GPUs
# (np 2, 3, 4), two rounds, and NCCL; units of total / 1024 blocks (the
# tail after the producer); p3.sh: the trace, one GPU.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; rm -rf $d; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs > $OUT/build.txt 2>&1 || echo "build failed"
run() { local np=$1 lab=$2 grids=$3; shift 3
  BENCH_LABEL=$lab timeout 90 mpirun -np $np --bind-to none --oversubscribe --mca part ucx "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plain allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
G=256,1024,4096,16384
for np in 2 3 4; do
  run $np "" $G >> $OUT/x-nccl.csv
  for r in 1 2; do
    BENCH_NO_TRADITIONAL=1 run $np -staged-r$r $G --mca part_ucx_coll_gpu_staged_loads 1 >> $OUT/x-ab.csv
    BENCH_NO_TRADITIONAL=1 run $np -regs-r$r $G --mca part_ucx_coll_gpu_staged_loads 0 >> $OUT/x-ab.csv
  done
  # units of total / 1024 (the engine's blocks stay capped at half the SMs)
  BENCH_NO_TRADITIONAL=1 run $np -units1024 $G --mca part_ucx_coll_gpu_blocks 1024 >> $OUT/x-ab.csv
  echo "np $np at $(el) s"
done
