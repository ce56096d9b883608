#!/usr/bin/env bash
# Session 22, call D (one H200, every rank under CUDA MPS), bundle of
# f11b80d: the GPU collective lines in the default mode (the engine beside
# the producers, launched through gcoll_launch_ex), as many as the
# session's last device time allows.
set -u
T0=$(date +%s)
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
grep -E '^gpu-gcoll' tests/gpu.list | grep -vE 'stream|marks|scramble' > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 \
  timeout $((150 - $(date +%s) + T0)) tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tr -d '\000' < $OUT/tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/tests.txt | grep -c '^FAIL') FAIL"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s22/call-d.sh 2>&1 | tail; tar -cJf $O/d.tar.xz -C /tmp o
