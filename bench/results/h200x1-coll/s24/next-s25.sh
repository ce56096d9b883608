#!/usr/bin/env bash
# Prepared in session 24, not run: the GPU suite's lines that no call of
# sessions 23-24 ran on plugin ABI 26 or 27 (every line outside gpu-stream-*
# and gpu-gcoll-*: kcopy, exchange, device, misuse, host-engine coll,
# examples), one H200, every rank under CUDA MPS, a bundle of 9905a60 or
# later. PART=1 and PART=2 take half each (about 90 lines, ~230 s), PART=0
# (default) all of them, stopping new lines at ~520 s. Everything straight
# into $OUT, three files (at most 8 come back).
# run: PART=0 bash bench/results/h200x1-coll/s24/next-s25.sh (carry .bundle)
set -u
T0=$(date +%s)
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -vE '^(#|$|gpu-stream-|gpu-gcoll)' tests/gpu.list > /tmp/all.list
half=$(( ($(wc -l < /tmp/all.list) + 1) / 2 ))
case ${PART:-0} in
1) head -n $half /tmp/all.list ;;
2) tail -n +$((half + 1)) /tmp/all.list ;;
*) cat /tmp/all.list ;;
esac > /tmp/t.list
TEST_LIST=/tmp/t.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 \
  timeout -s KILL $((540 - $(date +%s) + T0)) tools/test.sh --gpu > /tmp/tests.txt 2>&1
tr -d '\000' < /tmp/tests.txt > $OUT/tests.txt
echo "part ${PART:-0}: $(grep -c '^PASS' $OUT/tests.txt) PASS, $(grep -c '^FAIL' $OUT/tests.txt) FAIL of $(wc -l < /tmp/t.list)" | tee $OUT/summary.txt
for f in $(awk '/^FAIL/ {print $2}' $OUT/tests.txt); do cat /tmp/tb/$f.*log; done > /tmp/fail.log 2>/dev/null
[ -s /tmp/fail.log ] && tail -c 4000000 /tmp/fail.log > $OUT/failed-logs.txt
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
