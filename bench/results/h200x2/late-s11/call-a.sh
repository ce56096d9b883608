#!/usr/bin/env bash
# Session 11, call A (two H200, nvidia-h200-x2). (1) deferred-after-barrier.diff
# (thread 32 computes the deferred done words from the shared copy after
# the barrier) against the built plugin, np 2 across GPUs at 1-64 blocks,
# two rounds; (2) the defaults against NCCL, np 2, 4 KiB-64 MiB; (3)
# traces at 16 blocks (default, patch, no deferral); (4) GPU 0 under MPS:
# np 2 and 4, base against patch, and the defaults with the limits (issue 22).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
plugin=$call_dir/part-ucx/lib/openmpi/part_ucx_device.so
cp "$plugin" /tmp/base.so
cp -r . /tmp/patched && (cd /tmp/patched && patch -p1 < .bundle/exp/deferred-after-barrier.diff > /dev/null) &&
  /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I/tmp/patched \
    -o /tmp/late.so /tmp/patched/part_ucx_device.cu > $OUT/build-late.txt 2>&1 || { echo "late.so failed"; exit 1; }
echo "built at $(el) s"
export BENCH_NO_TRADITIONAL=1
G=1,4,16,64
for r in 1 2; do
  cp /tmp/base.so "$plugin"; run 2 -base-r$r $G >> $OUT/x-late.csv
  cp /tmp/late.so "$plugin"; run 2 -late-r$r $G >> $OUT/x-late.csv
  echo "round $r at $(el) s"
done
cp /tmp/base.so "$plugin"
unset BENCH_NO_TRADITIONAL
run 2 "" 1,4,16,64,192,256,512,1024,4096,16384 >> $OUT/x-defaults.csv
echo "defaults at $(el) s"
bash bench/trace/run.sh /tmp/tbase2 2 16 > $OUT/trace-base-np2.txt 2>&1
PART_UCX_TRACE_NVCC_FLAGS=-DGCOLL_DEFER_BLOCKS=0 bash bench/trace/run.sh /tmp/tnodefer2 2 16 > $OUT/trace-nodefer-np2.txt 2>&1
(cd /tmp/patched && bash bench/trace/run.sh /tmp/tlate2 2 16 > $OUT/trace-late-np2.txt 2>&1)
echo "traces at $(el) s"
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
export BENCH_NO_TRADITIONAL=1
for np in 2 4; do
  cp /tmp/base.so "$plugin"; run $np -base-r1 1,16,64 >> $OUT/mps-late.csv
  cp /tmp/late.so "$plugin"; run $np -late-r1 1,16,64 >> $OUT/mps-late.csv
done
cp /tmp/base.so "$plugin"
echo "mps a/b at $(el) s"
unset BENCH_NO_TRADITIONAL
for np in 2 4; do [ $(el) -lt 520 ] && run $np -mps 1,16,64,1024,4096,16384 >> $OUT/mps-defaults.csv; done
echo quit | nvidia-cuda-mps-control
tar -cJf $OUT/traces.tar.xz --exclude='*.so' --exclude=b_coll_gpu -C /tmp tbase2 tnodefer2 tlate2 2>/dev/null
echo "done at $(el) s"
