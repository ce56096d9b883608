#!/usr/bin/env bash
# Session 20, call C (one H200, every rank under CUDA MPS), bundle of the
# library as at e79a4e2; b_coll_gpu built from this checkout (its
# BENCH_KERNEL_TIME now also times each rank's kernel inside the
# stream-ordered epochs).
# (1) Issue 22 at 4-64 MiB: how long each rank's producer runs inside the
#     epochs (events around it, every epoch), marks mode (after mode + the
#     key) against the default (engine beside the producers), np 2 and 4;
#     the kernel alone back to back is call B's kernel_events.
# (2) Issue 22's 15 us at 64 blocks (np 4 15.4 us in session 14): the
#     engine's blocks and unit size at 16-64 blocks, np 2 and 4, graph.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1 BENCH_KERNEL_TIME=1
K='-x BENCH_KERNEL_TIME -x BENCH_NO_HOST'
for r in 1 2; do
  for np in 2 4; do
    BENCH_STREAM_KERNELS=1 BENCH_LABEL=-marks-r$r timeout 100 mpirun -np $np --bind-to none --oversubscribe --mca part ucx \
      --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_LABEL -x BENCH_NO_TRADITIONAL $K \
      /tmp/plain allreduce 1024,16384 2>&1 | tr -d '\000' | grep -a '^g' >> $OUT/ktime.csv
    BENCH_LABEL=-default-r$r timeout 100 mpirun -np $np --bind-to none --oversubscribe --mca part ucx \
      -x BENCH_LABEL -x BENCH_NO_TRADITIONAL $K \
      /tmp/plain allreduce 1024,16384 2>&1 | tr -d '\000' | grep -a '^g' >> $OUT/ktime.csv
  done
done
echo "ktime at $(el) s"
unset BENCH_KERNEL_TIME BENCH_NO_HOST
for r in 1 2; do
  for np in 2 4; do
    [ $(el) -lt 480 ] || break
    for b in 16 32 64; do
      for u in 8192 16384 32768; do
        run $np -b$b-u$u-r$r 16,64 --mca part_ucx_coll_gpu_blocks $b --mca part_ucx_coll_gpu_unit_bytes $u >> $OUT/small.csv
      done
    done
  done
  echo "small round $r at $(el) s"
done
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s20/call-c.sh 2>&1 | tail; tar -cJf $O/c.tar.xz -C /tmp o
