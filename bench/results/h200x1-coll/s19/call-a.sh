#!/usr/bin/env bash
# Session 19, call A: one H200, every rank under CUDA MPS, bundle of the
# session's first commit (1c65439's device code: the gate's wait shared
# with step 1, part_nap). First runs of g_coll -S (stream-ordered epochs of
# all five collectives, gpu-gcoll-stream*), the after lines again and a
# few engine lines; the sanitizer over the new san-gcoll-stream lines and
# the after line; then session 18's prepared next-s19.sh body (how the
# producers' MPIX_Pready splits between count and release).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
grep -E '^(gpu-gcoll-stream|gpu-stream-gcoll-after|gpu-stream-gcoll-graph |gpu-stream-gcoll-np3|gpu-gcoll-crowded-np4|gpu-stream-gcoll-graph-np4)' tests/gpu.list > /tmp/a.list
TEST_LIST=/tmp/a.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 240 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tail -1 $OUT/tests.txt)"
for k in san-gcoll-stream san-stream-gcoll-after; do
  SANITIZE_TOOLS="racecheck memcheck" TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 timeout 100 tools/sanitize-gpu.sh $OUT/sanitize-$k.txt -k $k > /dev/null 2>&1
  echo "sanitizer $k at $(el) s: $(grep -E '^(racecheck|memcheck):' $OUT/sanitize-$k.txt | tr '\n' ' ')"
done
mps_stop
# next-s19.sh without its first line (the bundle is unpacked already)
[ "$(el)" -lt 380 ] && . <(sed '/^\. bench\/call-common.sh/d' bench/results/h200x1-coll/s18/next-s19.sh)
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s19/call-a.sh 2>&1 | tail; tar -cJf $O/a.tar.xz -C /tmp o
