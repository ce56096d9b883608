#!/usr/bin/env bash
# Session 20, call H (one H200, CUDA MPS), bundle of the library as at
# e79a4e2. Call G: inside the marks epochs the producer takes 76 us with
# its MPIX_Pready (np 1, 16384 blocks) and 51 us without (compute), the
# epoch 148 against 123 us; one mark word a block is no faster than 32.
# Which part of the marks path costs: compute_mark (thread 0 stores the
# mark through a pointer argument: no load) and compute_ldg (MPIX_Pready's
# two read-only loads, then the store) against compute_pready and compute.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
M='--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_KERNEL_TIME -x BENCH_NO_HOST -x BENCH_NO_TRADITIONAL'
export BENCH_STREAM_KERNELS=1 BENCH_KERNEL_TIME=1 BENCH_NO_HOST=1 BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  for np in 1 2; do
    for v in pready plain mark ldg; do
      case $v in
        pready) X= ;;
        plain) X='-x BENCH_STREAM_PLAIN=1' ;;
        *) X="-x BENCH_STREAM_KERNEL=$v" ;;
      esac
      timeout 60 mpirun -np $np --bind-to none --oversubscribe --mca part ucx $M $X \
        /tmp/plain allreduce 4096,16384 2>&1 | tr -d '\000' | grep -a '^g' | sed "s/\$/,$v-r$r/" >> $OUT/kinds.csv
    done
  done
  echo "round $r at $(el) s"
done
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s20/call-h.sh 2>&1 | tail; tar -cJf $O/h.tar.xz -C /tmp o
