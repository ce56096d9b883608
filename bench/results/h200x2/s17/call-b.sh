#!/usr/bin/env bash
# Session 17, call B (two GPUs), bundle of f244fe8 (the first GPU run of
# 11f78ea, the joined starts' helpers). (1) Issue 23 run 1: every
# gpu-stream line of tests/gpu.list, one rank a GPU (lines of three or
# four ranks share the GPUs under MPS); (2) issue 21: the progress stream
# lines (gpu-stream-progress-all-graph among them, its first run) with both
# ranks on GPU 0 under MPS.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
awk '!/^#/ && NF && $1 ~ /^gpu-stream/' tests/gpu.list > /tmp/x.list
TEST_LIST=/tmp/x.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 390 tools/test.sh --gpu > $OUT/stream-x.txt 2>&1
echo "stream lines across GPUs: $(tr -d '\000' < $OUT/stream-x.txt | tail -n 1) at $(el) s"
awk '!/^#/ && NF && $1 ~ /^gpu-stream/ && $1 ~ /progress/' tests/gpu.list > /tmp/p.list
CUDA_VISIBLE_DEVICES=0 TEST_LIST=/tmp/p.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=40 \
  timeout $((575 - $(el))) tools/test.sh --gpu > $OUT/progress-mps.txt 2>&1
echo "progress lines on GPU 0: $(tr -d '\000' < $OUT/progress-mps.txt | tail -n 1) at $(el) s"
echo quit | nvidia-cuda-mps-control
mkdir -p $OUT/failed && grep -a '^FAIL' $OUT/stream-x.txt $OUT/progress-mps.txt | sed 's/.*log: //' | xargs -r cp -t $OUT/failed 2>/dev/null
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x2/s17/call-b.sh 2>&1 | tail; tar -cJf $O/b.tar.xz -C /tmp o
