#!/usr/bin/env bash
# Session 11, call C (four H200, same machine and bundle as call B), as run
# (one line in the call; here split for reading): every gcoll line of
# tests/gpu.list across GPUs, then compute-sanitizer over four gcoll lines.
O=$OUT; export OUT=/tmp/o; mkdir -p $OUT; set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz
awk '!/^#/ && NF && $1 ~ /gcoll/' tests/gpu.list > /tmp/gcoll.list
TEST_LIST=/tmp/gcoll.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 330 tools/test.sh --gpu > $OUT/gcoll-tests.txt 2>&1
echo "gcoll: $(tr -d '\000' < $OUT/gcoll-tests.txt | tail -n 1) at $(el)"
awk '!/^#/ && NF && $1 ~ /gcoll/ && ($2 == 3 || $1 ~ /(np2|-2)$/)' tests/sanitize.list | head -4 > /tmp/san.list
cat /tmp/san.list > $OUT/san-list.txt
for tool in memcheck racecheck synccheck; do
  opts="--tool $tool --error-exitcode 9"; [ $tool = memcheck ] && opts="$opts --report-api-errors no"
  [ $(el) -lt 470 ] && TEST_LIST=/tmp/san.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=90 \
    TEST_WRAPPER="compute-sanitizer $opts" timeout 100 tools/test.sh --gpu > $OUT/san-$tool.txt 2>&1
  echo "san $tool: $(tr -d '\000' < $OUT/san-$tool.txt 2>/dev/null| tail -n 1) at $(el)"
done
tar -cJf $O/c.tar.xz -C /tmp o
