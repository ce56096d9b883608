#!/usr/bin/env bash
# Session 22, call C (two H200, one rank a GPU), bundle with every engine
# launch through gcoll_launch_ex (the priority attribute across GPUs, as
# before) and after mode's kernel and programmatic launches (one GPU only).
# (1) Issue 23's kernel + allreduce np 2 across the GPUs: the defaults with
#     NCCL's rows (unlabelled) and the plugin of call A's bundle (prev:
#     ../../h200x1-coll/s22/prev-experiment.diff), two rounds.
# (2) The stream-ordered GPU collective lines (gpu-stream-gcoll*,
#     gpu-gcoll-stream*), one rank a GPU (np 3 and 4 wrap round the two
#     GPUs), then the other gpu-gcoll lines as the time allows.
set -u
T0=$(date +%s)
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
nvidia-smi topo -m > $OUT/topo.txt 2>&1
mkdir -p .bundle/exp && cp bench/results/h200x1-coll/s22/prev-experiment.diff .bundle/exp/prev.diff
variants prev
G=1,16,64,128,256,1024,4096,16384
for r in 1 2; do
  use base
  if [ $r = 1 ]; then run 2 "" $G >> $OUT/x-defaults.csv; else BENCH_NO_TRADITIONAL=1 run 2 -base-r2 $G >> $OUT/x-defaults.csv; fi
  use prev
  BENCH_NO_TRADITIONAL=1 run 2 -prev-r$r $G >> $OUT/x-prev.csv
  echo "round $r at $(el) s"
done
use base
{ grep -E '^(gpu-stream-gcoll|gpu-gcoll-stream)' tests/gpu.list; grep -E '^gpu-gcoll' tests/gpu.list | grep -v '^gpu-gcoll-stream'; } > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 \
  timeout $((520 - $(date +%s) + T0)) tools/test.sh --gpu > $OUT/x-tests.txt 2>&1
echo "tests at $(el) s: $(tr -d '\000' < $OUT/x-tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/x-tests.txt | grep -c '^FAIL') FAIL"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/x-tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x2/s22/call-c.sh 2>&1 | tail; tar -cJf $O/c.tar.xz -C /tmp o
