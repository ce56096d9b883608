#!/usr/bin/env bash
# Session 18, call B: one H200 (GPU 0 of any kind), every rank under CUDA
# MPS, bundle with part_ucx_coll_gpu_after_bytes (stream-ordered epochs
# whose engine runs after the producers, behind a one-block gate).
# (1) its test lines (tests/gpu.list: gpu-stream-gcoll-after*) and the
# compute-sanitizer line (racecheck, memcheck);
# (2) kernel + allreduce, stream-ordered and graph rows (the host-started
# rows do not change: a control), np 2 and 4: the default against after
# mode, and after mode with 256-block units (part_ucx_coll_gpu_blocks
# 256: the units are cut for that many blocks), two rounds;
# (3) the two limits (b_coll_oneshot) at the same grids.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep '^gpu-stream-gcoll-after' tests/gpu.list > /tmp/after.list
TEST_LIST=/tmp/after.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=90 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tail -1 $OUT/tests.txt)"
SANITIZE_TOOLS="racecheck memcheck" timeout 150 tools/sanitize-gpu.sh $OUT/sanitize.txt -k san-stream-gcoll-after > /dev/null 2>&1
echo "sanitizer at $(el) s: $(tail -1 $OUT/sanitize.txt 2>/dev/null)"
export BENCH_NO_TRADITIONAL=1
G=1,64,1024,4096,16384
for r in 1 2; do
  for np in 2 4; do
    run $np -base-r$r $G >> $OUT/mps-after.csv
    run $np -after-r$r $G --mca part_ucx_coll_gpu_after_bytes 1 >> $OUT/mps-after.csv
    run $np -after256-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 --mca part_ucx_coll_gpu_blocks 256 >> $OUT/mps-after.csv
  done
  echo "round $r at $(el) s"
done
bench_cuda_build bench/b_coll_oneshot.cu /tmp/oneshot > $OUT/build-oneshot.txt 2>&1
for np in 2 4; do
  timeout 100 mpirun -np $np --bind-to none --oversubscribe /tmp/oneshot $G 2>&1 | tr -d '\000' | grep -a '^gallreduce' >> $OUT/mps-limits.csv
done
echo "limits at $(el) s"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s18/call-b.sh 2>&1 | tail; tar -cJf $O/b.tar.xz -C /tmp o
