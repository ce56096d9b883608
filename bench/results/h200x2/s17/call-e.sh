#!/usr/bin/env bash
# Session 17, call E (two GPUs), bundle of f244fe8. Issue 23 run 1: every
# line of tests/gpu.list but the gpu-stream (call B) and gpu-gcoll ones
# (session 15, four H200), one rank a GPU; lines of three or four ranks
# share the GPUs under MPS.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
awk '!/^#/ && NF && $1 !~ /^gpu-(stream|gcoll)/' tests/gpu.list > /tmp/x.list
TEST_LIST=/tmp/x.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=45 timeout $((575 - $(el))) tools/test.sh --gpu > $OUT/rest-x.txt 2>&1
echo "other lines across GPUs: $(tr -d '\000' < $OUT/rest-x.txt | tail -n 1) at $(el) s"
echo quit | nvidia-cuda-mps-control
mkdir -p $OUT/failed && grep -a '^FAIL' $OUT/rest-x.txt | sed 's/.*log: //' | xargs -r cp -t $OUT/failed 2>/dev/null
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x2/s17/call-e.sh 2>&1 | tail; tar -cJf $O/e.tar.xz -C /tmp o
