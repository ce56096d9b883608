#!/usr/bin/env bash
# Session 20, call I (one H200, CUDA MPS), bundle of the library as at
# e79a4e2. Call H (np 1, 16384 blocks, the producer inside the marks
# epochs): compute 51 us, compute_mark 64, compute_ldg 64, compute_pready
# 76, though compute_pready runs the same instructions as compute_ldg.
# Here: compute_ldgsb (compute_ldg with a barrier and shared memory it
# never uses, as MPIX_Pready's counted paths bring) and compute_pready
# built with pready-noinline-experiment.diff (the counted block path
# behind a call), beside compute_pready and compute_ldg; the host-started
# row (counted MPIX_Pready) of both builds too.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mkdir -p /tmp/x && cp mpix_part_device.h /tmp/x/ && (cd /tmp/x && patch -p1 < $OLDPWD/bench/results/h200x1-coll/s20/pready-noinline-experiment.diff > /dev/null) &&
  bench_cuda_build bench/b_coll_gpu.cu /tmp/plainx -include /tmp/x/mpix_part_device.h > $OUT/build-x.txt 2>&1 || echo "no noinline build"
mps_start
M='--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_KERNEL_TIME -x BENCH_NO_TRADITIONAL'
export BENCH_STREAM_KERNELS=1 BENCH_KERNEL_TIME=1 BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  for np in 1 2; do
    for v in pready noinline ldg ldgsb; do
      B=/tmp/plain; X=
      case $v in
        noinline) B=/tmp/plainx ;;
        ldg|ldgsb) X="-x BENCH_STREAM_KERNEL=$v -x BENCH_NO_HOST=1" ;;
      esac
      timeout 60 mpirun -np $np --bind-to none --oversubscribe --mca part ucx $M $X \
        $B allreduce 4096,16384 2>&1 | tr -d '\000' | grep -a '^g' | sed "s/\$/,$v-r$r/" >> $OUT/kinds.csv
    done
  done
  echo "round $r at $(el) s"
done
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s20/call-i.sh 2>&1 | tail; tar -cJf $O/i.tar.xz -C /tmp o
