#!/usr/bin/env bash
# Session 13, call B (four GPUs), after 6ce9636 (done words from the last
# warp down; two ranks on two GPUs push large two-shot slices): (1) the
# whole GPU suite as on one GPU under MPS, its lines dealt round four
# shards, shard i with every rank on GPU i (tools/device-run.sh
# DEVICE_SHARD_GPUS=1, its first run); (2) compute-sanitizer over the
# gcoll lines of sanitize.list that push or pull two-shot slices, one rank
# a GPU (across GPUs: the pushed slices of two ranks).
set -u
DEVICE_SHARDS=4 DEVICE_SHARD_GPUS=1 DEVICE_MPS=1 DEVICE_HANGDUMP=0 TEST_TIMEOUT=90 timeout 420 \
  tools/device-run.sh .bundle/part-ucx.tar.xz $OUT/suite > $OUT/suite.log 2>&1
echo "suite: $(tr -d '\000' < $OUT/suite/gpu-tests.txt | tail -n 1) at $SECONDS s"
. /tmp/part-ucx-node/part-ucx/env.sh
export PART_UCX_PREFIX=/tmp/part-ucx-node/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache NCCL_NVLS_ENABLE=0
awk '!/^#/ && NF && $1 ~ /^san-gcoll-twoshot/' tests/sanitize.list > /tmp/san.list
cp /tmp/san.list $OUT/san-list.txt
for tool in memcheck racecheck synccheck; do
  opts="--tool $tool --error-exitcode 9"; [ $tool = memcheck ] && opts="$opts --report-api-errors no"
  [ $SECONDS -lt 520 ] && TEST_LIST=/tmp/san.list TEST_BUILD_DIR=/tmp/part-ucx-node/tests-0 TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 \
    TEST_WRAPPER="compute-sanitizer $opts" timeout $((580 - SECONDS)) tools/test.sh --gpu > $OUT/san-$tool.txt 2>&1
  echo "san $tool: $(tr -d '\000' < $OUT/san-$tool.txt 2>/dev/null | tail -n 1) at $SECONDS s"
done
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s13b.sh $OUT/call.sh; bash .bundle/exp/s13b.sh 2>&1 | tail; tar -cJf $O/b.tar.xz -C /tmp o
