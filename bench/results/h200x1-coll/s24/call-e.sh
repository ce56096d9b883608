#!/usr/bin/env bash
# Session 24, call E (one H200, every rank under CUDA MPS), bundle of this
# checkout (call D's): the GPU engine's other lines, which the window's new
# layout (the marks and the gate's count at its end) touches too: every
# gpu-gcoll line outside the stream-ordered ones, then the gpu-stream-gcoll
# lines outside call D's, until ~230 s.
set -u
T0=$(date +%s)
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
{ grep -E '^gpu-gcoll' tests/gpu.list | grep -v stream
  grep -E '^gpu-stream-gcoll' tests/gpu.list | grep -vE '^gpu-stream-gcoll-(marks|after)'; } > /tmp/t.list
TEST_LIST=/tmp/t.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 \
  timeout -s KILL $((230 - $(date +%s) + T0)) tools/test.sh --gpu > /tmp/tests.txt 2>&1
tr -d '\000' < /tmp/tests.txt > $OUT/tests.txt
echo "$(grep -c '^PASS' $OUT/tests.txt) PASS, $(grep -c '^FAIL' $OUT/tests.txt) FAIL of $(wc -l < /tmp/t.list)" | tee $OUT/summary.txt
for f in $(awk '/^FAIL/ {print $2}' $OUT/tests.txt | head -4); do cp /tmp/tb/$f.*log $OUT/ 2>/dev/null; done
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
# run: bash bench/results/h200x1-coll/s24/call-e.sh (carry .bundle)
