#!/usr/bin/env bash
# Session 23, call A (one H200, both ranks under CUDA MPS), bundle of
# 023d1ae: the kernel-copy-after prototypes prepared in session 22
# (after-prototype/next-s23.sh, issue 21's 0.9x-limit target), then the
# marks / after-mode GPU collective lines on this build (the review's
# refactor and gcoll_pdl_capable on a GPU).
set -u
T0=$(date +%s)
bash bench/results/h200x1-stream/after-prototype/next-s23.sh > $OUT/proto.txt 2>&1
echo "prototype at $(( $(date +%s) - T0 )) s"
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
grep -E '^(gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|example-dl-stream-marks|gpu-stream-gcoll-after|gpu-gcoll-stream-after)' tests/gpu.list > /tmp/m.list
TEST_LIST=/tmp/m.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 \
  timeout $((540 - $(date +%s) + T0)) tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(( $(date +%s) - T0 )) s: $(tr -d '\000' < $OUT/tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/tests.txt | grep -c '^FAIL') FAIL of $(wc -l < /tmp/m.list)"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/s23/call-a.sh 2>&1 | tail; tar -cJf $O/a.tar.xz -C /tmp o
