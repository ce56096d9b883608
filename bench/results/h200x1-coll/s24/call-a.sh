#!/usr/bin/env bash
# Session 24, call A (one H200, every rank under CUDA MPS), bundle of
# f3cee98 (its plugin: base, the gate of one block that looks at every
# word) and this checkout's plugin built here (gate: the gate's blocks
# publish the marks, the last one waits for each rank's last word;
# gate-experiment.diff).
# (1) Marks mode, graph and stream epochs, 4/16/64 MiB, two rounds:
#     np 2 base, gate, gate with part_ucx_coll_gpu_blocks 64 (units of
#     half the size: one a block of after mode's 66); np 4 base, gate.
# (2) On gate: the marks and after-mode lines, the new gate lines, then
#     compute-sanitizer over the gated marks lines.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
cp "$plugin" /tmp/base.so
"${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC \
    -I. -o /tmp/gate.so part_ucx_device.cu > $OUT/build-gate.txt 2>&1 || { echo "gate did not build"; exit 1; }
mps_start
limits 1024,4096,16384 2 4 > $OUT/limits.csv
echo "limits at $(el) s"
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
M="--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST"
for r in 1 2; do
  for v in base gate; do
    use $v
    BENCH_STREAM_KERNELS=1 run 2 marks-$v-r$r 1024,4096,16384 $M >> $OUT/marks.csv
  done
  BENCH_STREAM_KERNELS=1 run 2 marks-gate64-r$r 1024,4096,16384 $M --mca part_ucx_coll_gpu_blocks 64 >> $OUT/marks.csv
  for v in base gate; do
    use $v
    BENCH_STREAM_KERNELS=1 run 4 marks-$v-r$r 1024,4096,16384 $M >> $OUT/marks.csv
  done
  echo "round $r at $(el) s"
done
unset BENCH_NO_TRADITIONAL BENCH_NO_HOST
use gate
grep -E '^(gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|example-dl-stream-marks|gpu-stream-gcoll-after|gpu-gcoll-stream-after)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout -s KILL $((500 - $(el))) tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tr -d '\000' < $OUT/tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/tests.txt | grep -c '^FAIL') FAIL of $(wc -l < /tmp/n.list)"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
[ $(el) -lt 480 ] && TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 timeout -s KILL $((565 - $(el))) \
    tools/sanitize-gpu.sh $OUT/sanitize-marks.txt -k 'san-*gcoll*marks' > /dev/null 2>&1
echo "sanitize at $(el) s: $(cat $OUT/sanitize-*.txt 2>/dev/null | grep -c PASS) PASS, $(cat $OUT/sanitize-*.txt 2>/dev/null | grep -c FAIL) FAIL"
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
# run: bash bench/results/h200x1-coll/s24/call-a.sh (carry .bundle)
