#!/usr/bin/env bash
# Session 26, call C (one H200, every rank under CUDA MPS), bundle of
# bf2331b's install: the GPU suite's collective lines other than the 22
# marks lines call A ran (79cf753's one count of the engine's blocks, at
# the end of every GPU-engine epoch, not yet run on a GPU otherwise), and
# the DL example's; then compute-sanitizer over the gcoll lines.
# run: bash bench/results/h200x1-coll/s26/call-c.sh (carry .bundle)
set -u
O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E 'gcoll|^example-dl' tests/gpu.list | grep -vE '^(gpu-gcoll-stream-marks|gpu-stream-gcoll-marks)' > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout -s KILL 440 tools/test.sh --gpu 2>&1 |
  tr -d '\000' > $OUT/tests.txt
echo "tests at $(el) s: $(grep -c '^PASS' $OUT/tests.txt) PASS, $(grep -c '^FAIL' $OUT/tests.txt) FAIL of $(wc -l < /tmp/n.list)"
mkdir -p $OUT/logs && for f in $(awk '/^FAIL/ {print $2}' $OUT/tests.txt); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
[ $(el) -lt 480 ] && TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 timeout -s KILL $((560 - $(el))) \
    tools/sanitize-gpu.sh $OUT/sanitize.txt -k 'san-*gcoll*' > /dev/null 2>&1
echo "sanitize at $(el) s: $(tr -d '\000' < $OUT/sanitize.txt 2>/dev/null | grep -c PASS) PASS, $(tr -d '\000' < $OUT/sanitize.txt 2>/dev/null | grep -c FAIL) FAIL"
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
OUT=$O out_pack c /tmp/o
cp $OUT/tests.txt $O/
tr -d '\000' < $OUT/sanitize.txt > $O/sanitize.txt 2>/dev/null
