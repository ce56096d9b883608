#!/usr/bin/env bash
# Session 11, call B (four GPUs). The bundle has the deferred done words
# computed by thread 32 after the barrier ("late"); base.so is the plugin
# without it (the patch reversed). (1) base against late, np 2-4 across
# GPUs at 1-64 blocks, two rounds; (2) the defaults against NCCL, np 2-4;
# (3) GPU 0 under MPS: base against late, np 2 and 4, two rounds, and the
# defaults with the limits; (4) the gcoll lines the last calls did not
# reach, and the relay-differ line. Everything comes back in one tar.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
plugin=$call_dir/part-ucx/lib/openmpi/part_ucx_device.so
cp "$plugin" /tmp/late.so
cp -r . /tmp/base && (cd /tmp/base && patch -R -p1 < .bundle/exp/late.diff > /dev/null) &&
  /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I/tmp/base \
    -o /tmp/base.so /tmp/base/part_ucx_device.cu > $OUT/build-base.txt 2>&1 || { echo "base.so failed"; exit 1; }
echo "built at $(el) s"
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  for np in 2 3 4; do
    cp /tmp/base.so "$plugin"; run $np -base-r$r 1,4,16,64 >> $OUT/x-late.csv
    cp /tmp/late.so "$plugin"; run $np -late-r$r 1,4,16,64 >> $OUT/x-late.csv
  done
  echo "round $r at $(el) s"
done
cp /tmp/late.so "$plugin"
unset BENCH_NO_TRADITIONAL
for np in 2 3 4; do run $np "" 1,4,16,64,192,256,512,1024,4096,16384 >> $OUT/x-defaults.csv; done
echo "defaults at $(el) s"
grep -E '^gpu-(stream-(gcoll-graph-ll128-np4|gcoll-graph-ll128-twoshot-np4|gcoll-graph-4-np3|graph-start-copy-gcoll|joined-gcoll-np3)|gcoll-relay-differ-np3) ' tests/gpu.list > /tmp/left.list
TEST_LIST=/tmp/left.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 170 tools/test.sh --gpu > $OUT/left-tests.txt 2>&1
echo "left tests: $(tr -d '\000' < $OUT/left-tests.txt | tail -n 1) at $(el) s"
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  for np in 2 4; do
    cp /tmp/base.so "$plugin"; run $np -base-r$r 1,16,64 >> $OUT/mps-late.csv
    cp /tmp/late.so "$plugin"; run $np -late-r$r 1,16,64 >> $OUT/mps-late.csv
  done
done
cp /tmp/late.so "$plugin"
echo "mps a/b at $(el) s"
unset BENCH_NO_TRADITIONAL
for np in 2 4; do [ $(el) -lt 520 ] && run $np -mps 1,16,64,1024,4096,16384 >> $OUT/mps-defaults.csv; done
echo quit | nvidia-cuda-mps-control
echo "done at $(el) s"
