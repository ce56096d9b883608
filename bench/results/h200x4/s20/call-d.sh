#!/usr/bin/env bash
# Session 20, call D (four H200), bundle of the library as at e79a4e2 (HEAD's
# tests): issue 23 run 1 for what changed since the last whole suite across
# GPUs (f244fe8, session 17): every gpu-gcoll and gpu-stream-gcoll line and
# example-dl-stream-marks, one rank a GPU (np 2-4; no MPS). The after and
# marks lines run there with the engine beside the producers (after mode is
# for ranks that share one GPU): -Y and -G 16 expect no epoch after them,
# g_coll -M is not tried.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
nvidia-smi topo -m > $OUT/topo.txt 2>&1
grep -E '^(gpu-gcoll|gpu-stream-gcoll|example-dl-stream-marks)' tests/gpu.list > /tmp/d.list
TEST_LIST=/tmp/d.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 540 tools/test.sh --gpu > $OUT/x-tests.txt 2>&1
echo "tests: $(tr -d '\000' < $OUT/x-tests.txt | tail -n 1) at $(el) s"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/x-tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x4/s20/call-d.sh 2>&1 | tail; tar -cJf $O/d.tar.xz -C /tmp o
