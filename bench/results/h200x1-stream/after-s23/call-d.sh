#!/usr/bin/env bash
# Session 23, call D (one H200, both ranks under CUDA MPS): (1)
# compute-sanitizer memcheck and racecheck over the copy-after lines and
# a stream-only in-kernel line (call C's pattern matched none); (2) where
# call C's hang lies: b_stream with CUDA_DEVICE_MAX_CONNECTIONS unset (CUDA's
# 8), MPS restarted before each run (a killed run leaves it refusing new
# clients), every line of output kept.
set -u
T0=$(date +%s)
el0() { echo $(( $(date +%s) - T0 )); }
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
for k in san-stream-after san-stream-kernels-7; do
  SANITIZE_TOOLS="memcheck racecheck" TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=90 timeout 150 \
    tools/sanitize-gpu.sh $OUT/sanitize-$k.txt -k $k > /dev/null 2>&1
  echo "sanitize $k at $(el0) s: $(tr -d '\000' < $OUT/sanitize-$k.txt | grep -c ' PASS') PASS, $(tr -d '\000' < $OUT/sanitize-$k.txt | grep -c ' FAIL') FAIL"
done
. bench/common.sh
bench_cuda_build bench/b_stream.cu /tmp/b_stream > $OUT/build.txt 2>&1
unset CUDA_DEVICE_MAX_CONNECTIONS
for r in "kernel_copy_graph 1024,131072" "kernel_copy_kernels_inkernel 1024" "kernel_copy_graph_inkernel 64" "kernel_copy_graph_inkernel 1024"; do
  [ $(el0) -lt 500 ] || break
  set -- $r
  echo quit | nvidia-cuda-mps-control; sleep 1; pkill -9 b_stream; nvidia-cuda-mps-control -d; sleep 1
  BENCH_LABEL=nc timeout 40 mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL /tmp/b_stream goodput $1 $2 > $OUT/probe-$1-$2.txt 2>&1
  echo "probe $1 $2: rc $? at $(el0) s: $(tr -d '\000' < $OUT/probe-$1-$2.txt | grep -c '^stream_goodput') rows"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/after-s23/call-d.sh 2>&1 | tail; tar -cJf $O/d.tar.xz -C /tmp o
