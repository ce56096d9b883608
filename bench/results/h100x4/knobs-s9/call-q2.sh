#!/usr/bin/env bash
# Session 9, call 2 (4 GPUs), bundle .bundle/exp-cap.tar.xz (6437af0 +
# an experiment-only env var PART_UCX_EXP_SHARE that lifts the engine's
# block cap: sms / (SHARE * sharing), default 2) and two plugins built
# here from the tree: as is, and -DGCOLL_ROTATE (gcoll_reduce loads the
# ranks from me + 1 on, not from rank 0). A/B at 4-64 MiB across GPUs
# and on GPU 0 under MPS.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; rm -rf $d; mkdir -p $d && tar -xJf .bundle/exp-cap.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-q
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
plugin=$d/part-ucx/lib/openmpi/part_ucx_device.so
F="-O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I."
/usr/local/cuda/bin/nvcc $F -o /tmp/base.so part_ucx_device.cu > $OUT/build.txt 2>&1 &
/usr/local/cuda/bin/nvcc $F -DGCOLL_ROTATE -o /tmp/rot.so part_ucx_device.cu >> $OUT/build.txt 2>&1 &
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs >> $OUT/build.txt 2>&1 || echo "build failed"
wait; ls -la /tmp/base.so /tmp/rot.so || exit 1
echo "built at $(el) s"
export BENCH_NO_TRADITIONAL=1
run() { local np=$1 lab=$2 grids=$3; shift 3
  BENCH_LABEL=$lab timeout 100 mpirun -np $np --bind-to none --oversubscribe --mca part ucx "$@" -x BENCH_LABEL -x BENCH_NO_TRADITIONAL -x PART_UCX_EXP_SHARE /tmp/plain allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
G=1024,4096,16384
for r in 1 2; do
  for np in 2 3 4; do
    cp /tmp/base.so $plugin; PART_UCX_EXP_SHARE=2 run $np -base-r$r $G >> $OUT/x-ab.csv
    cp /tmp/rot.so $plugin; PART_UCX_EXP_SHARE=2 run $np -rot-r$r $G >> $OUT/x-ab.csv
    cp /tmp/base.so $plugin; PART_UCX_EXP_SHARE=1 run $np -cap1b128-r$r $G --mca part_ucx_coll_gpu_blocks 128 >> $OUT/x-ab.csv
  done
  echo "x round $r at $(el) s"
done
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
M=64,1024,4096,16384
for r in 1 2; do
  for np in 2 4; do
    cp /tmp/base.so $plugin; PART_UCX_EXP_SHARE=2 run $np -base-r$r $M >> $OUT/mps-ab.csv
    cp /tmp/rot.so $plugin; PART_UCX_EXP_SHARE=2 run $np -rot-r$r $M >> $OUT/mps-ab.csv
    cp /tmp/base.so $plugin; PART_UCX_EXP_SHARE=1 run $np -cap1b64-r$r $M --mca part_ucx_coll_gpu_blocks 64 >> $OUT/mps-ab.csv
    PART_UCX_EXP_SHARE=1 run $np -cap1b128-r$r $M --mca part_ucx_coll_gpu_blocks 128 >> $OUT/mps-ab.csv
  done
  echo "mps round $r at $(el) s"
done
echo quit | nvidia-cuda-mps-control
