#!/usr/bin/env bash
# Session 25, call D (one H200, every rank under CUDA MPS), bundle of this
# checkout: the engine's loads evict-first in L2 (l2ef) and MPIX_Pready's
# block-level stream-ordered mark by a reduction (red-header.diff).
# (1) Marks epochs, np 2 and 4, 4/16/64 MiB, two rounds: the benchmark
#     built on this install's mpix_part_device.h (red) and on the one
#     before (st: the header of 1fd6ab4), same library and plugin; the
#     limits before and after.
# (2) The marks, after and copy-after lines (53), then compute-sanitizer
#     over the gated gcoll lines.
set -u
O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
h=$call_dir/part-ucx/include/mpix_part_device.h
# (as run, the header before came from a copy of 1fd6ab4's kept beside this
# script; the reverse of red-header.diff gives the same file)
cp /tmp/plain /tmp/plain-red && cp $h /tmp/red.h &&
  patch -R $h < <(sed 's#^--- a/#--- #; s#^+++ b/#+++ #' bench/results/h200x1-coll/s25/red-header.diff) > /dev/null &&
  bench_cuda_build bench/b_coll_gpu.cu /tmp/plain-st $nccl -- $ncclibs > $OUT/build-st.txt 2>&1; cp /tmp/red.h $h
[ -x /tmp/plain-st ] || { echo "no plain-st"; exit 1; }
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
limits 1024,4096,16384 2 4 > $OUT/limits-0.csv
M="--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST"
for r in 1 2; do
  for np in 2 4; do
    for v in st red; do
      cp /tmp/plain-$v /tmp/plain
      BENCH_STREAM_KERNELS=1 run $np marks-$v-r$r 1024,4096,16384 $M >> $OUT/marks.csv
    done
  done
  echo "round $r at $(el) s"
done
cp /tmp/plain-red /tmp/plain
limits 1024,4096,16384 2 4 > $OUT/limits-1.csv
echo "limits at $(el) s"
unset BENCH_NO_TRADITIONAL BENCH_NO_HOST
grep -E '^(gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|example-dl-stream-marks|gpu-stream-gcoll-after|gpu-gcoll-stream-after|gpu-stream-after)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout -s KILL $((400 - $(el))) tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tr -d '\000' < $OUT/tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/tests.txt | grep -c '^FAIL') FAIL of $(wc -l < /tmp/n.list)"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
for k in marks after; do
  [ $(el) -lt 440 ] && TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 timeout -s KILL $((500 - $(el))) \
    tools/sanitize-gpu.sh $OUT/sanitize-$k.txt -k "san-*gcoll*$k" > /dev/null 2>&1
done
echo "sanitize at $(el) s: $(cat $OUT/sanitize-*.txt 2>/dev/null | grep -c PASS) PASS, $(cat $OUT/sanitize-*.txt 2>/dev/null | grep -c FAIL) FAIL"
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
tar -cJf $O/d.tar.xz -C /tmp o
cp $OUT/marks.csv $OUT/limits-0.csv $OUT/limits-1.csv $O/ 2>/dev/null
tr -d '\000' < $OUT/tests.txt > $O/tests.txt
cat $OUT/sanitize-*.txt > $O/sanitize.txt 2>/dev/null
# run: bash bench/results/h200x1-coll/s25/call-d.sh (carry .bundle)
