#!/usr/bin/env bash
# Session 17, call C (two GPUs), bundle of f244fe8: knob sweeps where the
# GPU allreduce still misses its targets. (1) Issue 23 run 3, np 2 across
# the GPUs at 64-256 blocks (256 KiB-1 MiB, 1.05-1.12x NCCL's graph in
# call A on four H200): the defaults with NCCL's rows, then the flagged
# bulk push instead of LL128 lines, lines of 8 bytes up to 1 MiB, span
# units of 2 / 8 / 16 KiB, 32 / 128 engine blocks; two rounds. (2) Issue
# 22, np 4 on GPU 0 under MPS at 16 and 64 blocks (15.4 us against
# <= 15): two-shot from 128 KiB, pushed lines up to 256 KiB, the bulk
# push on one GPU; two rounds.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
G=64,128,192,256
P=--mca
for r in 1 2; do
  run 2 "" $G >> $OUT/x-knobs.csv
  export BENCH_NO_TRADITIONAL=1
  run 2 -ll0-r$r $G $P part_ucx_coll_gpu_ll128_bytes 0 >> $OUT/x-knobs.csv
  run 2 -push1m-r$r $G $P part_ucx_coll_gpu_span_push_bytes 1048576 >> $OUT/x-knobs.csv
  for u in 2048 8192 16384; do run 2 -u$u-r$r $G $P part_ucx_coll_gpu_span_unit_bytes $u >> $OUT/x-knobs.csv; done
  for b in 32 128; do run 2 -b$b-r$r $G $P part_ucx_coll_gpu_span_blocks $b >> $OUT/x-knobs.csv; done
  unset BENCH_NO_TRADITIONAL
  echo "across GPUs round $r at $(el) s"
done
export BENCH_NO_TRADITIONAL=1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
G=16,64
for r in 1 2; do
  run 4 -base-r$r $G >> $OUT/mps-knobs.csv
  run 4 -ts128k-r$r $G $P part_ucx_coll_gpu_twoshot_bytes 131072 >> $OUT/mps-knobs.csv
  run 4 -push256k-r$r $G $P part_ucx_coll_gpu_push_bytes 262144 >> $OUT/mps-knobs.csv
  run 4 -bulk-r$r $G $P part_ucx_coll_gpu_bulk_one_gpu 1 >> $OUT/mps-knobs.csv
  echo "one GPU round $r at $(el) s"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x2/s17/call-c.sh 2>&1 | tail; tar -cJf $O/c.tar.xz -C /tmp o
