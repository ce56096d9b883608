#!/usr/bin/env bash
# Prepared in session 25, not run: why MPIX_Pready's block-level mark as a
# reduction (red-header.diff), 13 us cheaper a producer alone
# (markcost.cu), made the marks epochs slower (call D). Hypothesis: the
# peers' gates poll the last partition's mark word (gcoll_gate_last's
# early launch) while that partition's blocks reduce into it. One H200,
# every rank under CUDA MPS, a bundle of this checkout (the kept header).
# Four builds, two rounds, np 2 and 4, 4/16/64 MiB, marks epochs:
#   st-base, red-base: the header as kept / red-header.diff, this plugin;
#   st-notrig, red-notrig: the same with ../s24/notrig-experiment.diff (the gate
#   no longer polls the peers' marks, so no early launch).
# If red-notrig beats st-base, the mark should be a reduction and the early
# launch should look elsewhere (e.g., a word of its own per rank).
# Then the small grids with the default settings (issue 22's 15 us target),
# and markcost.cu's strong-store variants (added after call C, not run):
# MPIX_Pready's mark is a generic store (ST.E.64: its pointer comes from
# the request), the reduction a strong one at GPU scope.
# run: bash bench/results/h200x1-coll/s25/next-s26.sh (carry .bundle)
set -u
O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mkdir -p .bundle/exp && cp bench/results/h200x1-coll/s24/notrig-experiment.diff .bundle/exp/notrig.diff
variants notrig || exit 1
h=$call_dir/part-ucx/include/mpix_part_device.h
cp /tmp/plain /tmp/plain-st && cp $h /tmp/st.h && patch $h < <(sed 's#^--- a/mpix_part_device.h#--- mpix_part_device.h#; s#^+++ b/mpix_part_device.h#+++ mpix_part_device.h#' bench/results/h200x1-coll/s25/red-header.diff) > /dev/null &&
  bench_cuda_build bench/b_coll_gpu.cu /tmp/plain-red $nccl -- $ncclibs > $OUT/build-red.txt 2>&1; cp /tmp/st.h $h
[ -x /tmp/plain-red ] || { echo "no plain-red"; exit 1; }
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
limits 1024,4096,16384 2 4 > $OUT/limits-0.csv
M="--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST"
for r in 1 2; do
  for np in 2 4; do
    for p in base notrig; do
      use $p
      for h in st red; do
        cp /tmp/plain-$h /tmp/plain
        BENCH_STREAM_KERNELS=1 run $np marks-$h-$p-r$r 1024,4096,16384 $M >> $OUT/marks.csv
      done
    done
  done
  echo "round $r at $(el) s"
done
# the producers' own times inside the epochs (events around each rank's
# kernel), st and red on base: whether the reduction slowed the producers
# or what runs after them
use base
for h in st red; do
  cp /tmp/plain-$h /tmp/plain
  BENCH_KERNEL_TIME=1 BENCH_STREAM_KERNELS=1 BENCH_LABEL=ktime-$h timeout 100 mpirun -np 2 --bind-to none \
    --oversubscribe --mca part ucx $M -x BENCH_KERNEL_TIME -x BENCH_LABEL -x BENCH_NO_TRADITIONAL \
    /tmp/plain allreduce 1024,4096,16384 2>&1 | tr -d '\000' | grep -a '^g' >> $OUT/ktime.csv
done
cp /tmp/plain-st /tmp/plain; use base
limits 1024,4096,16384 2 4 > $OUT/limits-1.csv
# issue 22's other target, <= 15 us at 1-64 blocks (last measured in
# session 14: np 4 at 64 blocks 15.36 us), with the default settings
for np in 2 4; do run $np small 1,4,16,64 -x BENCH_NO_HOST >> $OUT/small.csv; done
limits 1,4,16,64 2 4 > $OUT/limits-small.csv
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
nvcc -O3 -arch=sm_90 -o /tmp/markcost bench/results/h200x1-coll/s25/markcost.cu &&
  MARKCOST_ONLY=none,st,div,red,ldgst,ldgred,strong,vol,ldgstrg /tmp/markcost > $OUT/markcost3.txt 2>&1
tar -cJf $O/n.tar.xz -C /tmp o
cp $OUT/marks.csv $OUT/ktime.csv $OUT/small.csv $OUT/limits-0.csv $OUT/limits-1.csv $OUT/limits-small.csv $OUT/markcost3.txt $O/ 2>/dev/null
