#!/usr/bin/env bash
# Session 13, call A (four GPUs). The bundle has the done words from the
# last warp down and the pushed two-shot for two ranks on two GPUs from 8
# MiB (part_ucx_coll_gpu_span_twoshot_push_bytes). (1) The defaults
# against NCCL, np 2-4 across GPUs, 1-16384 blocks; (2) GPU 0 under MPS,
# np 4 at 16 and 64 blocks: the engine's blocks (4, 8, default 16 there)
# and units (8 KiB, 32 KiB, default 16 KiB), two rounds; (3) every gcoll
# line of tests/gpu.list, one rank a GPU. Everything in one tar.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
for np in 2 3 4; do run $np "" 1,4,16,64,192,256,512,1024,4096,16384 >> $OUT/x-defaults.csv; done
echo "defaults at $(el) s"
(
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  run 4 -base-r$r 16,64 >> $OUT/mps-knobs.csv
  for b in 4 8; do run 4 -b$b-r$r 16,64 --mca part_ucx_coll_gpu_blocks $b >> $OUT/mps-knobs.csv; done
  for u in 8192 32768; do run 4 -u$u-r$r 16,64 --mca part_ucx_coll_gpu_unit_bytes $u >> $OUT/mps-knobs.csv; done
done
echo quit | nvidia-cuda-mps-control
)
echo "mps knobs at $(el) s"
awk '!/^#/ && NF && $1 ~ /gcoll/' tests/gpu.list > /tmp/gcoll.list
TEST_LIST=/tmp/gcoll.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout $((560 - $(el))) tools/test.sh --gpu > $OUT/gcoll-tests.txt 2>&1
echo "gcoll: $(tr -d '\000' < $OUT/gcoll-tests.txt | tail -n 1) at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s13a.sh $OUT/call.sh; bash .bundle/exp/s13a.sh 2>&1 | tail; tar -cJf $O/a.tar.xz -C /tmp o
