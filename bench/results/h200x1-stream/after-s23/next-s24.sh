#!/usr/bin/env bash
# Prepared in session 23, not run: the GPU suite's lines that session 23 did
# not run on the device plugin of ABI 26 (the copy after the kernels), one
# H200, every rank under CUDA MPS, a bundle of this commit or later.
#   PART=1: gpu-stream-* lines (after session 23's stream-only ones)
#   PART=2, PART=3: the first and second half of every other line
# Each part stops starting lines at ~500 s; everything goes straight into
# $OUT (session 23's call F lost its output through a pipe).
# run: PART=1 bash bench/results/h200x1-stream/after-s23/next-s24.sh
set -u
T0=$(date +%s)
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
done_re='^gpu-stream-(after|kernels|joined-kernels|graph-start-kernel|kops-kernels|kcopy-graph-full|joined-kcopy-full|kcopy-large|kcopy-1024)'
case ${PART:-1} in
1) grep -E '^gpu-stream-' tests/gpu.list | grep -vE "$done_re" > /tmp/t.list ;;
*) grep -vE '^(#|$|gpu-stream-)' tests/gpu.list > /tmp/all.list
   half=$(( ($(wc -l < /tmp/all.list) + 1) / 2 ))
   if [ "$PART" = 2 ]; then head -n $half /tmp/all.list; else tail -n +$((half + 1)) /tmp/all.list; fi > /tmp/t.list ;;
esac
TEST_LIST=/tmp/t.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 \
  timeout -s KILL $((540 - $(date +%s) + T0)) tools/test.sh --gpu > $OUT/tests-part${PART:-1}.txt 2>&1
echo "part ${PART:-1}: $(tr -d '\000' < $OUT/tests-part${PART:-1}.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/tests-part${PART:-1}.txt | grep -c '^FAIL') FAIL of $(wc -l < /tmp/t.list)" | tee $OUT/summary.txt
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests-part${PART:-1}.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
