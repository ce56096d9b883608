#!/usr/bin/env bash
# Next session's first call (4 GPUs), bundle .bundle/part-ucx.tar.xz
# (6437af0's component; the default build's plugin SASS is unchanged
# through 0d39eb1). (1) GCOLL_LOADS_AT_ONCE (0d39eb1, never run on a GPU):
# the plugin built here with -DGCOLL_LOADS_AT_ONCE=1 against the one as
# built, swapped under one install, np 3 and 4, 256 KiB-64 MiB, two
# rounds; then every gcoll line of three or four ranks with it. (2) The
# pushed two-shot (producers release at GPU scope) against the pulled one
# at np 3-4, 512 KiB-2 MiB (session 9's q7, never run).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
plugin=$call_dir/part-ucx/lib/openmpi/part_ucx_device.so
cp "$plugin" /tmp/base.so
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I. \
    -DGCOLL_LOADS_AT_ONCE=1 -o /tmp/once.so part_ucx_device.cu >> $OUT/build.txt 2>&1 || { echo "once.so failed"; exit 1; }
echo "built at $(el) s"
export BENCH_NO_TRADITIONAL=1
G=64,256,1024,4096,16384
for r in 1 2; do
  for np in 3 4; do
    cp /tmp/base.so "$plugin"; run $np -base-r$r $G >> $OUT/x-once.csv
    cp /tmp/once.so "$plugin"; run $np -once-r$r $G >> $OUT/x-once.csv
  done
  echo "once round $r at $(el) s"
done
awk '!/^#/ && NF && $1 ~ /gcoll/ && ($2==3 || $2==4)' tests/gpu.list > /tmp/once.list
cp /tmp/once.so "$plugin"
TEST_LIST=/tmp/once.list TEST_BUILD_DIR=/tmp/tbo TEST_TIMEOUT=60 timeout 170 tools/test.sh --gpu > $OUT/once-tests.txt 2>&1
echo "once tests: $(tr -d '\000' < $OUT/once-tests.txt | tail -n 1) at $(el) s"
cp /tmp/base.so "$plugin"
M=--mca; T="$M part_ucx_coll_gpu_twoshot_bytes 262144 $M part_ucx_coll_gpu_bulk_bytes 0"
for r in 1; do
  for np in 3 4; do
    run $np -def-r$r 128,256,512 >> $OUT/x-tspush.csv
    run $np -pull-r$r 128,256,512 $T >> $OUT/x-tspush.csv
    run $np -push-r$r 128,256,512 $T $M part_ucx_coll_gpu_twoshot_push 1 >> $OUT/x-tspush.csv
  done
  echo "push round $r at $(el) s"
done
unset BENCH_NO_TRADITIONAL
[ $(el) -lt 520 ] && run 4 "" 64,256,1024 >> $OUT/x-nccl.csv
echo "done at $(el) s"
