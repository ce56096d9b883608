#!/usr/bin/env bash
# Session 17, call G (one H200, two ranks under MPS), bundle of f244fe8.
# Issue 21's last miss: kernel copy in graphs at 0.79x the host-issued
# limit at 1024 blocks, where its epoch ends with the last wave's groups
# (128 KiB each, the default's at least 32 groups capped at 128 KiB),
# each copied by one block. Smaller groups shorten that tail for more
# copies and fences: bench/run-stream.sh, kernel_copy_graph and ipc_limit
# at 256-16384 blocks, with part_ucx_device_group_bytes 32768 and 65536
# against the default, default first and last.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
for g in default 32768 65536 default2; do
  case $g in default*) unset OMPI_MCA_part_ucx_device_group_bytes ;; *) export OMPI_MCA_part_ucx_device_group_bytes=$g ;; esac
  [ $(el) -lt 230 ] || break
  BENCH_VARIANTS="kernel_copy_graph ipc_limit" BENCH_HRTT_VARIANTS=" " BENCH_GRIDS=256,1024,2048,4096,16384 \
    BENCH_TIMEOUT=40 BENCH_LABEL=mps timeout 75 bench/run-stream.sh /tmp/g-$g > /dev/null 2>&1
  mkdir -p $OUT/$g && cp /tmp/g-$g/results.csv /tmp/g-$g/tables.txt $OUT/$g/ 2>/dev/null
  echo "group bytes $g at $(el) s"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/groups-s17/call-g.sh 2>&1 | tail; tar -cJf $O/g.tar.xz -C /tmp o
