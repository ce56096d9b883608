#!/usr/bin/env bash
# Session 21, call B (one H200, every rank under CUDA MPS), bundle of the
# library with the ordered-block MPIX_Pready in mpix_part_device.h.
# (1) The marks lines, the new -B (partition out of range) lines and the
#     DL example's stream modes on that header.
# (2) Kernel + allreduce at 4, 16 and 64 MiB (1024, 4096, 16384 blocks),
#     np 2 and 4, marks mode (after_bytes 1, mpix_stream_kernels) and the
#     default (engine beside the producers): the plugin as built against
#     the engine's result stores evict-first (engine-stcs), two rounds;
#     then the kernel alone and the kernel + copy limit (b_coll_oneshot).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
grep -E '^(gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|gpu-gcoll-stream-kernels|example-dl-stream)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 150 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tr -d '\000' < $OUT/tests.txt | tail -1)"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
variants engine-stcs
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
for r in 1 2; do
  for np in 2 4; do
    for v in base engine-stcs; do
      [ $(el) -lt 470 ] || break
      use $v
      BENCH_STREAM_KERNELS=1 run $np marks-$v-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
        -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST >> $OUT/stcs.csv
      run $np beside-$v-r$r 1024,4096,16384 -x BENCH_NO_HOST >> $OUT/stcs.csv
    done
  done
  echo "round $r at $(el) s"
done
use base
limits 1024,4096,16384 2 4 > $OUT/limits.csv
echo "limits at $(el) s"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s21/call-b.sh 2>&1 | tail; tar -cJf $O/b.tar.xz -C /tmp o
