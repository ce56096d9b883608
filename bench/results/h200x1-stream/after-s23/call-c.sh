#!/usr/bin/env bash
# Session 23, call C (one H200, both ranks under CUDA MPS): (1) the misuse
# lines again (g_stream -M: the test now leaves the request Open MPI's
# error path freed) and the other stream-only kernel-copy lines; (2)
# compute-sanitizer over them; (3) b_stream round 2, with _after (the copy
# after the kernels at every size, for the default threshold); (4) call A's
# silent variants again, CUDA_DEVICE_MAX_CONNECTIONS unset, every line of
# their output kept.
set -u
T0=$(date +%s)
el0() { echo $(( $(date +%s) - T0 )); }
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E '^gpu-stream-(after-missing|graph-start-kernel|kops-kernels|kcopy-graph-full|joined-kcopy-full|kcopy-large|kcopy-1024)' tests/gpu.list > /tmp/t.list
TEST_LIST=/tmp/t.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 120 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el0) s: $(tr -d '\000' < $OUT/tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/tests.txt | grep -c '^FAIL') FAIL of $(wc -l < /tmp/t.list)"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
SANITIZE_TOOLS="memcheck racecheck" TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=90 timeout 150 \
  tools/sanitize-gpu.sh $OUT/sanitize.txt -k 'san-stream-(after-missing|kernels-7|kernels-graph)' > /dev/null 2>&1
echo "sanitize at $(el0) s: $(tr -d '\000' < $OUT/sanitize.txt | grep -c 'PASS') PASS, $(tr -d '\000' < $OUT/sanitize.txt | grep -c 'FAIL') FAIL"
BENCH_VARIANTS="traditional kernel_copy_graph kernel_copy_graph_inkernel kernel_copy_graph_after kernel_copy_kernels ipc_limit ipc_limit_graph" \
  BENCH_HRTT_VARIANTS=" " BENCH_TIMEOUT=60 BENCH_LABEL=mps timeout 220 bench/run-stream.sh /tmp/bs > $OUT/bench.txt 2>&1
mkdir -p $OUT/bench && cp -r /tmp/bs/* $OUT/bench/ 2>/dev/null
echo "bench at $(el0) s"
. bench/common.sh
bench_cuda_build bench/b_stream.cu /tmp/b_stream > $OUT/build.txt 2>&1
unset CUDA_DEVICE_MAX_CONNECTIONS
for v in kernel_copy_graph_inkernel ipc_after_graph; do
  [ $(el0) -lt 480 ] || break
  timeout 45 mpirun -np 2 --bind-to none --mca part ucx /tmp/b_stream goodput $v 1024,131072 > $OUT/silent-$v.txt 2>&1
  echo "silent $v: rc $? at $(el0) s"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/after-s23/call-c.sh 2>&1 | tail; tar -cJf $O/c.tar.xz -C /tmp o
