#!/usr/bin/env bash
# Session 20, call E (one H200, CUDA MPS), bundle of the library as at
# e79a4e2. Issue 22: why each producer takes ~80 us inside the marks
# epochs (call C: the two ranks' kernels span 98-139 us by events, against
# 73-82 us for two launched together in b_coll_oneshot).
# (1) np 1 and np 2, 4096 and 16384 blocks, marks mode (after mode + the
#     key) with BENCH_KERNEL_TIME and the host row: the same binary's kernel
#     alone (gkernel,compute), host-started with MPIX_Pready, and inside the
#     stream-ordered epochs (stream_pready_rankR); np 1 has no peer process.
# (2) np 2 with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50: each rank's kernels
#     on at most half the SMs, so the two producers run side by side.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_KERNEL_TIME=1 BENCH_STREAM_KERNELS=1
M='--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_KERNEL_TIME'
for r in 1 2; do
  for np in 1 2; do
    BENCH_LABEL=-marks-np$np-r$r timeout 100 mpirun -np $np --bind-to none --oversubscribe --mca part ucx $M \
      -x BENCH_LABEL -x BENCH_NO_TRADITIONAL /tmp/plain allreduce 4096,16384 2>&1 | tr -d '\000' | grep -a '^g' >> $OUT/ktime.csv
  done
  echo "round $r at $(el) s"
done
mps_stop
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps2 CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog2 CUDA_VISIBLE_DEVICES=0
mkdir -p /tmp/mps2 /tmp/mpslog2
CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 nvidia-cuda-mps-control -d
for r in 1 2; do
  BENCH_LABEL=-marks-half-r$r timeout 100 mpirun -np 2 --bind-to none --oversubscribe --mca part ucx $M \
    -x BENCH_LABEL -x BENCH_NO_TRADITIONAL /tmp/plain allreduce 4096,16384 2>&1 | tr -d '\000' | grep -a '^g' >> $OUT/ktime.csv
  BENCH_LABEL=-default-half-r$r timeout 100 mpirun -np 2 --bind-to none --oversubscribe --mca part ucx \
    -x BENCH_LABEL -x BENCH_NO_TRADITIONAL -x BENCH_KERNEL_TIME /tmp/plain allreduce 4096,16384 2>&1 | tr -d '\000' | grep -a '^g' >> $OUT/ktime.csv
  echo "half round $r at $(el) s"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s20/call-e.sh 2>&1 | tail; tar -cJf $O/e.tar.xz -C /tmp o
