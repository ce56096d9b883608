#!/usr/bin/env bash
# Session 20, call G (one H200, CUDA MPS), bundle of the library as at
# e79a4e2. Call F: with nothing, a copy or a copy kernel between them the
# kernel takes 50 us (np 1, 16384 blocks), in the marks epochs 76 us; at
# 4096 blocks both the same. Is it the marks themselves (512 blocks store
# to each of 32 mark words at 16384 blocks)? Marks epochs, np 1 and 2,
# stream row, producer by events: as built (32 partitions), one partition
# a block (BENCH_PARTS = grid), and no MPIX_Pready at all
# (BENCH_STREAM_PLAIN: the request then fails, timing only).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
M='--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_KERNEL_TIME -x BENCH_NO_HOST -x BENCH_NO_TRADITIONAL -x BENCH_LABEL'
export BENCH_STREAM_KERNELS=1 BENCH_KERNEL_TIME=1 BENCH_NO_HOST=1 BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  for np in 1 2; do
    for g in 4096 16384; do
      BENCH_LABEL=-p32-r$r timeout 60 mpirun -np $np --bind-to none --oversubscribe --mca part ucx $M \
        /tmp/plain allreduce $g 2>&1 | tr -d '\000' | grep -a '^g' | sed "s/\$/,p32-r$r/" >> $OUT/marks.csv
      BENCH_PARTS=$g BENCH_LABEL=-pgrid-r$r timeout 60 mpirun -np $np --bind-to none --oversubscribe --mca part ucx $M \
        -x BENCH_PARTS /tmp/plain allreduce $g 2>&1 | tr -d '\000' | grep -a '^g' | sed "s/\$/,pgrid-r$r/" >> $OUT/marks.csv
      BENCH_STREAM_PLAIN=1 BENCH_LABEL=-plain-r$r timeout 60 mpirun -np $np --bind-to none --oversubscribe --mca part ucx $M \
        -x BENCH_STREAM_PLAIN /tmp/plain allreduce $g 2>&1 | tr -d '\000' | grep -a '^g' | sed "s/\$/,plain-r$r/" >> $OUT/marks.csv
    done
  done
  echo "round $r at $(el) s"
done
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s20/call-g.sh 2>&1 | tail; tar -cJf $O/g.tar.xz -C /tmp o
