#!/usr/bin/env bash
# Session 18, call E: one H200, every rank under CUDA MPS. The library's
# MPIX_Pready is back to its count (alone-pready-experiment.diff, which
# marked a collective's partition from its ready word without a count,
# was slower in call D2). (1) The after mode's test lines and a few of the
# engine's with it; (2) kernel + allreduce with b_coll_gpu as built and
# with redmark-pready-experiment.diff's header forced in (a collective's
# call that completes its partition alone: the counter loaded with the
# request's fields, the mark, then the count's epoch advanced by an
# atomic without a return; timing only), default and after mode, np 2
# and 4, 4-64 MiB, two rounds.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E '^(gpu-stream-gcoll-after|gpu-stream-gcoll-graph |gpu-stream-gcoll-np3|gpu-gcoll-crowded-np4|gpu-stream-gcoll-graph-np4)' tests/gpu.list > /tmp/e.list
TEST_LIST=/tmp/e.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 200 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tail -1 $OUT/tests.txt)"
mkdir -p /tmp/rm && cp mpix_part_device.h /tmp/rm/ &&
  (cd /tmp/rm && patch -p1 < "$OLDPWD/bench/results/h200x1-coll/s18/redmark-pready-experiment.diff") > /dev/null
bench_cuda_build bench/b_coll_gpu.cu /tmp/redmark -include /tmp/rm/mpix_part_device.h $nccl -- $ncclibs > $OUT/build-redmark.txt 2>&1 ||
  echo "redmark did not build"
export BENCH_NO_TRADITIONAL=1
runbin() { # BIN NP LABEL GRIDS [mpirun options]
  local b=$1 np=$2 lab=$3 g=$4; shift 4
  BENCH_LABEL=$lab timeout 60 mpirun -np $np --bind-to none --oversubscribe --mca part ucx "$@" -x BENCH_LABEL \
    -x BENCH_NO_TRADITIONAL $b allreduce $g 2>&1 | tr -d '\000' | grep -a '^gallreduce'
}
for r in 1 2; do
  for np in 2 4; do
    runbin /tmp/plain $np -base-r$r 1024,4096,16384 >> $OUT/mps-redmark.csv
    runbin /tmp/redmark $np -redmark-r$r 1024,4096,16384 >> $OUT/mps-redmark.csv
    runbin /tmp/plain $np -after-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 >> $OUT/mps-redmark.csv
    runbin /tmp/redmark $np -redmark_after-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 >> $OUT/mps-redmark.csv
  done
  echo "round $r at $(el) s"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s18/call-e.sh 2>&1 | tail; tar -cJf $O/e.tar.xz -C /tmp o
