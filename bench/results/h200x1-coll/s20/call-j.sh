#!/usr/bin/env bash
# Session 20, call J (one H200, CUDA MPS), bundle of the library as at
# e79a4e2. Calls H and I: the producer inside the marks epochs (np 1,
# 16384 blocks) takes 51 us with no mark, 64 with one mark store a block
# (compute_mark, into the request's marks), 76 with MPIX_Pready, whose
# extra ~40 instructions a thread (the caller's partition division, the
# tag tests, the rank) cost the rest in this kernel of one element a
# thread. Is the store's 13 us the memory it goes to (the marks are the
# plugin's device allocation) or the number of blocks on one word? markc:
# the same stores into a cudaMalloc'd array; markd: one word a block.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
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
  echo "round $r at $(el) s"
done
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s20/call-j.sh 2>&1 | tail; tar -cJf $O/j.tar.xz -C /tmp o
