#!/usr/bin/env bash
# Prepared in session 21, not run (no device time left). One H200, every
# rank under CUDA MPS, a bundle of ce24179 or later; about 5 minutes.
# (1) The engine's loads in flight in after mode, where it takes at most
#     one block an SM: afterwide4 / afterwide6 (-experiment.diff here, the
#     plugin only) give gated epochs a kernel of their own,
#     part_gcoll_after, capped at 96 registers (__maxnreg__) with four or
#     six chunks a thread (no spill / 16-56 bytes), and the gate 512
#     threads at 32 registers so that it still fits beside an engine block
#     (48K + 16K registers: a gate that cannot find an SM hangs the peers'
#     engines). Against the plugin as built (64 registers, four chunks,
#     124-392 bytes spilled), marks mode, np 2 and 4, 4/16/64 MiB, two
#     rounds; then the marks lines on afterwide6.
#     Also the captured start as a one-thread kernel and as copies
#     (part_ucx_stream_graph_start kernel / copy, the plugin as built): a
#     start kernel needs an SM, and under MPS it may wait behind a peer's
#     producer that fills the GPU, so that this rank's producer starts
#     only after the peer's (see (3)).
#     Then the new g_coll -s lines (partitions made ready in an order that
#     changes every epoch), first GPU run.
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
mkdir -p .bundle/exp && for v in afterwide4 afterwide6; do cp bench/results/h200x1-coll/s21/$v-experiment.diff .bundle/exp/$v.diff; done
variants afterwide4 afterwide6
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
for r in 1 2; do
  for np in 2 4; do
    for v in base afterwide4 afterwide6; do
      use $v
      BENCH_STREAM_KERNELS=1 run $np marks-$v-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
        -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST >> $OUT/wide.csv
    done
    use base
    for st in kernel copy; do
      BENCH_STREAM_KERNELS=1 run $np marks-start$st-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
        --mca part_ucx_stream_graph_start $st -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST >> $OUT/wide.csv
    done
  done
  echo "round $r at $(el) s"
done
use afterwide6
grep -E '^(gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|example-dl-stream-marks)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 120 tools/test.sh --gpu > $OUT/wide-tests.txt 2>&1
echo "afterwide6 tests at $(el) s: $(tr -d '\000' < $OUT/wide-tests.txt | tail -n 1)"
use base
grep -E '^gpu-gcoll.*scramble' tests/gpu.list > /tmp/s.list
TEST_LIST=/tmp/s.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 timeout 100 tools/test.sh --gpu > $OUT/scramble-tests.txt 2>&1
echo "scramble tests at $(el) s: $(tr -d '\000' < $OUT/scramble-tests.txt | tail -n 1)"
unset BENCH_NO_HOST
for np in 2 4; do run $np small 1,16,64 >> $OUT/small.csv; done
echo "small at $(el) s"
[ $(el) -lt 400 ] && BENCH_STREAM_KERNELS=1 timeout $((560 - $(el))) bench/trace/run.sh /tmp/tr 2 4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 \
  -x BENCH_STREAM_KERNELS > $OUT/trace.log 2>&1
cp -r /tmp/tr $OUT/trace 2>/dev/null
echo "trace at $(el) s"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s21/next-s22.sh 2>&1 | tail; tar -cJf $O/n.tar.xz -C /tmp o
