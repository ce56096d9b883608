#!/usr/bin/env bash
# Next session's first call (four GPUs; rebuild the bundle first). Session
# 11's traces at 64 blocks, np 2 (bench/results/h200x4/late-s11/) show
# 1.5-1.8 us between a unit's `moved` and `told + done` stamps, with the
# done words' fence removed too (it cost 0.3 us). Between the two, for the
# LL128 bulk push, thread 32 alone stores the done word (host memory) and
# the block meets at a barrier. Suspect: that store waits behind its warp's
# LL128 stores over NVLink. Plugins swapped under one install, two rounds:
#   base      the built plugin
#   nodone    EXPERIMENT ONLY (incorrect): neither fence nor done word
#   lastwarp  the done words from the last warp down (threads 511-480 first), which
#             pushes no lines of units up to 7 KiB; correct
# np 2-4 across GPUs at 16-256 blocks; np 4 on GPU 0 under MPS; traces np
# 2 at 64 blocks of nodone and lastwarp. Also: the pushed two-shot
# (part_ucx_coll_gpu_twoshot_push 1) against the pulled one at np 2, 16
# and 64 MiB (4-5% faster on four H100 at a7ebaae, twoshot-push-p4/; off
# by default for np 3-4 and one GPU, where it was slower): a default for
# two ranks across GPUs if it holds. And bench/run-links.sh (loads from a
# peer against stores into it, 64 MiB both ways, 8-132 blocks, 1-4 chunks
# a thread in flight): what a store-based ring could reach against the
# pulled two-shot. Everything back in one tar.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
plugin=$call_dir/part-ucx/lib/openmpi/part_ucx_device.so
nv="/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC"
cp "$plugin" /tmp/base.so
for v in nodone lastwarp; do
  cp -r . /tmp/$v && (cd /tmp/$v && patch -p1 < .bundle/exp/$v.diff > /dev/null)
  $nv -I/tmp/$v -o /tmp/$v.so /tmp/$v/part_ucx_device.cu > $OUT/build-$v.txt 2>&1 &
done
wait
ls /tmp/nodone.so /tmp/lastwarp.so || exit 1
echo "built at $(el) s"
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  for np in 2 3 4; do
    for v in base nodone lastwarp; do cp /tmp/$v.so "$plugin"; run $np -$v-r$r 16,64,192,256 >> $OUT/x-done.csv; done
  done
  echo "round $r at $(el) s"
done
cp /tmp/base.so "$plugin"
for r in 1 2; do
  run 2 -pull-r$r 1024,4096,16384 >> $OUT/x-tspush.csv
  run 2 -push-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_twoshot_push 1 >> $OUT/x-tspush.csv
done
echo "two-shot push at $(el) s"
BENCH_TIMEOUT=120 bash bench/run-links.sh $OUT/links > /dev/null 2>&1; echo "links probe at $(el) s"
for v in nodone lastwarp; do (cd /tmp/$v && bash bench/trace/run.sh /tmp/t$v 2 64 > $OUT/trace-$v-np2.txt 2>&1); done
echo "traces at $(el) s"
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
for r in 1 2; do
  for v in base nodone lastwarp; do cp /tmp/$v.so "$plugin"; run 4 -$v-r$r 16,64 >> $OUT/mps-done.csv; done
done
cp /tmp/base.so "$plugin"
echo quit | nvidia-cuda-mps-control
echo "done at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s12a.sh $OUT/call.sh; bash .bundle/exp/s12a.sh 2>&1 | tail; tar -cJf $O/a.tar.xz -C /tmp o
