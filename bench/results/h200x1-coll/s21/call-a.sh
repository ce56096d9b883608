#!/usr/bin/env bash
# Session 21, call A (one H200, every rank under CUDA MPS), bundle of 1492ac7.
# (1) session 20's next-s21.sh: the mark store's cost (markc/markd) and the
#     ordered-block header variant (plainy) against the header as built;
# (2) the test lines that 55a8655 touched and had not run on a GPU: every
#     g_stream line and every g_coll -S line (a-lines.list, 143 lines).
set -u
T0=$(date +%s)
bash bench/results/h200x1-coll/s20/next-s21.sh > $OUT/next.txt 2>&1
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
TEST_LIST=bench/results/h200x1-coll/s21/a-lines.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 \
    timeout $((565 - $(date +%s) + T0)) tools/test.sh --gpu > $OUT/a-tests.txt 2>&1
echo quit | nvidia-cuda-mps-control
echo "tests: $(tr -d '\000' < $OUT/a-tests.txt | tail -n 1) at $(el) s"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/a-tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s21/call-a.sh 2>&1 | tail; tar -cJf $O/a.tar.xz -C /tmp o
