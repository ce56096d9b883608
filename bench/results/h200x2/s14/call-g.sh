#!/usr/bin/env bash
# Session 14, call G (two GPUs; four were no longer lent), bundle of
# 43e799a (0c8bdaf's code: the engine at the greatest priority across
# GPUs by default). Every gcoll line of tests/gpu.list under one CUDA MPS
# daemon for both GPUs: np 2 one rank a GPU, np 3-5 ranks sharing them
# (across GPUs, so at the greatest priority, with the block cap of ranks
# that share a GPU).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
awk '!/^#/ && NF && $1 ~ /gcoll/' tests/gpu.list > /tmp/gcoll.list
TEST_LIST=/tmp/gcoll.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout $((470 - $(el))) tools/test.sh --gpu > $OUT/gcoll-tests.txt 2>&1
echo "gcoll: $(tr -d '\000' < $OUT/gcoll-tests.txt | tail -n 1) at $(el) s"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s15g.sh $OUT/call.sh; bash .bundle/exp/s15g.sh 2>&1 | tail; tar -cJf $O/g.tar.xz -C /tmp o
