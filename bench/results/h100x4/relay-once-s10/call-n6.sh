#!/usr/bin/env bash
# Session 2026-11-28, call n6 (4 GPUs), same bundle as n5: every gcoll line
# of tests/gpu.list across GPUs (the relay is on by default), the gcoll
# lines of tests/sanitize.list under compute-sanitizer across GPUs, and the
# engine trace at np 4, 1 MiB, relay on and off.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
awk '!/^#/ && NF && $1 ~ /gcoll/' tests/gpu.list > /tmp/gcoll.list
TEST_LIST=/tmp/gcoll.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 260 tools/test.sh --gpu > $OUT/gcoll-tests.txt 2>&1
echo "gcoll tests: $(tr -d '\000' < $OUT/gcoll-tests.txt | tail -n 1) at $(el) s"
M=--mca
bash bench/trace/run.sh /tmp/trelay4 4 256 > $OUT/trace-relay-np4.txt 2>&1
bash bench/trace/run.sh /tmp/tsys4 4 256 $M part_ucx_coll_gpu_relay_ready 0 > $OUT/trace-sys-np4.txt 2>&1
echo "traces at $(el) s"
tar -cJf $OUT/traces.tar.xz --exclude='*.so' --exclude=b_coll_gpu -C /tmp trelay4 tsys4 2>/dev/null
awk '!/^#/ && NF && $1 ~ /gcoll-(pull|twoshot-np|twoshot-tail|alltoall)|gcoll-graph-host/' tests/sanitize.list > /tmp/san.list
for tool in memcheck racecheck synccheck; do
  [ $(el) -lt 480 ] || break
  opts="--tool $tool --error-exitcode 9"
  [ $tool = memcheck ] && opts="$opts --report-api-errors no"
  TEST_LIST=/tmp/san.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=90 \
    TEST_WRAPPER="compute-sanitizer $opts" timeout $((570 - $(el))) \
    tools/test.sh --gpu > $OUT/san-$tool.txt 2>&1
  echo "sanitizer $tool: $(tr -d '\000' < $OUT/san-$tool.txt | tail -n 1) at $(el) s"
done
