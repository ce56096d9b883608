#!/usr/bin/env bash
# Session 23, call G (one H200, both ranks under CUDA MPS), the session's
# last device time: the copy after the kernels leaves one block slot of
# the GPU free (the receiver's captured wait kernel). (1) its graph lines;
# (2) four runs of b_stream kernel_copy_graph at 1024 blocks with
# CUDA_DEVICE_MAX_CONNECTIONS unset (does it ever hang?); (3) its goodput
# from 4096 blocks beside ipc_limit (32 queues). Everything written
# straight into $OUT, every step under timeout -s KILL (call F lost all).
set -u
T0=$(date +%s)
el0() { echo $(( $(date +%s) - T0 )); }
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog
mps_up() { pkill -9 b_stream; timeout -s KILL 5 nvidia-cuda-mps-control <<< quit; sleep 1; nvidia-cuda-mps-control -d; sleep 1; }
mps_up
grep -E '^gpu-stream-after-(graph|joined|large|missing-graph)' tests/gpu.list > /tmp/t.list
TEST_LIST=/tmp/t.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=40 timeout -s KILL 90 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el0) s: $(tr -d '\000' < $OUT/tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/tests.txt | grep -c '^FAIL') FAIL of $(wc -l < /tmp/t.list)" | tee -a $OUT/summary.txt
. bench/common.sh
bench_cuda_build bench/b_stream.cu /tmp/b_stream > $OUT/build.txt 2>&1
for i in 1 2 3 4; do
  [ $(el0) -lt 150 ] || break
  mps_up
  env -u CUDA_DEVICE_MAX_CONNECTIONS BENCH_LABEL=c8 timeout -s KILL 20 mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL /tmp/b_stream goodput kernel_copy_graph 1024 > $OUT/probe-$i.txt 2>&1
  echo "probe $i: rc $? at $(el0) s: $(tr -d '\000' < $OUT/probe-$i.txt | grep -c '^stream_goodput') rows" | tee -a $OUT/summary.txt
done
mps_up
for v in kernel_copy_graph ipc_limit; do
  [ $(el0) -lt 200 ] || break
  CUDA_DEVICE_MAX_CONNECTIONS=32 BENCH_LABEL=c32 timeout -s KILL 30 mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL -x CUDA_DEVICE_MAX_CONNECTIONS /tmp/b_stream goodput $v 4096,16384,65536,131072 > $OUT/goodput-$v.txt 2>&1
  echo "goodput $v at $(el0) s: $(tr -d '\000' < $OUT/goodput-$v.txt | grep '^stream_goodput' | cut -d, -f3,5 | tr '\n' ' ')" | tee -a $OUT/summary.txt
done
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
# run: bash bench/results/h200x1-stream/after-s23/call-g.sh
