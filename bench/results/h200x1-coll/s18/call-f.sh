#!/usr/bin/env bash
# Session 18, call F: one H200, every rank under CUDA MPS, bundle of
# 542b970 (the final code: MPIX_Pready with its count, after mode with one
# engine block an SM over the ranks, the kernels' arguments taken by one
# helper). The after lines and engine lines of call E, and a one-shot,
# two-shot and in-place g_coll line.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E '^(gpu-stream-gcoll-after|gpu-stream-gcoll-graph |gpu-stream-gcoll-np3|gpu-gcoll-crowded-np4|gpu-stream-gcoll-graph-np4|gpu-gcoll-sysfences-np3|gpu-gcoll-priority-np3)' tests/gpu.list > /tmp/f.list
TEST_LIST=/tmp/f.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 150 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tail -1 $OUT/tests.txt)"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s18/call-f.sh 2>&1 | tail; tar -cJf $O/f.tar.xz -C /tmp o
