#!/usr/bin/env bash
# Prepared in session 19, not run (no device time left). One H200 (or GPU 0
# of a larger kind), every rank under CUDA MPS, a bundle of 988ac7e or
# later; about 150 s.
# (1) Lines not yet run on a GPU: example-dl-stream-marks (the DL example's
#     stream mode declared mpix_stream_kernels, in after mode) and the
#     marks' lines again on the final library.
# (2) Issue 22 with the marks (s19/README.md, calls F, G, I): each rank's
#     producer takes about 80 us of a 64 MiB epoch, against 35-45 us for the
#     same kernel in b_coll_oneshot. Is it the engine's result lines left
#     written in L2, which the next producer's stores must evict?
#     b_coll_oneshot with BENCH_KERNEL_EVENTS: the kernel's own time by
#     events, back to back (kernel_events) and each after a copy that
#     leaves as many written lines (kernel_after_writes), np 1, 2 and 4.
#     And the engine's result stores with an evict-first hint (__stcs:
#     engine-stcs-experiment.diff, a plugin variant; copy it to
#     .bundle/exp/engine-stcs.diff first) against the plugin as built, with
#     the marks, np 2 and 4, 4 and 64 MiB.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
grep -E '^(example-dl-stream|gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|gpu-gcoll-stream-kernels)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 200 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tail -1 $OUT/tests.txt | tr -d '\000')"
bench_cuda_build bench/b_coll_oneshot.cu /tmp/oneshot > $OUT/build-oneshot.txt 2>&1
for r in 1 2; do
  for np in 1 2 4; do
    BENCH_KERNEL_EVENTS=1 timeout 60 mpirun -np $np --bind-to none --oversubscribe -x BENCH_KERNEL_EVENTS \
      /tmp/oneshot 4096,16384 2>&1 | tr -d '\000' | grep -a '^gallreduce,kernel' >> $OUT/kernel-events.csv
  done
done
echo "kernel events at $(el) s"
variants engine-stcs
export BENCH_NO_TRADITIONAL=1 BENCH_STREAM_KERNELS=1
for r in 1 2; do
  for np in 2 4; do
    for v in base engine-stcs; do
      use $v
      run $np -$v-r$r 1024,16384 --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS >> $OUT/mps-stcs.csv
    done
  done
done
use base
echo "stcs at $(el) s"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s19/next-s20.sh 2>&1 | tail; tar -cJf $O/n.tar.xz -C /tmp o
