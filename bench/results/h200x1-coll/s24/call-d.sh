#!/usr/bin/env bash
# Session 24, call D (one H200, every rank under CUDA MPS), bundle of this
# checkout: after mode's units one a block of its share where any rank may
# run it, the marks in the window, the gate of several blocks that lets
# the engine launch once every peer's producer marked its last partition
# (new). Against it, the same library with the plugin of
#   notrig: no such launch (the gate lets the engine go as it leaves);
#   old: f3cee98's device code (the gate of one block).
# (1) Marks epochs, np 2 and 4, 4/16/64 MiB, two rounds, and the limits.
# (2) On new: the marks and after-mode lines, then compute-sanitizer
#     (synccheck, racecheck, memcheck) over the gated gcoll lines.
# Everything in one tarball (at most 8 files come back) and the tables.
set -u
O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mkdir -p .bundle/exp && for v in old notrig; do cp bench/results/h200x1-coll/s24/$v-experiment.diff .bundle/exp/$v.diff; done
variants old notrig || exit 1
cp /tmp/base.so /tmp/new.so
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
M="--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST"
for r in 1 2; do
  for np in 2 4; do
    for v in old notrig new; do
      use $v
      BENCH_STREAM_KERNELS=1 run $np marks-$v-r$r 1024,4096,16384 $M >> $OUT/marks.csv
    done
  done
  echo "round $r at $(el) s"
done
limits 1024,4096,16384 2 4 > $OUT/limits.csv
echo "limits at $(el) s"
unset BENCH_NO_TRADITIONAL BENCH_NO_HOST
use new
grep -E '^(gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|example-dl-stream-marks|gpu-stream-gcoll-after|gpu-gcoll-stream-after)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout -s KILL $((420 - $(el))) tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tr -d '\000' < $OUT/tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/tests.txt | grep -c '^FAIL') FAIL of $(wc -l < /tmp/n.list)"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
for k in marks after; do
  [ $(el) -lt 440 ] && TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 timeout -s KILL $((500 - $(el))) \
    tools/sanitize-gpu.sh $OUT/sanitize-$k.txt -k "san-*gcoll*$k" > /dev/null 2>&1
done
echo "sanitize at $(el) s: $(cat $OUT/sanitize-*.txt 2>/dev/null | grep -c PASS) PASS, $(cat $OUT/sanitize-*.txt 2>/dev/null | grep -c FAIL) FAIL"
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
tar -cJf $O/d.tar.xz -C /tmp o
cp $OUT/marks.csv $OUT/limits.csv $O/ 2>/dev/null
tr -d '\000' < $OUT/tests.txt > $O/tests.txt
# run: bash bench/results/h200x1-coll/s24/call-d.sh (carry .bundle)
