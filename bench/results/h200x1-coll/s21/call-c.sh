#!/usr/bin/env bash
# Session 21, call C (one H200, every rank under CUDA MPS), bundle with the
# ordered-block MPIX_Pready and the engine's evict-first result stores.
# (1) reduce4 (.bundle/exp/reduce4.diff: gcoll_reduce with four 16-byte
#     chunks a thread in flight instead of two) against the plugin as
#     built, marks mode and the default, np 2 and 4, 4/16/64 MiB, 2 rounds.
# (2) compute-sanitizer (synccheck, racecheck, memcheck) over the marks lines
#     of tests/sanitize.list (-k marks).
# (3) the gpu-gcoll and gpu-stream-gcoll lines, as many as the time allows.
set -u
T0=$(date +%s)
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
variants reduce4
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
for r in 1 2; do
  for np in 2 4; do
    for v in base reduce4; do
      use $v
      BENCH_STREAM_KERNELS=1 run $np marks-$v-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
        -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST >> $OUT/reduce4.csv
      run $np beside-$v-r$r 1024,4096,16384 -x BENCH_NO_HOST >> $OUT/reduce4.csv
    done
  done
  echo "round $r at $(el) s"
done
use base
unset BENCH_NO_TRADITIONAL BENCH_NO_HOST
TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=120 timeout 200 tools/sanitize-gpu.sh $OUT/sanitize.txt \
  -k marks > /dev/null 2>&1
echo "sanitize at $(el) s: $(grep -c 'PASS' $OUT/sanitize.txt) PASS, $(grep -c 'FAIL' $OUT/sanitize.txt) FAIL"
grep -E '^(gpu-gcoll|gpu-stream-gcoll)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 \
  timeout $((570 - $(date +%s) + T0)) tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tr -d '\000' < $OUT/tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/tests.txt | grep -c '^FAIL') FAIL"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s21/call-c.sh 2>&1 | tail; tar -cJf $O/c.tar.xz -C /tmp o
