#!/usr/bin/env bash
# Session 14, call B (GPU 0 under MPS). Call A: more engine blocks (64 at
# np 2) or four chunks in flight gain 7-10% at 64 MiB, so the engine's
# bytes in flight are not what holds it. Suspect: the tail. A unit is 1
# MiB at large data (one a block), so the partitions the producer finishes
# last are moved by one or two blocks each after it ends. Units follow
# part_ucx_coll_gpu_blocks (total / blocks, at most 1 MiB) while the grid
# stays capped (33 blocks at np 2, 16 at np 4): a larger parameter gives
# smaller units on the same grid. Two rounds; four.diff beside.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
variants four
export BENCH_NO_TRADITIONAL=1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
G=64,256,1024,4096,16384
for r in 1 2; do
  use base
  run 2 -base-r$r $G >> $OUT/mps-units.csv
  run 4 -base-r$r $G >> $OUT/mps-units.csv
  for p in 128 256 512 1024 2048; do run 2 -p$p-r$r $G --mca part_ucx_coll_gpu_blocks $p >> $OUT/mps-units.csv; done
  for p in 64 128 256 512 1024; do run 4 -p$p-r$r $G --mca part_ucx_coll_gpu_blocks $p >> $OUT/mps-units.csv; done
  use four
  for p in 256 1024; do run 2 -fourp$p-r$r $G --mca part_ucx_coll_gpu_blocks $p >> $OUT/mps-units.csv; done
  for p in 128 512; do run 4 -fourp$p-r$r $G --mca part_ucx_coll_gpu_blocks $p >> $OUT/mps-units.csv; done
  echo "round $r at $(el) s"
done
use base
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s15b.sh $OUT/call.sh; bash .bundle/exp/s15b.sh 2>&1 | tail; tar -cJf $O/b.tar.xz -C /tmp o
