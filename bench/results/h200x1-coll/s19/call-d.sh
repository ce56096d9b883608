#!/usr/bin/env bash
# Session 19, call D: one H200, every rank under CUDA MPS, bundle of 996fbad
# (tests of 36b9d1c's tree). The g_coll -K lines again (call C: their
# MPI_Start check reported on MPI_COMM_SELF, which was fatal) and the
# missing-mark sanitizer line; then where a 16 / 64 MiB epoch of two ranks
# goes with the marks (bench/trace/run.sh, after mode, BENCH_STREAM_KERNELS):
# the marks leave the epoch at 1.5-1.8x the limit on two ranks, 1.26-1.38x
# on four.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E '^(gpu-gcoll-stream-marks|gpu-gcoll-stream-kernels)' tests/gpu.list > /tmp/d.list
TEST_LIST=/tmp/d.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 150 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tail -1 $OUT/tests.txt | tr -d '\000')"
for f in /tmp/tb/*.log; do grep -aq 'FAIL\|failed\|abort' $f && { echo "== $f"; tr -d '\000' < $f | head -30; }; done > $OUT/failed-logs.txt 2>&1
k=san-gcoll-stream-marks
SANITIZE_TOOLS="racecheck memcheck" TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 timeout 60 tools/sanitize-gpu.sh $OUT/sanitize-$k.txt -k $k > /dev/null 2>&1
echo "sanitizer $k at $(el) s: $(grep -aE '^(racecheck|memcheck):.*passed' $OUT/sanitize-$k.txt | tr '\n' ' ')"
export BENCH_STREAM_KERNELS=1
timeout 200 bench/trace/run.sh /tmp/tr 2 4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS > $OUT/trace.log 2>&1
cp -r /tmp/tr $OUT/trace 2>/dev/null; rm -f $OUT/trace/b_coll_gpu
echo "trace at $(el) s"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s19/call-d.sh 2>&1 | tail; tar -cJf $O/d.tar.xz -C /tmp o
