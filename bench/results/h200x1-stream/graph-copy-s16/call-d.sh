#!/usr/bin/env bash
# Session 16, call D (one H200, two ranks under MPS): the counted stream
# copy as committed (its wait reads the receiver's GPU ready-to-receive,
# or its host's). (1) the stream lines of the GPU suite that capture
# graphs, join epochs or take the progress engine, logs of failures kept;
# (2) bench/run-stream.sh with the goodput variants of the progress
# engine, kernel copy's graph and the limits, into
# bench/results/h200x1-stream/stream-s16 (results.csv, tables.txt, PNGs).
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E '^gpu-stream' tests/gpu.list | grep -E 'progress|graph|joined|kops|-G |-g ' > /tmp/s.list
TEST_LIST=/tmp/s.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=40 timeout 330 tools/test.sh --gpu > $OUT/tests-stream.txt 2>&1
echo "stream lines (MPS): $(tr -d '\000' < $OUT/tests-stream.txt | tail -n 1) at $(el) s"
mkdir -p $OUT/logs
for f in $(tr -d '\000' < $OUT/tests-stream.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/; done
BENCH_VARIANTS="traditional kernel_copy_graph progress_stream progress_kernels progress_graph ipc_limit ipc_limit_graph" \
  BENCH_HRTT_VARIANTS=" " BENCH_TIMEOUT=60 BENCH_LABEL=mps timeout 200 bench/run-stream.sh $OUT/stream-s16 > $OUT/bench.txt 2>&1
echo "bench at $(el) s"
echo quit | nvidia-cuda-mps-control
