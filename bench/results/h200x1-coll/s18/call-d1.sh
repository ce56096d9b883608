#!/usr/bin/env bash
# Session 18, call D1: GPU 0, every rank under CUDA MPS, bundle with the
# collective's MPIX_Pready without a count where a call completes its
# partition alone (mpix_part_mark_alone) and the after mode's cap at the
# SMs over the ranks. Every test line of the GPU engine (g_coll, g_stream
# -R) and of device misuse (g_misuse), and the sanitizer lines of the
# engine.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E '^[a-z].*(-- g_coll|-- g_stream .*-R|-- g_misuse)' tests/gpu.list > /tmp/d1.list
TEST_LIST=/tmp/d1.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 480 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tail -1 $OUT/tests.txt)"
SANITIZE_TOOLS="racecheck memcheck" timeout 150 tools/sanitize-gpu.sh $OUT/sanitize.txt -k gcoll > /dev/null 2>&1
echo "sanitizer at $(el) s: $(grep -c PASS $OUT/sanitize.txt) passed, $(grep -c FAIL $OUT/sanitize.txt) failed"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s18/call-d1.sh 2>&1 | tail; tar -cJf $O/d1.tar.xz -C /tmp o
