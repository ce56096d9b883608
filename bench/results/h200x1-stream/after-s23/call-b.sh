#!/usr/bin/env bash
# Session 23, call B (one H200, both ranks under CUDA MPS): kernel copy
# after the producers in the component (part_ucx_stream_copy_after_bytes,
# default 1 MiB). (1) the GPU suite's stream-only kernel-copy lines, old and
# new; (2) b_stream goodput side by side, 1-131072 blocks: traditional,
# kernel copy in graphs and host-issued kernels (default, and _inkernel:
# the kernels copy at every size), the host-issued limit and its graph;
# (3) compute-sanitizer memcheck and racecheck over the new lines.
set -u
T0=$(date +%s)
el0() { echo $(( $(date +%s) - T0 )); }
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E '^gpu-stream-(after|kernels|joined-kernels)' tests/gpu.list > /tmp/t.list
TEST_LIST=/tmp/t.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 220 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el0) s: $(tr -d '\000' < $OUT/tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/tests.txt | grep -c '^FAIL') FAIL of $(wc -l < /tmp/t.list)"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
BENCH_VARIANTS="traditional kernel_copy_graph kernel_copy_graph_inkernel kernel_copy_kernels kernel_copy_kernels_inkernel ipc_limit ipc_limit_graph" \
  BENCH_HRTT_VARIANTS=" " BENCH_TIMEOUT=60 BENCH_LABEL=mps timeout 260 bench/run-stream.sh /tmp/bs > $OUT/bench.txt 2>&1
mkdir -p $OUT/bench && cp -r /tmp/bs/* $OUT/bench/ 2>/dev/null
echo "bench at $(el0) s"
SANITIZE_TOOLS="memcheck racecheck" TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=90 timeout $((560 - $(el0))) \
  tools/sanitize-gpu.sh $OUT/sanitize.txt -k 'san-stream-after' > /dev/null 2>&1
echo "sanitize at $(el0) s: $(tr -d '\000' < $OUT/sanitize.txt | grep -c 'PASS') PASS, $(tr -d '\000' < $OUT/sanitize.txt | grep -c 'FAIL') FAIL"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/after-s23/call-b.sh 2>&1 | tail; tar -cJf $O/b.tar.xz -C /tmp o
