#!/usr/bin/env bash
# Session 17, call H (one H200, two ranks under MPS), bundle of f244fe8.
# After call G (smaller groups: +8% at 1024 blocks in graphs): the same
# group bytes for the host-issued kernel copy (kernels counting the
# epochs, host-synchronised, stream-ordered), 256-2048 blocks, where a
# rule of at least 256 groups of at least 32 KiB would change them.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
for g in default 32768 65536; do
  case $g in default*) unset OMPI_MCA_part_ucx_device_group_bytes ;; *) export OMPI_MCA_part_ucx_device_group_bytes=$g ;; esac
  [ $(el) -lt 150 ] || break
  BENCH_VARIANTS="kernel_copy_kernels kernel_copy_host kernel_copy_stream" BENCH_HRTT_VARIANTS=" " BENCH_GRIDS=256,1024,2048 \
    BENCH_TIMEOUT=40 BENCH_LABEL=mps timeout 75 bench/run-stream.sh /tmp/g-$g > /dev/null 2>&1
  mkdir -p $OUT/$g && cp /tmp/g-$g/results.csv /tmp/g-$g/tables.txt $OUT/$g/ 2>/dev/null
  echo "group bytes $g at $(el) s"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/groups-s17/call-h.sh 2>&1 | tail; tar -cJf $O/h.tar.xz -C /tmp o
