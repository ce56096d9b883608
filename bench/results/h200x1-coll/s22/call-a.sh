#!/usr/bin/env bash
# Session 22, call A (one H200, every rank under CUDA MPS), bundle of the
# limit rows' fix (b_coll_oneshot: until the last rank is done).
# (1) The limits (np 2 and 4: 1-64 and 1K-16K blocks), both definitions.
# (2) Marks mode, np 2 and 4, 4/16/64 MiB, two rounds: the plugin as built
#     against afterwide4 (session 21's after-mode kernel of 96 registers),
#     pdl1 (the engine launched behind the gate as a programmatic dependent
#     launch: its blocks may start as the gate's block exits, before the
#     gate's completion is flushed) and pdl2 (pdl1, and the gate launched so
#     behind the producer, waiting in griddepcontrol.wait before it reads
#     the marks). -experiment.diff here, the plugin only.
# (3) The small grids, np 2 and 4, the plugin as built.
# (4) The marks lines on pdl2; compute-sanitizer over gcoll lines (the
#     four-chunk reduce loop's first run under it).
set -u
T0=$(date +%s)
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mkdir -p .bundle/exp && for v in afterwide4 pdl1 pdl2; do cp bench/results/h200x1-coll/s22/$v-experiment.diff .bundle/exp/$v.diff; done
variants afterwide4 pdl1 pdl2
mps_start
limits 1,16,64,1024,4096,16384 2 4 > $OUT/limits.csv
echo "limits at $(el) s"
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
for r in 1 2; do
  for np in 2 4; do
    for v in base afterwide4 pdl1 pdl2; do
      use $v
      BENCH_STREAM_KERNELS=1 run $np marks-$v-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
        -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST >> $OUT/pdl.csv
    done
  done
  echo "round $r at $(el) s"
done
use base
unset BENCH_NO_HOST
for np in 2 4; do run $np small 1,16,64 >> $OUT/small.csv; done
echo "small at $(el) s"
use pdl2
grep -E '^(gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|example-dl-stream-marks|gpu-stream-gcoll-after|gpu-gcoll-stream-after)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 150 tools/test.sh --gpu > $OUT/pdl2-tests.txt 2>&1
echo "pdl2 tests at $(el) s: $(tr -d '\000' < $OUT/pdl2-tests.txt | tail -n 1)"
use base
unset BENCH_NO_TRADITIONAL
for k in 'san-gcoll-[as][lc]' 'san-stream-gcoll'; do
  [ $(el) -lt 480 ] && TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=90 timeout $((570 - $(el))) \
    tools/sanitize-gpu.sh $OUT/sanitize-$(echo $k | tr -dc 'a-z-').txt -k "$k" > /dev/null 2>&1
done
echo "sanitize at $(el) s: $(cat $OUT/sanitize-*.txt | grep -c PASS) PASS, $(cat $OUT/sanitize-*.txt | grep -c FAIL) FAIL"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s22/call-a.sh 2>&1 | tail; tar -cJf $O/a.tar.xz -C /tmp o
