#!/usr/bin/env bash
# Session 2026-11-28, call n5 (4 GPUs), bundle of the relayed readiness
# (part_ucx_coll_gpu_relay_ready, default 1). (1) relay 1 against 0 in one
# install, across GPUs, where the pulled kinds serve (np 2 from 4 MiB, np 3
# from 2 MiB, np 4 from 768 KiB), two rounds; NCCL rows beside. (2) the
# plugin with GCOLL_LOADS_AT_ONCE against the one as built, on GPU 0 under
# MPS (np 2, 4) and across GPUs (np 3, 4, relay on).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
plugin=$call_dir/part-ucx/lib/openmpi/part_ucx_device.so
cp "$plugin" /tmp/base.so
( /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I. \
    -DGCOLL_LOADS_AT_ONCE=1 -o /tmp/once.so part_ucx_device.cu >> $OUT/build-once.txt 2>&1 ) &
export BENCH_NO_TRADITIONAL=1
M=--mca; R0="$M part_ucx_coll_gpu_relay_ready 0"
G2=1024,4096,16384 G3=512,1024,4096,16384 G4=192,256,1024,4096,16384
for r in 1 2; do
  run 2 -relay-r$r $G2 >> $OUT/x-relay.csv; run 2 -sys-r$r $G2 $R0 >> $OUT/x-relay.csv
  run 3 -relay-r$r $G3 >> $OUT/x-relay.csv; run 3 -sys-r$r $G3 $R0 >> $OUT/x-relay.csv
  run 4 -relay-r$r $G4 >> $OUT/x-relay.csv; run 4 -sys-r$r $G4 $R0 >> $OUT/x-relay.csv
  echo "relay round $r at $(el) s"
done
unset BENCH_NO_TRADITIONAL
run 2 "" $G2 >> $OUT/x-nccl.csv; run 3 "" $G3 >> $OUT/x-nccl.csv; run 4 "" $G4 >> $OUT/x-nccl.csv
echo "nccl at $(el) s"
wait
[ -s /tmp/once.so ] || { echo "once.so failed"; exit 1; }
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  for np in 3 4; do
    cp /tmp/base.so "$plugin"; run $np -base-r$r 256,1024,4096 >> $OUT/x-once.csv
    cp /tmp/once.so "$plugin"; run $np -once-r$r 256,1024,4096 >> $OUT/x-once.csv
  done
done
echo "once across at $(el) s"
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
for r in 1 2; do
  for np in 2 4; do
    cp /tmp/base.so "$plugin"; run $np -base-r$r 16,64,1024,4096,16384 >> $OUT/mps-once.csv
    cp /tmp/once.so "$plugin"; run $np -once-r$r 16,64,1024,4096,16384 >> $OUT/mps-once.csv
  done
  echo "mps once round $r at $(el) s"
done
cp /tmp/base.so "$plugin"
echo quit | nvidia-cuda-mps-control
echo "done at $(el) s"
