#!/usr/bin/env bash
# Next session's third call (4 GPUs): the first engine trace
# (bench/trace/run.sh) at np 2 and 4, 1 and 256 blocks; then GPU 0 under
# MPS at 64 KiB-64 MiB (np 4 at 64 blocks: issue 22 asks <= 15 us): staged loads, and units of 64 KiB through
# part_ucx_coll_gpu_blocks 1024 (the engine's blocks stay capped on a
# shared GPU, the units follow the parameter): whether spreading the last
# partition over every block shortens the tail after the producer
# (one block holds a 1 MiB unit at 64 MiB now).
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
bash bench/trace/run.sh /tmp/tr2 2 1,256 > $OUT/trace-np2.txt 2>&1; echo "trace np 2 at $(el) s"
bash bench/trace/run.sh /tmp/tr4 4 1,256 > $OUT/trace-np4.txt 2>&1; echo "trace np 4 at $(el) s"
tar -cJf $OUT/traces.tar.xz -C /tmp tr2/g1 tr2/g256 tr4/g1 tr4/g256 2>/dev/null
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
M=16,64,1024,4096,16384
for np in 2 4; do
  BENCH_NO_TRADITIONAL=1 run $np -regs $M >> $OUT/mps-ab.csv
  BENCH_NO_TRADITIONAL=1 run $np -staged $M --mca part_ucx_coll_gpu_staged_loads 1 >> $OUT/mps-ab.csv
  BENCH_NO_TRADITIONAL=1 run $np -units64k $M --mca part_ucx_coll_gpu_blocks 1024 >> $OUT/mps-ab.csv
  BENCH_NO_TRADITIONAL=1 run $np -staged-units64k $M --mca part_ucx_coll_gpu_staged_loads 1 --mca part_ucx_coll_gpu_blocks 1024 >> $OUT/mps-ab.csv
  echo "mps np $np at $(el) s"
done
echo quit | nvidia-cuda-mps-control
