#!/usr/bin/env bash
# Prepared in session 17, not run (no device time left). One H200 (or GPU 0
# of a larger kind), both ranks under MPS, with a bundle of 9480ae0 or
# later (kernel copy's new default groups, their verbose line). (1) Issue 21: the
# committed default itself (so far only its groups, set by the parameter,
# ran): bench/run-stream.sh with traditional, kernel copy (graph, kernels,
# host-synchronised) and both limits at every grid; (2) issue 22, one GPU
# at 4-64 MiB (1.6-2.4x the kernel + copy limit): how much of it the
# producers' MPIX_Pready releases cost. b_coll_gpu built a second time
# with nofence-pready-experiment.diff's header forced in (-include: its
# include guard then skips the installed one), timing only (unsafe
# ordering: a failed data check ends that run), np 2 and 4, two rounds.
# The across-GPU half of (1) is ../../h200x2/s17/call-i.sh.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
BENCH_VARIANTS="traditional kernel_copy_graph kernel_copy_kernels kernel_copy_host ipc_limit ipc_limit_graph" \
  BENCH_HRTT_VARIANTS=" " BENCH_TIMEOUT=60 BENCH_LABEL=mps timeout 300 bench/run-stream.sh $OUT/stream > $OUT/stream.log 2>&1
echo "stream at $(el) s"
# the groups the committed default picks (opal_common_ucx_verbose 10, 9480ae0):
# 32 KiB at 256-1024 blocks of 8 KiB, 64 KiB at 2048, 128 KiB at 4096
bench_cuda_build bench/b_stream.cu /tmp/b_stream $nccl -- $ncclibs > /dev/null 2>&1 &&
  timeout 60 mpirun -np 2 --bind-to none --mca part ucx --mca opal_common_ucx_verbose 10 /tmp/b_stream goodput \
    kernel_copy_kernels 256,1024,2048,4096 2>&1 | tr -d '\000' | grep -a 'transport groups' | sort | uniq -c > $OUT/groups.txt
mkdir -p /tmp/nf && cp mpix_part_device.h /tmp/nf/ && (cd /tmp/nf && patch -p1 < "$OLDPWD/bench/results/h200x1-stream/groups-s17/nofence-pready-experiment.diff") > /dev/null
bench_cuda_build bench/b_coll_gpu.cu /tmp/nofence -include /tmp/nf/mpix_part_device.h $nccl -- $ncclibs > $OUT/build-nofence.txt 2>&1 ||
  echo "nofence did not build"
export BENCH_NO_TRADITIONAL=1
runbin() { # BIN NP LABEL GRIDS
  BENCH_LABEL=$3 timeout 100 mpirun -np $2 --bind-to none --oversubscribe --mca part ucx -x BENCH_LABEL \
    -x BENCH_NO_TRADITIONAL $1 allreduce $4 2>&1 | tr -d '\000' | grep -a '^gallreduce'
}
for r in 1 2; do
  for np in 2 4; do
    runbin /tmp/plain $np -base-r$r 1024,4096,16384 >> $OUT/mps-nofence.csv
    runbin /tmp/nofence $np -nofence-r$r 1024,4096,16384 >> $OUT/mps-nofence.csv
  done
  echo "round $r at $(el) s"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/groups-s17/next-s18.sh 2>&1 | tail; tar -cJf $O/n.tar.xz -C /tmp o
