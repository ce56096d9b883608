#!/usr/bin/env bash
# Session 18, call A (two H200, one rank a GPU), bundle of 99f06d3.
# (1) Issue 21 across GPUs: kernel copy (graph, host-issued kernels) and
# the limit at 256-2048 blocks with the committed default groups (32 KiB
# at 256-1024 blocks of 8 KiB, 64 KiB at 2048) against the old 128 KiB.
# (2) Issue 23, the 64-256 block gap to NCCL's graph: b_coll_gpu as built
# and a second time with the producers' MPIX_Pready releases removed
# (../../h200x1-stream/groups-s17/nofence-pready-experiment.diff, timing
# only), np 2, two rounds; plus the kernel's own time with and without
# MPIX_Pready (BENCH_KERNEL_TIME) at those grids.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
for g in default 131072; do
  case $g in default*) unset OMPI_MCA_part_ucx_device_group_bytes ;; *) export OMPI_MCA_part_ucx_device_group_bytes=$g ;; esac
  BENCH_VARIANTS="kernel_copy_graph kernel_copy_kernels ipc_limit" BENCH_HRTT_VARIANTS=" " BENCH_GRIDS=256,1024,2048 \
    BENCH_TIMEOUT=25 BENCH_LABEL=nvlink timeout 60 bench/run-stream.sh /tmp/g-$g > /dev/null 2>&1
  mkdir -p $OUT/groups-$g && cp /tmp/g-$g/results.csv /tmp/g-$g/tables.txt $OUT/groups-$g/ 2>/dev/null
  echo "group bytes $g at $(el) s"
done
unset OMPI_MCA_part_ucx_device_group_bytes
mkdir -p /tmp/nf && cp mpix_part_device.h /tmp/nf/ &&
  (cd /tmp/nf && patch -p1 < "$OLDPWD/bench/results/h200x1-stream/groups-s17/nofence-pready-experiment.diff") > /dev/null
bench_cuda_build bench/b_coll_gpu.cu /tmp/nofence -include /tmp/nf/mpix_part_device.h $nccl -- $ncclibs > $OUT/build-nofence.txt 2>&1 ||
  echo "nofence did not build"
export BENCH_NO_TRADITIONAL=1
runbin() { # BIN NP LABEL GRIDS
  BENCH_LABEL=$3 timeout 100 mpirun -np $2 --bind-to none --mca part ucx -x BENCH_LABEL \
    -x BENCH_NO_TRADITIONAL ${BENCH_KERNEL_TIME:+-x BENCH_KERNEL_TIME} $1 allreduce $4 2>&1 | tr -d '\000' | grep -a '^g'
}
for r in 1 2; do
  runbin /tmp/plain 2 -base-r$r 1,64,192,256,1024 >> $OUT/x-nofence.csv
  runbin /tmp/nofence 2 -nofence-r$r 1,64,192,256,1024 >> $OUT/x-nofence.csv
  echo "round $r at $(el) s"
done
BENCH_KERNEL_TIME=1 runbin /tmp/plain 2 -ktime 1,64,192,256,1024 >> $OUT/x-ktime.csv
echo "ktime at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x2/s18/call-a.sh 2>&1 | tail; tar -cJf $O/a.tar.xz -C /tmp o
