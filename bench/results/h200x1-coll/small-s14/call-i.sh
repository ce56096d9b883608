#!/usr/bin/env bash
# Session 14, call I (one H200, the kind issue 22 names), bundle of
# c55d17a's install (0c8bdaf's code). Issue 22's <= 15 us at 1-64 blocks
# on one H200 under MPS: np 2 and 4 at 1-64 blocks, two rounds (GPU 0 of
# the four-GPU node gave np 4 15.37 us at 64 blocks); at np 4, 64 blocks
# (256 KiB: one-shot pull, 8 units on 8 blocks), the kinds the MCA
# parameters can choose instead: two-shot, bulk push on one GPU, push.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  run 2 -base-r$r 1,4,16,64 >> $OUT/mps-small.csv
  run 4 -base-r$r 1,4,16,64 >> $OUT/mps-small.csv
  run 4 -two-r$r 16,64 --mca part_ucx_coll_gpu_twoshot_bytes 65536 >> $OUT/mps-small.csv
  run 4 -bulk-r$r 16,64 --mca part_ucx_coll_gpu_bulk_one_gpu 1 >> $OUT/mps-small.csv
  run 4 -push-r$r 16,64 --mca part_ucx_coll_gpu_push_bytes 262144 >> $OUT/mps-small.csv
  echo "round $r at $(el) s"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s15i.sh $OUT/call.sh; bash .bundle/exp/s15i.sh 2>&1 | tail; tar -cJf $O/i.tar.xz -C /tmp o
