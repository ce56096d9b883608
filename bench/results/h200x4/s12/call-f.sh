#!/usr/bin/env bash
# Session 13, call F (four GPUs), bundle of 7165fb2: the pushed two-shot
# (part_ucx_coll_gpu_twoshot_push) against the pulled one where it is off
# by default, on H200 (its HBM makes the window's extra pass cheaper than
# on the H100 that decided it): np 3 and 4 across GPUs, and np 2 and 4 on
# GPU 0 under MPS (value 2), at 4, 16 and 64 MiB, two rounds.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  for np in 3 4; do
    run $np -pull-r$r 1024,4096,16384 >> $OUT/x-push34.csv
    run $np -push-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_twoshot_push 1 >> $OUT/x-push34.csv
  done
done
echo "across at $(el) s"
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
for r in 1 2; do
  for np in 2 4; do
    [ $(el) -lt 300 ] || break
    run $np -pull-r$r 1024,4096,16384 >> $OUT/mps-push.csv
    run $np -push-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_twoshot_push 2 >> $OUT/mps-push.csv
  done
done
echo quit | nvidia-cuda-mps-control
echo "done at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s13c.sh $OUT/call.sh; bash .bundle/exp/s13c.sh 2>&1 | tail; tar -cJf $O/f.tar.xz -C /tmp o
