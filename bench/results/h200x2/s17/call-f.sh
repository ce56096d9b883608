#!/usr/bin/env bash
# Session 17, call F (two GPUs), bundle of f244fe8. Issue 23 run 1: the gpu-gcoll lines of tests/gpu.list, one rank a GPU;
# share the GPUs under MPS.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
awk '!/^#/ && NF && $1 ~ /^gpu-gcoll/' tests/gpu.list > /tmp/x.list
TEST_LIST=/tmp/x.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=45 timeout $((575 - $(el))) tools/test.sh --gpu > $OUT/gcoll-x.txt 2>&1
echo "gcoll lines across GPUs: $(tr -d '\000' < $OUT/gcoll-x.txt | tail -n 1) at $(el) s"
echo quit | nvidia-cuda-mps-control
mkdir -p $OUT/failed && grep -a '^FAIL' $OUT/gcoll-x.txt | sed 's/.*log: //' | xargs -r cp -t $OUT/failed 2>/dev/null
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x2/s17/call-f.sh 2>&1 | tail; tar -cJf $O/f.tar.xz -C /tmp o
