#!/usr/bin/env bash
# Session 20, call A (four H200), bundle of 818df69 or later.
# (1) Across GPUs, one rank a GPU: the stream-ordered marks' lines, now
#     also with part_ucx_coll_gpu_span_after_bytes (the kernel after the
#     producers with no gate; the unit's block publishes the marks).
# (2) Issue 23's gap at 64-256 blocks: kernel + allreduce np 2-4 across
#     GPUs, the defaults beside NCCL (unlabelled rows) against the key
#     mpix_stream_kernels with span_after_bytes covering every grid (-sa),
#     two rounds.
# (3) GPU 0 under MPS: the same lines on one GPU, the DL example's stream
#     lines, and session 19's next-s20 measurements as time allows.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
nvidia-smi topo -m > $OUT/topo.txt 2>&1
grep -E '^(gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|gpu-gcoll-stream-kernels)' tests/gpu.list > /tmp/m.list
TEST_LIST=/tmp/m.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 170 tools/test.sh --gpu > $OUT/x-tests.txt 2>&1
echo "x tests: $(tr -d '\000' < $OUT/x-tests.txt | tail -n 1) at $(el) s"
G=1,16,64,192,256,512,1024,4096,16384
SA='--mca part_ucx_coll_gpu_span_after_bytes 1073741824'
for r in 1 2; do
  for np in 2 3 4; do
    [ $(el) -lt 420 ] || break
    [ $r = 1 ] && run $np "" $G >> $OUT/x-defaults.csv
    BENCH_NO_TRADITIONAL=1 BENCH_STREAM_KERNELS=1 run $np -sa-r$r $G $SA -x BENCH_STREAM_KERNELS >> $OUT/x-sa.csv
    echo "np $np round $r at $(el) s"
  done
done
mps_start
grep -E '^(example-dl-stream|gpu-stream-gcoll-marks|gpu-gcoll-stream-marks|gpu-gcoll-stream-kernels)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 timeout $((575 - $(el))) tools/test.sh --gpu > $OUT/mps-tests.txt 2>&1
echo "mps tests: $(tr -d '\000' < $OUT/mps-tests.txt | tail -n 1) at $(el) s"
mps_stop
mkdir -p $OUT/logs && cp /tmp/tb/*.log $OUT/logs/ 2>/dev/null
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x4/s20/call-a.sh 2>&1 | tail -20; tar -cJf $O/a.tar.xz -C /tmp o
