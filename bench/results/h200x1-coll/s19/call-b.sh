#!/usr/bin/env bash
# Session 19, call B: one H200, two ranks under CUDA MPS, bundle of
# 1c65439. (1) pready_floor.cu (no MPI): what the smallest block-level
# readiness mark costs a short producer, two kernels at once; (2) issue
# 21's last miss, kernel copy in graphs at 0.86-0.87x the host-issued
# limit at 65536-131072 blocks, where the default groups are 128 KiB (its
# cap): part_ucx_device_group_bytes 256 KiB, 512 KiB and 1 MiB against
# the default, default first and last, 4096-131072 blocks.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
D=bench/results/h200x1-coll/s19
nvcc -O3 -arch=sm_90 -o /tmp/pf $D/pready_floor.cu && timeout 60 /tmp/pf > $OUT/pready_floor.csv 2>&1
echo "pready_floor at $(el) s"
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
for g in default 262144 524288 1048576 default2; do
  case $g in default*) unset OMPI_MCA_part_ucx_device_group_bytes ;; *) export OMPI_MCA_part_ucx_device_group_bytes=$g ;; esac
  [ $(el) -lt 450 ] || break
  BENCH_VARIANTS="kernel_copy_graph ipc_limit" BENCH_HRTT_VARIANTS=" " BENCH_GRIDS=4096,16384,65536,131072 \
    BENCH_TIMEOUT=40 BENCH_LABEL=mps timeout 85 bench/run-stream.sh /tmp/g-$g > /dev/null 2>&1
  mkdir -p $OUT/$g && cp /tmp/g-$g/results.csv /tmp/g-$g/tables.txt $OUT/$g/ 2>/dev/null
  echo "group bytes $g at $(el) s"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s19/call-b.sh 2>&1 | tail; tar -cJf $O/b.tar.xz -C /tmp o
