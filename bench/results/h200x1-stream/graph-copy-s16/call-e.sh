#!/usr/bin/env bash
# Session 16, call E (one H200, two ranks under MPS): the counted stream
# copy as committed (its wait reads the kernels' count, falling back to
# the groups' marks, and the receiver's GPU ready-to-receive or its
# host's; no arrival flag written where the receiver has done words).
# (1) the stream lines of the GPU suite that capture graphs, join epochs
# or take the progress engine, logs of failures kept;
# (2) bench/run-stream.sh with the goodput variants of the progress
# engine, kernel copy's graph and the limits, into
# bench/results/h200x1-stream/stream-s16 (results.csv, tables.txt, PNGs);
# (3) the stream trace of progress_graph; (4) memcheck and racecheck.
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
mkdir -p /tmp/tr && . bench/common.sh && bench_cuda_build bench/b_stream.cu /tmp/tr/b_stream > /dev/null 2>&1
CUDA_DEVICE_MAX_CONNECTIONS=32 timeout 90 bench/trace/stream.sh /tmp/tr progress_graph 1,64,65536 -x CUDA_DEVICE_MAX_CONNECTIONS > $OUT/trace.txt 2>&1
for g in 1 64 65536; do mkdir -p $OUT/trace/g$g; cp /tmp/tr/g$g/* $OUT/trace/g$g/ 2>/dev/null; done
echo "trace at $(el) s"
grep -E '^san-stream-(progress|kernels-progress)' tests/sanitize.list > /tmp/z.list
for tool in memcheck racecheck; do
  opts="--tool $tool --error-exitcode 9"; [ $tool = memcheck ] && opts="$opts --report-api-errors no"
  TEST_LIST=/tmp/z.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 \
    TEST_WRAPPER="compute-sanitizer $opts" timeout 150 tools/test.sh --gpu > $OUT/san-$tool.txt 2>&1
  echo "$tool: $(tr -d '\000' < $OUT/san-$tool.txt | tail -n 1) at $(el) s"
done
echo quit | nvidia-cuda-mps-control
