#!/usr/bin/env bash
# Session 13, call H (four GPUs), bundle of the span two-shot threshold
# (part_ucx_coll_gpu_span_twoshot_bytes, 512 KiB): np 4 across GPUs at
# 512 KiB-1 MiB, the default against the threshold off (0: one-shot up to
# 1 MiB), two rounds; then the new gcoll lines, one rank a GPU.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  run 4 -span2-r$r 128,160,176,192,224,256 >> $OUT/x-span2.csv
  run 4 -off-r$r 128,160,176,192,224,256 --mca part_ucx_coll_gpu_span_twoshot_bytes 0 >> $OUT/x-span2.csv
done
echo "bench at $(el) s"
grep -E '^gpu-gcoll-span-twoshot' tests/gpu.list > /tmp/new.list
TEST_LIST=/tmp/new.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=40 timeout $((150 - $(el))) tools/test.sh --gpu > $OUT/new-tests.txt 2>&1
echo "tests: $(tr -d '\000' < $OUT/new-tests.txt | tail -n 1) at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s13e.sh $OUT/call.sh; bash .bundle/exp/s13e.sh 2>&1 | tail; tar -cJf $O/h.tar.xz -C /tmp o
