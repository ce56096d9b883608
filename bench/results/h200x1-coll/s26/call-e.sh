#!/usr/bin/env bash
# Session 26, call E (one H200, every rank under CUDA MPS), bundle of
# bf2331b's install: the 30 lines call D had no time left for
# (e-lines.list).
# run: bash bench/results/h200x1-coll/s26/call-e.sh (carry .bundle)
set -u
O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
TEST_LIST=bench/results/h200x1-coll/s26/e-lines.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout -s KILL 250 \
  tools/test.sh --gpu 2>&1 | tr -d '\000' > $OUT/tests.txt
echo "tests at $(el) s: $(grep -c '^PASS' $OUT/tests.txt) PASS, $(grep -c '^FAIL' $OUT/tests.txt) FAIL of 30"
mkdir -p $OUT/logs && for f in $(awk '/^FAIL/ {print $2}' $OUT/tests.txt); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
OUT=$O out_pack e /tmp/o
cp $OUT/tests.txt $O/
