#!/usr/bin/env bash
# Session 20, call F (one H200, CUDA MPS), bundle of the library as at
# e79a4e2. Call E found the producer slower inside the marks epochs with
# one rank too (np 1, 16384 blocks: 76 us against 53 alone), so not
# another process's work. Is it what the engine does to memory before it?
# b_coll_gpu's BENCH_BETWEEN: the same kernel back to back with nothing, a
# cudaMemcpyAsync of x into y, or a copy kernel on one block an SM between
# two; np 1 and 2; beside the marks epochs' own (stream_pready_rank0).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
for r in 1 2; do
  for np in 1 2; do
    for b in none copy kcopy; do
      BENCH_BETWEEN=$b BENCH_NO_HOST=1 BENCH_NO_STREAM=1 BENCH_NO_TRADITIONAL=1 timeout 60 mpirun -np $np \
        --bind-to none --oversubscribe --mca part ucx -x BENCH_BETWEEN -x BENCH_NO_HOST -x BENCH_NO_STREAM \
        -x BENCH_NO_TRADITIONAL /tmp/plain allreduce 4096,16384 2>&1 | tr -d '\000' | grep -a '^gkernel' |
        sed "s/\$/,r$r/" >> $OUT/between.csv
    done
    BENCH_KERNEL_TIME=1 BENCH_NO_HOST=1 BENCH_STREAM_KERNELS=1 BENCH_NO_TRADITIONAL=1 timeout 60 mpirun -np $np \
      --bind-to none --oversubscribe --mca part ucx --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_KERNEL_TIME \
      -x BENCH_NO_HOST -x BENCH_STREAM_KERNELS -x BENCH_NO_TRADITIONAL /tmp/plain allreduce 4096,16384 2>&1 |
      tr -d '\000' | grep -a '^g' | sed "s/\$/,r$r/" >> $OUT/between.csv
  done
  echo "round $r at $(el) s"
done
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s20/call-f.sh 2>&1 | tail; tar -cJf $O/f.tar.xz -C /tmp o
