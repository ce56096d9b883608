#!/usr/bin/env bash
# Session 21, call D (two H200, one rank a GPU), bundle with the
# ordered-block MPIX_Pready, the engine's evict-first result stores and
# gcoll_reduce's four chunks a thread (h200x1-coll/s21 calls B, C).
# (1) Issue 23's kernel + allreduce np 2 across the GPUs: the defaults with
#     NCCL's rows (unlabelled) and the engine as it was before this session
#     (s20engine: .bundle/exp/s20engine.diff, the plugin of 1492ac7), two
#     rounds.
# (2) The gpu-gcoll and gpu-stream-gcoll lines, one rank a GPU (np 3 and 4
#     wrap round the two GPUs), as many as the time allows.
set -u
T0=$(date +%s)
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
nvidia-smi topo -m > $OUT/topo.txt 2>&1
variants s20engine
G=1,16,64,128,256,1024,4096,16384
for r in 1 2; do
  use base
  if [ $r = 1 ]; then run 2 "" $G >> $OUT/x-defaults.csv; else BENCH_NO_TRADITIONAL=1 run 2 -base-r2 $G >> $OUT/x-defaults.csv; fi
  use s20engine
  BENCH_NO_TRADITIONAL=1 run 2 -s20engine-r$r $G >> $OUT/x-s20engine.csv
  echo "round $r at $(el) s"
done
use base
grep -E '^(gpu-gcoll|gpu-stream-gcoll)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 \
  timeout $((480 - $(date +%s) + T0)) tools/test.sh --gpu > $OUT/x-tests.txt 2>&1
echo "tests at $(el) s: $(tr -d '\000' < $OUT/x-tests.txt | grep -c '^PASS') PASS, $(tr -d '\000' < $OUT/x-tests.txt | grep -c '^FAIL') FAIL"
mkdir -p $OUT/logs && for f in $(tr -d '\000' < $OUT/x-tests.txt | awk '/^FAIL/ {print $2}'); do cp /tmp/tb/$f.*log $OUT/logs/ 2>/dev/null; done
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x2/s21/call-d.sh 2>&1 | tail; tar -cJf $O/d.tar.xz -C /tmp o
