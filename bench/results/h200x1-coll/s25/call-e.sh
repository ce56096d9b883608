#!/usr/bin/env bash
# Session 25, call E (one H200, every rank under CUDA MPS), bundle of the
# adopted code (the engine's loads evict-first in L2): every default-mode
# gpu-gcoll line and the gpu-stream-gcoll lines other than marks and after
# (calls C-D ran those on the same plugin), stopping new lines at ~265 s.
set -u
T0=$(date +%s)
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
{ grep -E '^gpu-gcoll' tests/gpu.list | grep -v stream
  grep -E '^gpu-stream-gcoll' tests/gpu.list | grep -vE '^gpu-stream-gcoll-(marks|after)'; } > /tmp/t.list
TEST_LIST=/tmp/t.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 \
  timeout -s KILL $((265 - $(date +%s) + T0)) tools/test.sh --gpu > /tmp/tests.txt 2>&1
tr -d '\000' < /tmp/tests.txt > $OUT/tests.txt
echo "$(grep -c '^PASS' $OUT/tests.txt) PASS, $(grep -c '^FAIL' $OUT/tests.txt) FAIL of $(wc -l < /tmp/t.list)" | tee $OUT/summary.txt
for f in $(awk '/^FAIL/ {print $2}' $OUT/tests.txt); do cat /tmp/tb/$f.*log; done > /tmp/fail.log 2>/dev/null
[ -s /tmp/fail.log ] && tail -c 2000000 /tmp/fail.log > $OUT/failed-logs.txt
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
# run: bash bench/results/h200x1-coll/s25/call-e.sh (carry .bundle)
