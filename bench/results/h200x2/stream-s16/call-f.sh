#!/usr/bin/env bash
# Session 16, call F (two H200, nvidia-h200-x2, one rank per GPU) at
# a3832ce: (1) the progress-engine stream lines of the GPU suite across
# the two GPUs (the stream copy now a peer copy over NVLink), logs of
# failures kept; (2) bench/run-stream.sh with traditional, kernel copy's
# graph, the progress engine stream-only and replayed from graphs, the
# limits and NCCL's ncclSend/ncclRecv (issue 23, run 2), into $OUT/bench.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
grep -E '^(gpu-stream-kops-progress|gpu-stream-progress|gpu-stream-joined-progress|gpu-stream-kernels-progress)' tests/gpu.list > /tmp/s.list
TEST_LIST=/tmp/s.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=40 timeout 150 tools/test.sh --gpu > $OUT/tests-progress.txt 2>&1
echo "progress lines (two GPUs): $(tr -d '\000' < $OUT/tests-progress.txt | tail -n 1) at $(el) s"
mkdir -p $OUT/logs
for f in $(tr -d '\000' < $OUT/tests-progress.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/; done
BENCH_VARIANTS="traditional kernel_copy_graph progress_kernels progress_graph ipc_limit ipc_limit_graph nccl" \
  BENCH_HRTT_VARIANTS=" " BENCH_TIMEOUT=40 timeout 130 bench/run-stream.sh $OUT/bench > $OUT/bench.txt 2>&1
echo "bench at $(el) s"
