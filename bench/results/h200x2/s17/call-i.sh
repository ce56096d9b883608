#!/usr/bin/env bash
# Session 17, call I (two H200, one rank a GPU), bundle of f244fe8.
# After calls G and H on one H200 (32 KiB groups faster at 256-2048
# blocks): kernel copy (graph, host-issued kernels) and the limit across
# the GPUs, 256-2048 blocks, group bytes 32768 against the default.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
for g in default 32768; do
  case $g in default*) unset OMPI_MCA_part_ucx_device_group_bytes ;; *) export OMPI_MCA_part_ucx_device_group_bytes=$g ;; esac
  [ $(el) -lt 60 ] || break
  BENCH_VARIANTS="kernel_copy_graph kernel_copy_kernels ipc_limit" BENCH_HRTT_VARIANTS=" " BENCH_GRIDS=256,1024,2048 \
    BENCH_TIMEOUT=25 BENCH_LABEL=nvlink timeout 40 bench/run-stream.sh /tmp/g-$g > /dev/null 2>&1
  mkdir -p $OUT/$g && cp /tmp/g-$g/results.csv /tmp/g-$g/tables.txt $OUT/$g/ 2>/dev/null
  echo "group bytes $g at $(el) s"
done
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x2/s17/call-i.sh 2>&1 | tail; tar -cJf $O/i.tar.xz -C /tmp o
