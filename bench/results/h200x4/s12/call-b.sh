#!/usr/bin/env bash
# Next session, a second call (one GPU is enough: nvidia-h200, or GPU 0 of
# a larger kind): issue 22's benchmark as the issue states it, on one H200
# under CUDA MPS at the current engine: kernel + allreduce vs grid, np 2
# and 4, traditional / host engine / GPU engine host-started and
# stream-ordered / the two limits (bench/run-coll.sh, GPU rows only). The
# last such run is one H100's (defaults-6437af0: 1.5-2.0x the kernel +
# copy limit at 4-64 MiB).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
BENCH_COLL_HOST=0 BENCH_TIMEOUT=200 timeout 540 bash bench/run-coll.sh $OUT/coll > $OUT/run-coll.txt 2>&1
echo quit | nvidia-cuda-mps-control
echo "done at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s12b.sh $OUT/call.sh; bash .bundle/exp/s12b.sh 2>&1 | tail; tar -cJf $O/b.tar.xz -C /tmp o
