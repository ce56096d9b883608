#!/usr/bin/env bash
# Session 19, call C: one H200, every rank under CUDA MPS, bundle of 996fbad
# (stream-ordered marks: info mpix_stream_kernels on a collective in after
# mode). First run of its 13 test lines and 2 sanitizer lines, with the
# after, gcoll-stream and a few engine lines again; then kernel + allreduce,
# stream-ordered rows, default vs after mode vs after mode with the marks
# (BENCH_STREAM_KERNELS), np 2 and 4, two rounds, and the limits.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
grep -E '^(gpu-stream-gcoll-marks|gpu-gcoll-stream|gpu-stream-gcoll-after|gpu-stream-gcoll-graph |gpu-gcoll-crowded-np4)' tests/gpu.list > /tmp/c.list
TEST_LIST=/tmp/c.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 280 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tail -1 $OUT/tests.txt)"
grep -E '^(FAIL|TIME)' $OUT/tests.txt | head
for k in san-stream-gcoll-marks san-gcoll-stream-marks; do
  SANITIZE_TOOLS="racecheck memcheck" TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 timeout 60 tools/sanitize-gpu.sh $OUT/sanitize-$k.txt -k $k > /dev/null 2>&1
  echo "sanitizer $k at $(el) s: $(grep -E '^(racecheck|memcheck):.*passed' $OUT/sanitize-$k.txt | tr '\n' ' ')"
done
export BENCH_NO_TRADITIONAL=1
G=1,64,1024,4096,16384
for r in 1 2; do
  for np in 2 4; do
    [ $(el) -lt 480 ] || break
    run $np -base-r$r $G >> $OUT/mps-marks.csv
    run $np -after-r$r $G --mca part_ucx_coll_gpu_after_bytes 1 >> $OUT/mps-marks.csv
    BENCH_STREAM_KERNELS=1 run $np -marks-r$r $G --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS >> $OUT/mps-marks.csv
  done
  echo "round $r at $(el) s"
done
[ $(el) -lt 530 ] && limits $G 2 4 >> $OUT/mps-limits.csv
echo "limits at $(el) s"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s19/call-c.sh 2>&1 | tail; tar -cJf $O/c.tar.xz -C /tmp o
