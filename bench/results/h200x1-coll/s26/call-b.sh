#!/usr/bin/env bash
# Session 26, call B (one H200, every rank under CUDA MPS), bundle of
# bf2331b's install (no library change since) and this checkout's bench:
# bench/run-coll.sh's GPU rows side by side in one run (BENCH_COLL_HOST=0):
# kernel + allreduce at 1-16384 blocks, np 2 and 4, traditional, the GPU
# engine host-started / stream-ordered / graphs, the same stream-ordered
# with the engine after the producers (_after), the schedule engine, and
# the two limits; results.csv, tables.txt, allreduce-gpu.png in coll/.
# run: bash bench/results/h200x1-coll/s26/call-b.sh (carry .bundle)
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
BENCH_COLL_HOST=0 BENCH_TIMEOUT=200 timeout -s KILL 570 bash bench/run-coll.sh $OUT/coll > $OUT/run-coll.log 2>&1
echo "run-coll rc $? at $(el) s"
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
