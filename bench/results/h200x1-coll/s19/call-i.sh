#!/usr/bin/env bash
# Session 19, call I: one H200, ranks under CUDA MPS, bundle of d6bcc11,
# b_coll_gpu of this tree (its trace's "last" sampled: every block's
# atomic on one word had doubled a traced producer). Where a 64 MiB epoch
# with the marks goes, np 2 and 4 (bench/trace/run.sh, after mode,
# BENCH_STREAM_KERNELS).
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
export BENCH_STREAM_KERNELS=1
for np in 2 4; do
  timeout 100 bench/trace/run.sh /tmp/tr$np $np 16384 --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS > $OUT/trace-np$np.log 2>&1
  mkdir -p $OUT/np$np && cp /tmp/tr$np/g16384/{rows.csv,units.txt,at.*,gt.*} $OUT/np$np/ 2>/dev/null
  echo "np $np at $(el) s"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s19/call-i.sh 2>&1 | tail; tar -cJf $O/i.tar.xz -C /tmp o
