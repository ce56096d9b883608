#!/usr/bin/env bash
# Session 25, call A (one H200, every rank under CUDA MPS), bundle of
# 1fd6ab4: the after-mode engine's loads of data read once (gcoll_reduce)
#   base: __ldcg (L2, normal priority);
#   ldcs: __ldcs (evict-first in L1 and L2);
#   l2ef: past L1, evict-first in L2 by a createpolicy cache hint, so that
#         the producers' last lines, still in L2, stay there until read.
# (1) Marks epochs, np 2 and 4, 4/16/64 MiB, two rounds; the limits before
#     and after them.
# (2) On base: the marks and after lines (gcoll) and the copy after the
#     kernels (gpu-stream-after-*), which 1fd6ab4's review touched.
# Everything in one tarball (at most 8 files come back) and the tables.
set -u
O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mkdir -p .bundle/exp && for v in ldcs l2ef; do cp bench/results/h200x1-coll/s25/$v-experiment.diff .bundle/exp/$v.diff; done
variants ldcs l2ef || exit 1
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
limits 1024,4096,16384 2 4 > $OUT/limits-0.csv
echo "limits at $(el) s"
M="--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST"
for r in 1 2; do
  for np in 2 4; do
    for v in base ldcs l2ef; do
      use $v
      BENCH_STREAM_KERNELS=1 run $np marks-$v-r$r 1024,4096,16384 $M >> $OUT/marks.csv
    done
  done
  echo "round $r at $(el) s"
done
limits 1024,4096,16384 2 4 > $OUT/limits-1.csv
echo "limits at $(el) s"
unset BENCH_NO_TRADITIONAL BENCH_NO_HOST
use base
grep -E '^(gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|example-dl-stream-marks|gpu-stream-gcoll-after|gpu-gcoll-stream-after|gpu-stream-after)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout -s KILL $((530 - $(el))) tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tr -d '\000' < $OUT/tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/tests.txt | grep -c '^FAIL') FAIL of $(wc -l < /tmp/n.list)"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
tar -cJf $O/a.tar.xz -C /tmp o
cp $OUT/marks.csv $OUT/limits-0.csv $OUT/limits-1.csv $O/ 2>/dev/null
tr -d '\000' < $OUT/tests.txt > $O/tests.txt
# run: bash bench/results/h200x1-coll/s25/call-a.sh (carry .bundle)
