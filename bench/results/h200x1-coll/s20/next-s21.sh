#!/usr/bin/env bash
# Prepared in session 20, not run (no device time left). One H200, every
# rank under CUDA MPS, a bundle of e79a4e2 or later; about 90 s.
# (1) call-j.sh's question: is a mark store's cost (np 1, 16384 blocks:
#     64 against 51 us) the marks' memory or the blocks on one word?
#     markc / markd: the same stores into a cudaMalloc'd array, one word a
#     partition or a block.
# (2) pready-ordered-block-experiment.diff (header only, compiled): the
#     marks path of MPIX_Pready with block aggregation tests the tag once
#     and lets every thread but (0, 0, 0) leave without computing its
#     rank: 12 fewer instructions a thread before they leave (SASS, 90
#     against 102; compute_ldg leaves after 55). Its producer time in the
#     marks epochs against the header as built, np 1 and 2. If it pays, it
#     goes into mpix_part_device.h and the marks lines run on it.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mkdir -p /tmp/y && cp mpix_part_device.h /tmp/y/ &&
  (cd /tmp/y && patch -p1 < $OLDPWD/bench/results/h200x1-coll/s20/pready-ordered-block-experiment.diff > /dev/null) &&
  bench_cuda_build bench/b_coll_gpu.cu /tmp/plainy -include /tmp/y/mpix_part_device.h > $OUT/build-y.txt 2>&1 || echo "no variant build"
mps_start
M='--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_KERNEL_TIME -x BENCH_NO_TRADITIONAL -x BENCH_NO_HOST'
export BENCH_STREAM_KERNELS=1 BENCH_KERNEL_TIME=1 BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
for r in 1 2; do
  for v in mark markc markd plain; do
    X="-x BENCH_STREAM_KERNEL=$v"
    [ $v = plain ] && X='-x BENCH_STREAM_PLAIN=1'
    timeout 60 mpirun -np 1 --bind-to none --oversubscribe --mca part ucx $M $X \
      /tmp/plain allreduce 4096,16384 2>&1 | tr -d '\000' | grep -a '^g' | sed "s/\$/,$v-r$r/" >> $OUT/store.csv
  done
  for np in 1 2; do
    for b in plain plainy; do
      timeout 60 mpirun -np $np --bind-to none --oversubscribe --mca part ucx $M \
        /tmp/$b allreduce 4096,16384 2>&1 | tr -d '\000' | grep -a '^g' | sed "s/\$/,$b-r$r/" >> $OUT/header.csv
    done
  done
  echo "round $r at $(el) s"
done
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s20/next-s21.sh 2>&1 | tail; tar -cJf $O/n.tar.xz -C /tmp o
