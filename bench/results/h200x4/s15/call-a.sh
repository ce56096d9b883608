#!/usr/bin/env bash
# Session 15, call A (four GPUs), bundle of 743512d (0c8bdaf's code: the
# engine at the greatest priority across GPUs). (1) Three ranks stay at
# 1.01-1.03x NCCL at 16-64 MiB: with the engine now running beside the
# producer, the pushed two-shot slices (part_ucx_coll_gpu_twoshot_push 1,
# 1.05-1.08x slower before) against the pulled default, np 3 and 4, two
# rounds; (2) every gcoll line of tests/gpu.list, one rank a GPU.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  for np in 3 4; do
    run $np -base-r$r 1024,4096,16384 >> $OUT/x-push34.csv
    run $np -push-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_twoshot_push 1 >> $OUT/x-push34.csv
  done
done
echo "push at $(el) s"
awk '!/^#/ && NF && $1 ~ /gcoll/' tests/gpu.list > /tmp/gcoll.list
TEST_LIST=/tmp/gcoll.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout $((540 - $(el))) tools/test.sh --gpu > $OUT/gcoll-tests.txt 2>&1
echo "gcoll: $(tr -d '\000' < $OUT/gcoll-tests.txt | tail -n 1) at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x4/s15/call-a.sh 2>&1 | tail; tar -cJf $O/a.tar.xz -C /tmp o
