#!/usr/bin/env bash
# Prepared in session 21, not run (no device time left). One H200, every
# rank under CUDA MPS, a bundle of 10c293e or later; about 5 minutes.
# (1) The engine's loads in flight, marks mode (one engine block an SM):
#     the plugin as built (four chunks a thread, __launch_bounds__(512, 2):
#     64 registers, spills) against reduce4w (the same at one block an SM:
#     no spill) and reduce8w (eight chunks a thread at one block an SM:
#     126 registers, no spill), np 2 and 4, 4/16/64 MiB, two rounds; the
#     default mode (engine beside the producers) for reduce4w too, where
#     one block an SM takes a whole SM from a producer. If reduce8w pays
#     in marks mode, the after-mode launch gets a kernel of its own with
#     that bound (part_ucx_coll_gpu.c, mca_part_ucx_gcoll_after).
# (2) Issue 22's <= 15 us at 1-64 blocks with this session's engine:
#     np 2 and 4, 1/16/64 blocks, the defaults (graph rows).
# (3) Where the np 2 marks epoch's time goes at 16 and 64 MiB (1.58x and
#     1.43x the kernel + copy limit): bench/trace/run.sh, 4096 and 16384
#     blocks. Session 19's trace (../s19/README.md, call I) had the two
#     ranks' producers one after the other, 80 us each at 64 MiB, where
#     b_coll_oneshot's two kernels launched together overlap (77-91 us for
#     both, 55 alone): if they still do not overlap, that is most of np 2's
#     gap to the limit, and the next question is why MPS runs them in turn.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mkdir -p .bundle/exp && for v in reduce4w reduce8w; do cp bench/results/h200x1-coll/s21/$v-experiment.diff .bundle/exp/$v.diff; done
variants reduce4w reduce8w
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
for r in 1 2; do
  for np in 2 4; do
    for v in base reduce4w reduce8w; do
      use $v
      BENCH_STREAM_KERNELS=1 run $np marks-$v-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
        -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST >> $OUT/wide.csv
      [ $v = reduce8w ] || run $np beside-$v-r$r 1024,4096,16384 -x BENCH_NO_HOST >> $OUT/wide.csv
    done
  done
  echo "round $r at $(el) s"
done
use base
unset BENCH_NO_HOST
for np in 2 4; do run $np small 1,16,64 >> $OUT/small.csv; done
echo "small at $(el) s"
BENCH_STREAM_KERNELS=1 timeout 200 bench/trace/run.sh /tmp/tr 2 4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
  -x BENCH_STREAM_KERNELS > $OUT/trace.log 2>&1
cp -r /tmp/tr $OUT/trace 2>/dev/null
echo "trace at $(el) s"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s21/next-s22.sh 2>&1 | tail; tar -cJf $O/n.tar.xz -C /tmp o
