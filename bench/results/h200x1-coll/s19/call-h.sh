#!/usr/bin/env bash
# Session 19, call H: one H200, every rank under CUDA MPS, bundle of
# d6bcc11 (the plugin variant built from this tree). With the marks the
# producers take 1.5-2x the kernel alone (call F's none experiment, call
# G): does a gate that polls its peers' words, beside the producers, slow
# them? The gate's wait with a 2 us nap (gate-nap2us-experiment.diff)
# against the plugin as built, marks mode, np 2 and 4, two rounds each,
# alternated.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
variants gate-nap2us
export BENCH_NO_TRADITIONAL=1 BENCH_STREAM_KERNELS=1
for r in 1 2; do
  for np in 2 4; do
    [ $(el) -lt 300 ] || break
    for v in base gate-nap2us; do
      use $v
      run $np -$v-r$r 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS >> $OUT/mps-nap.csv
    done
  done
done
use base
echo "done at $(el) s"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s19/call-h.sh 2>&1 | tail; tar -cJf $O/h.tar.xz -C /tmp o
