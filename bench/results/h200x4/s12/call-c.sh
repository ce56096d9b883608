#!/usr/bin/env bash
# Next session, a further call (four GPUs), after s12a's links probe says
# whether bytes in flight bound a kernel's loads from a peer. The engine's
# kernels are held to 64 registers (two blocks an SM, room for an
# application block beside them); at 16-64 MiB across GPUs the pulled
# two-shot keeps 32 bytes a thread in flight at np 2 and 16 a rank at np 3-4
# (gcoll_reduce_at_once). Timing-only plugins, swapped, two rounds:
#   base   the built plugin
#   wide   __launch_bounds__(512, 1): up to 128 registers, nothing else
#   wide2  that, and the at-once loads two chunks a thread (np 3-4),
#          which at 64 registers spilled 200-350 bytes (ptxas)
# np 2-4 across GPUs at 1, 4, 16 and 64 MiB; then a trace of np 3 at 768
# KiB and 1 MiB.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
plugin=$call_dir/part-ucx/lib/openmpi/part_ucx_device.so
nv="/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC"
cp "$plugin" /tmp/base.so
for v in wide wide2; do
  cp -r . /tmp/$v && (cd /tmp/$v && patch -p1 < .bundle/exp/$v.diff > /dev/null)
  $nv -I/tmp/$v -o /tmp/$v.so /tmp/$v/part_ucx_device.cu > $OUT/build-$v.txt 2>&1 &
done
wait
ls /tmp/wide.so /tmp/wide2.so || exit 1
echo "built at $(el) s"
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  for np in 2 3 4; do
    for v in base wide wide2; do cp /tmp/$v.so "$plugin"; run $np -$v-r$r 256,1024,4096,16384 >> $OUT/x-wide.csv; done
  done
  echo "round $r at $(el) s"
done
cp /tmp/base.so "$plugin"
# where np 3's 768 KiB-1 MiB epochs (flagged bulk push, 1.23-1.26x NCCL on
# four H200) spend their time
bash bench/trace/run.sh /tmp/tnp3 3 192,256 > $OUT/trace-np3.txt 2>&1
echo "done at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s12c.sh $OUT/call.sh; bash .bundle/exp/s12c.sh 2>&1 | tail; tar -cJf $O/c.tar.xz -C /tmp o
