#!/usr/bin/env bash
# Session 2026-11-28, call n7 (4 GPUs), bundle of the new defaults (relay up
# to 2 MiB, loads at once across GPUs at np 3-4): every gcoll line of
# tests/gpu.list across GPUs; the defaults against relay 0 and NCCL at np
# 2-4; GPU 0 under MPS np 2 and 4 (issue 22's rows).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
awk '!/^#/ && NF && $1 ~ /gcoll/' tests/gpu.list > /tmp/gcoll.list
TEST_LIST=/tmp/gcoll.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 250 tools/test.sh --gpu > $OUT/gcoll-tests.txt 2>&1
echo "gcoll tests: $(tr -d '\000' < $OUT/gcoll-tests.txt | tail -n 1) at $(el) s"
M=--mca; R0="$M part_ucx_coll_gpu_relay_bytes 0"
G=1,16,64,192,256,512,1024,4096,16384
export BENCH_NO_TRADITIONAL=1
for np in 2 3 4; do run $np -norelay $G $R0 >> $OUT/x-norelay.csv; done
unset BENCH_NO_TRADITIONAL
for np in 2 3 4; do run $np "" $G >> $OUT/x-defaults.csv; done
echo "bench at $(el) s"
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
export BENCH_NO_TRADITIONAL=1
for np in 2 4; do run $np -mps 1,16,64,1024,4096,16384 >> $OUT/mps-defaults.csv; done
echo quit | nvidia-cuda-mps-control
echo "done at $(el) s"
