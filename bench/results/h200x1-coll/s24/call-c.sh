#!/usr/bin/env bash
# Session 24, call C (one H200, every rank under CUDA MPS), bundle of
# f3cee98 (base: its plugin, the gate of one block) and this checkout's
# plugin (gate: the gate's blocks publish, the last waits for each rank's
# last word; one block without a count), with two experiments on it:
#   ng: no gate; the engine, launched behind the producer, publishes the
#       marks itself (the upper bound of an earlier engine);
#   gtrig: a gate that finds every peer published already lets the engine
#       launch (griddepcontrol.launch_dependents) before it publishes.
# (1) Marks epochs, 4/16/64 MiB, two rounds, np 2 and 4, and np 2 with
#     part_ucx_coll_gpu_blocks 64 on gate.
# (2) The trace of gate, np 2 (gate stamps), in trace.tar.xz.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mkdir -p .bundle/exp && cp bench/results/h200x1-coll/s24/nogate-experiment.diff .bundle/exp/ng.diff &&
  cp bench/results/h200x1-coll/s24/gtrig-experiment.diff .bundle/exp/gtrig.diff
variants ng gtrig || exit 1
"${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC \
    -I. -o /tmp/gate.so part_ucx_device.cu > $OUT/build-gate.txt 2>&1 || { echo "gate did not build"; exit 1; }
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
M="--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST"
for r in 1 2; do
  for np in 2 4; do
    for v in base gate ng gtrig; do
      use $v
      BENCH_STREAM_KERNELS=1 run $np marks-$v-r$r 1024,4096,16384 $M >> $OUT/marks.csv
    done
  done
  use gate
  BENCH_STREAM_KERNELS=1 run 2 marks-gate64-r$r 1024,4096,16384 $M --mca part_ucx_coll_gpu_blocks 64 >> $OUT/marks.csv
  echo "round $r at $(el) s"
done
limits 1024,4096,16384 2 4 > $OUT/limits.csv
echo "limits at $(el) s"
unset BENCH_NO_TRADITIONAL BENCH_NO_HOST
use gate
BENCH_STREAM_KERNELS=1 timeout 200 bench/trace/run.sh /tmp/tr 2 4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
  -x BENCH_STREAM_KERNELS > $OUT/trace.log 2>&1
rm -f /tmp/tr/b_coll_gpu /tmp/tr/*.so /tmp/tr/*.o; tar -cJf $OUT/trace.tar.xz -C /tmp tr
echo "trace at $(el) s"
use base
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
# run: bash bench/results/h200x1-coll/s24/call-c.sh (carry .bundle)
