#!/usr/bin/env bash
# Session 11, call D (four GPUs), bundle of 8110c57. What the move-to-end
# tail costs at 16-256 blocks (trace np 2 at 64 blocks: moved 6.1 us, told
# + done 8.0, end 9.7): plugins swapped under one install, two rounds:
#   base     the built plugin
#   nofence  EXPERIMENT ONLY (incorrect): no release before the done words
#   defer64  -DGCOLL_DEFER_BLOCKS=64: the done words at the block's end up
#            to 64 engine blocks (16 now)
# np 2-4 across GPUs and np 4 on GPU 0 under MPS; traces np 2 at 64 blocks,
# base and nofence.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
plugin=$call_dir/part-ucx/lib/openmpi/part_ucx_device.so
nv="/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC"
cp "$plugin" /tmp/base.so
cp -r . /tmp/nofence && (cd /tmp/nofence && patch -p1 < .bundle/exp/nofence.diff > /dev/null)
$nv -I/tmp/nofence -o /tmp/nofence.so /tmp/nofence/part_ucx_device.cu > $OUT/build-nofence.txt 2>&1 &
$nv -DGCOLL_DEFER_BLOCKS=64 -I. -o /tmp/defer64.so part_ucx_device.cu > $OUT/build-defer64.txt 2>&1 &
wait
ls /tmp/nofence.so /tmp/defer64.so || exit 1
echo "built at $(el) s"
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  for np in 2 3 4; do
    for v in base nofence defer64; do cp /tmp/$v.so "$plugin"; run $np -$v-r$r 16,64,192,256 >> $OUT/x-tail.csv; done
  done
  echo "round $r at $(el) s"
done
cp /tmp/base.so "$plugin"
bash bench/trace/run.sh /tmp/tbase 2 64 > $OUT/trace-base-np2.txt 2>&1
(cd /tmp/nofence && bash bench/trace/run.sh /tmp/tnofence 2 64 > $OUT/trace-nofence-np2.txt 2>&1)
echo "traces at $(el) s"
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
for r in 1 2; do
  for v in base nofence defer64; do cp /tmp/$v.so "$plugin"; run 4 -$v-r$r 16,64 >> $OUT/mps-tail.csv; done
done
cp /tmp/base.so "$plugin"
echo quit | nvidia-cuda-mps-control
echo "done at $(el) s"
