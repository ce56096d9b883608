#!/usr/bin/env bash
# Prepared in session 18, not run (no device time left). One H200 (or GPU 0
# of a larger kind), every rank under CUDA MPS, bundle of 542b970 or later
# (a checkout with bench/call-common.sh's mps_start and limits).
# Issue 22 at 4-64 MiB: how much of the producers' MPIX_Pready (about 145
# us a rank at 64 MiB against 41 for the kernel alone, c/trace) is the
# count and how much the release. b_coll_gpu built three times: as is,
# with unchecked-pready-experiment.diff (the leader stores the stream's
# epoch into the ready word: no count, no release) and with
# released-pready-experiment.diff (no count, the release kept); timing
# only, stream-ordered rows alone (BENCH_NO_HOST: the host-started epoch's
# kernels would take a stale epoch), default and after mode
# (part_ucx_coll_gpu_after_bytes 1), np 2 and 4, two rounds; then the two
# limits. If "unchecked" in after mode comes near 1.3x the limit, the mode
# to build: MPIX_Pready of a stream-ordered epoch in after mode marks
# without count or release (the gate, ordered after the producers by the
# stream, releases the rank's readiness once for the peers), with misuse
# tests of its own.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
D=bench/results/h200x1-coll/s18
for v in unchecked released; do
  mkdir -p /tmp/x-$v && cp mpix_part_device.h /tmp/x-$v/ &&
    (cd /tmp/x-$v && patch -p1 < "$OLDPWD/$D/$v-pready-experiment.diff") > /dev/null
  bench_cuda_build bench/b_coll_gpu.cu /tmp/$v -include /tmp/x-$v/mpix_part_device.h $nccl -- $ncclibs \
    > $OUT/build-$v.txt 2>&1 || echo "$v did not build"
done
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
runbin() { # BIN NP LABEL GRIDS [mpirun options]
  local b=$1 np=$2 lab=$3 g=$4; shift 4
  BENCH_LABEL=$lab timeout 60 mpirun -np $np --bind-to none --oversubscribe --mca part ucx "$@" -x BENCH_LABEL \
    -x BENCH_NO_TRADITIONAL -x BENCH_NO_HOST $b allreduce $g 2>&1 | tr -d '\000' | grep -a '^gallreduce'
}
G=1,64,1024,4096,16384
for r in 1 2; do
  for np in 2 4; do
    for v in plain unchecked released; do
      runbin /tmp/$v $np -$v-r$r $G >> $OUT/mps-pready.csv
      runbin /tmp/$v $np -${v}_after-r$r $G --mca part_ucx_coll_gpu_after_bytes 1 >> $OUT/mps-pready.csv
    done
  done
  echo "round $r at $(el) s"
done
limits $G 2 4 >> $OUT/mps-limits.csv
echo "limits at $(el) s"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s18/next-s19.sh 2>&1 | tail; tar -cJf $O/n.tar.xz -C /tmp o
