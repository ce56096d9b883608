#!/usr/bin/env bash
# Session 15, call A (nvidia-h200, one H200), bundle of 743512d: (1)
# s14's prepared extra-blocks experiment (next-extra.sh: tests, sanitizers,
# kernel + allreduce at 4-64 MiB under MPS); (2) the kept unit trace of
# d3ec551 (bench/trace/run.sh, np 2, 64 blocks and 64 MiB, MPS), its first
# run on a GPU.
set -u
bash bench/results/h200x4/s14/next-extra.sh 2>&1 | tail -n 8
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
nvidia-cuda-mps-control -d
. /tmp/pb/part-ucx/env.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
timeout 150 bash bench/trace/run.sh $OUT/trace 2 64,16384 --oversubscribe > $OUT/trace.txt 2>&1
echo "trace rc $? ($(ls $OUT/trace/g16384 2>/dev/null | tr '\n' ' '))"
head -c 1500 $OUT/trace/g16384/units.txt 2>/dev/null
echo quit | nvidia-cuda-mps-control
