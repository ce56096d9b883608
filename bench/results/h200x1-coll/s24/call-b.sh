#!/usr/bin/env bash
# Session 24, call B (one H200, every rank under CUDA MPS), bundle of
# f3cee98 and this checkout's plugin (call A's gate, with the gate's trace
# stamps) built here.
# (1) The trace of marks epochs, np 2, 4 and 16 MiB (bench/trace/run.sh,
#     its gt/at files kept), with the gate's stamps.
# (2) Untraced, on gate, two rounds: marks epochs np 2 with the units of
#     part_ucx_coll_gpu_blocks 32 (default), 64, 66 and 132; the
#     producers' own times (BENCH_KERNEL_TIME) inside marks epochs.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
"${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC \
    -I. -o /tmp/gate.so part_ucx_device.cu > $OUT/build-gate.txt 2>&1 || { echo "gate did not build"; exit 1; }
mps_start
use gate
BENCH_STREAM_KERNELS=1 timeout 200 bench/trace/run.sh /tmp/tr 2 4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
  -x BENCH_STREAM_KERNELS > $OUT/trace.log 2>&1
cp -r /tmp/tr $OUT/trace 2>/dev/null; rm -f $OUT/trace/b_coll_gpu $OUT/trace/*.so
echo "trace at $(el) s"
use gate
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
M="--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST"
for r in 1 2; do
  for b in 32 64 66 132; do
    BENCH_STREAM_KERNELS=1 run 2 marks-b$b-r$r 1024,4096,16384 $M --mca part_ucx_coll_gpu_blocks $b >> $OUT/marks.csv
  done
  echo "round $r at $(el) s"
done
BENCH_KERNEL_TIME=1 BENCH_STREAM_KERNELS=1 BENCH_LABEL=ktime timeout 100 mpirun -np 2 --bind-to none --oversubscribe --mca part ucx \
  $M -x BENCH_KERNEL_TIME -x BENCH_LABEL -x BENCH_NO_TRADITIONAL /tmp/plain allreduce 1024,4096,16384 2>&1 | tr -d '\000' | grep -a '^g' > $OUT/ktime.csv
echo "ktime at $(el) s"
limits 1024,4096,16384 2 > $OUT/limits.csv
echo "limits at $(el) s"
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
# run: bash bench/results/h200x1-coll/s24/call-b.sh (carry .bundle)
