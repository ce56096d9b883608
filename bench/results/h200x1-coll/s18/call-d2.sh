#!/usr/bin/env bash
# Session 18, call D2 (two H200), bundle of call D1. (1) GPU 0 under MPS:
# kernel + allreduce, np 2 and 4, the default against after mode, two
# rounds, and the two limits; a trace of after mode at 16384 blocks, np 2.
# (2) One rank a GPU, np 2: every row beside NCCL's at 1-1024 blocks (the
# 64-256 block gap of issue 23, with the collective's MPIX_Pready now
# without a count: it relays there, its marks at GPU scope).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
run 2 "" 1,64 > /dev/null 2>&1 # warm-up
for r in 1 2; do
  run 2 "" 1,16,64,192,256,1024 >> $OUT/x-nccl.csv
done
echo "across GPUs at $(el) s"
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
export BENCH_NO_TRADITIONAL=1
G=1,64,1024,4096,16384
for r in 1 2; do
  for np in 2 4; do
    run $np -base-r$r $G >> $OUT/mps-after.csv
    run $np -after-r$r $G --mca part_ucx_coll_gpu_after_bytes 1 >> $OUT/mps-after.csv
  done
  echo "round $r at $(el) s"
done
bench_cuda_build bench/b_coll_oneshot.cu /tmp/oneshot > $OUT/build-oneshot.txt 2>&1
for np in 2 4; do
  timeout 100 mpirun -np $np --bind-to none --oversubscribe /tmp/oneshot $G 2>&1 | tr -d '\000' | grep -a '^gallreduce' >> $OUT/mps-limits.csv
done
echo "limits at $(el) s"
timeout 120 bench/trace/run.sh /tmp/trace 2 16384 --mca part_ucx_coll_gpu_after_bytes 1 > $OUT/trace.log 2>&1
mkdir -p $OUT/trace && cp /tmp/trace/g16384/phases-r* /tmp/trace/g16384/units.txt $OUT/trace/ 2>/dev/null
echo "trace at $(el) s"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s18/call-d2.sh 2>&1 | tail; tar -cJf $O/d2.tar.xz -C /tmp o
