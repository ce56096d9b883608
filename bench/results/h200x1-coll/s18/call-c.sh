#!/usr/bin/env bash
# Session 18, call C: one H200, every rank under CUDA MPS. After call B
# (after mode 0.87x the time at 64 MiB, slower below 4 MiB): the gate now
# looks at a batch of words a thread (it took one round trip a word), on
# 1024 threads. (1) the after test lines and the sanitizer line again;
# (2) the A/B of call B at 1024-16384 blocks, np 2 and 4, two rounds; (3)
# traces (bench/trace/run.sh) of after mode, np 2 at 4096 and 16384 blocks,
# to see where an epoch's time goes.
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
  done
  echo "round $r at $(el) s"
done
timeout 200 bench/trace/run.sh /tmp/trace 2 4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 > $OUT/trace.log 2>&1
(cd /tmp/trace && find . -name 'phases-*' -o -name 'units.txt' -o -name 'rows.csv' | tar -cf - -T -) | tar -xf - -C $OUT/ 2>/dev/null
mkdir -p $OUT/trace && mv $OUT/g* $OUT/trace/ 2>/dev/null
echo "trace at $(el) s"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s18/call-c.sh 2>&1 | tail; tar -cJf $O/c.tar.xz -C /tmp o
