#!/usr/bin/env bash
# Session 19, call G: one H200, under CUDA MPS, bundle of d6bcc11. Why two
# ranks' producers take about twice the limit's kernel time in an epoch
# with the marks (call F: 240 us at 64 MiB with no MPIX_Pready at all,
# about 98 of it gate and engine): b_coll_oneshot's kernel_alone with one
# rank (a kernel alone on the GPU) against two (two kernels launched at
# once after a barrier), three rounds.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
. bench/common.sh
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
bench_cuda_build bench/b_coll_oneshot.cu /tmp/oneshot > $OUT/build-oneshot.txt 2>&1
for r in 1 2 3; do
  for np in 1 2 4; do
    timeout 60 mpirun -np $np --bind-to none --oversubscribe /tmp/oneshot 1024,4096,16384 2>&1 | tr -d '\000' | grep -a '^gallreduce,kernel' >> $OUT/alone.csv
  done
done
echo "done at $(el) s"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s19/call-g.sh 2>&1 | tail; tar -cJf $O/g.tar.xz -C /tmp o
