#!/usr/bin/env bash
# Session 14, call E (four GPUs), the bundle with part_ucx_coll_gpu_priority
# (default 1: the engine at the greatest priority across GPUs) and
# b_coll_gpu's graphs instantiated with per-node priorities. (1) The
# defaults against NCCL, np 2-4 across GPUs, 1-16384 blocks; (2) priority
# 0 against the default at 1024-16384 blocks, no NCCL rows; (3) the new
# test lines across GPUs and on GPU 0 under MPS, the stream-ordered gcoll
# lines across GPUs, the new sanitizer line under memcheck.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
for np in 2 3 4; do run $np "" 1,16,64,192,256,512,1024,4096,16384 >> $OUT/x-defaults.csv; done
echo "defaults at $(el) s"
export BENCH_NO_TRADITIONAL=1
for np in 2 3 4; do
  run $np -prio1-r1 1024,4096,16384 >> $OUT/x-prio-ab.csv
  run $np -prio0-r1 1024,4096,16384 --mca part_ucx_coll_gpu_priority 0 >> $OUT/x-prio-ab.csv
done
echo "a/b at $(el) s"
grep -E 'priority' tests/gpu.list > /tmp/new.list
grep -E '^gpu-stream-gcoll' tests/gpu.list | grep -v priority >> /tmp/new.list
TEST_LIST=/tmp/new.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout $((420 - $(el))) tools/test.sh --gpu > $OUT/tests-x.txt 2>&1
echo "tests across GPUs: $(tr -d '\000' < $OUT/tests-x.txt | tail -n 1) at $(el) s"
(
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E 'priority' tests/gpu.list > /tmp/new1.list
TEST_LIST=/tmp/new1.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 timeout $((480 - $(el))) tools/test.sh --gpu > $OUT/tests-mps.txt 2>&1
echo "tests on GPU 0: $(tr -d '\000' < $OUT/tests-mps.txt | tail -n 1) at $(el) s"
echo quit | nvidia-cuda-mps-control
)
TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 SANITIZE_TOOLS=memcheck timeout $((560 - $(el))) bash tools/sanitize-gpu.sh $OUT/sanitize.txt -k san-stream-gcoll-graph-priority > /dev/null 2>&1
echo "sanitize: $(grep -a 'passed' $OUT/sanitize.txt | tail -1) at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s15e.sh $OUT/call.sh; bash .bundle/exp/s15e.sh 2>&1 | tail; tar -cJf $O/e.tar.xz -C /tmp o
