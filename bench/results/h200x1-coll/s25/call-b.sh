#!/usr/bin/env bash
# Session 25, call B (one H200, every rank under CUDA MPS), bundle of
# 1fd6ab4, this checkout's device code with l2ef-experiment.diff applied
# (the engine's loads evict-first in L2):
# (1) The trace of marks epochs, np 2, 16 and 64 MiB (bench/trace/run.sh,
#     traced plugin of this checkout: l2ef), into trace.tar.xz.
# (2) Untraced, base against l2ef: the default mode (the engine beside the
#     producers), np 2 and 4, 4/16/64 MiB; the marks epochs np 2 once more.
set -u
O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
# the checkout already carries l2ef: its plugin is the variant, patched back for base
cp "$plugin" /tmp/base.so && "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -O3 -std=c++17 -arch=sm_90 -shared \
  -Xcompiler -fPIC -I. -o /tmp/l2ef.so part_ucx_device.cu > $OUT/build-l2ef.txt 2>&1 || exit 1
mps_start
BENCH_STREAM_KERNELS=1 timeout 200 bench/trace/run.sh /tmp/tr 2 4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
  -x BENCH_STREAM_KERNELS > $OUT/trace.log 2>&1
rm -f /tmp/tr/b_coll_gpu /tmp/tr/*.so; tar -cJf $O/trace.tar.xz -C /tmp tr
echo "trace at $(el) s"
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
for r in 1 2; do
  for np in 2 4; do
    for v in base l2ef; do
      use $v
      run $np default-$v-r$r 1024,4096,16384 -x BENCH_NO_HOST >> $OUT/default.csv
    done
  done
  echo "default round $r at $(el) s"
done
M="--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST"
for v in base l2ef; do use $v; BENCH_STREAM_KERNELS=1 run 2 marks-$v-r3 1024,4096,16384 $M >> $OUT/marks.csv; done
limits 1024,4096,16384 2 4 > $OUT/limits.csv
echo "limits at $(el) s"
use base
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
cp $OUT/trace.log $OUT/default.csv $OUT/marks.csv $OUT/limits.csv $OUT/build-l2ef.txt $O/ 2>/dev/null
# run: bash bench/results/h200x1-coll/s25/call-b.sh (carry .bundle)
