#!/usr/bin/env bash
# Session 22, call B (one H200, every rank under CUDA MPS), bundle with
# after mode's own engine kernel (part_gcoll_after, 96 registers, the gate
# 512 threads) and the gate and engine launched as programmatic dependents
# (call A's afterwide4 and pdl2 together).
# (1) Marks mode, np 2 and 4, 4/16/64 MiB, two rounds: the plugin as built
#     against prev (-experiment.diff here: the plugin of call A's bundle).
# (2) The marks and after-mode lines; compute-sanitizer over the gated
#     lines (synccheck, racecheck, memcheck).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mkdir -p .bundle/exp && cp bench/results/h200x1-coll/s22/prev-experiment.diff .bundle/exp/prev.diff
variants prev
mps_start
limits 1024,4096,16384 2 4 > $OUT/limits.csv
echo "limits at $(el) s"
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
for r in 1 2; do
  for np in 2 4; do
    for v in base prev; do
      use $v
      BENCH_STREAM_KERNELS=1 run $np marks-$v-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
        -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST >> $OUT/marks.csv
    done
  done
  echo "round $r at $(el) s"
done
use base
unset BENCH_NO_TRADITIONAL BENCH_NO_HOST
grep -E '^(gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|example-dl-stream-marks|gpu-stream-gcoll-after|gpu-gcoll-stream-after)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 170 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tr -d '\000' < $OUT/tests.txt | tail -n 1)"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
for k in 'san-*gcoll*after' 'san-*gcoll*marks'; do
  [ $(el) -lt 480 ] && TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=90 timeout $((560 - $(el))) \
    tools/sanitize-gpu.sh $OUT/sanitize-$(echo $k | tr -dc 'a-z-').txt -k "$k" > /dev/null 2>&1
done
echo "sanitize at $(el) s: $(cat $OUT/sanitize-*.txt | grep -c PASS) PASS, $(cat $OUT/sanitize-*.txt | grep -c FAIL) FAIL"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s22/call-b.sh 2>&1 | tail; tar -cJf $O/b.tar.xz -C /tmp o
