#!/usr/bin/env bash
# Session 19, call F: one H200, every rank under CUDA MPS, bundle of the
# commit before this script's. Every GPU-engine line (gpu-gcoll*,
# gpu-stream-gcoll*: the marks, after mode, stream-ordered collectives,
# bcast's fix) and every device misuse line, then a timing experiment:
# with the marks, how long the epoch is where the producers mark nothing
# (marks-none header, gate-nocheck plugin): what the marks still cost
# against the structure of after mode.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
D=bench/results/h200x1-coll/s19
mps_start
grep -E '^(gpu-gcoll|gpu-stream-gcoll|gpu-misuse)' tests/gpu.list > /tmp/f.list
TEST_LIST=/tmp/f.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 400 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tail -1 $OUT/tests.txt | tr -d '\000')"
for f in $(tr -d '\000' < $OUT/tests.txt | grep -aE '^(FAIL|TIME)' | sed 's/.*log: //'); do echo "== $f"; tr -d '\000' < $f | grep -v cuMemHost | head -40; done > $OUT/failed-logs.txt 2>&1
mkdir -p /tmp/x-none && cp mpix_part_device.h /tmp/x-none/ && (cd /tmp/x-none && patch -p1 < "$OLDPWD/$D/marks-none-experiment.diff") > /dev/null
bench_cuda_build bench/b_coll_gpu.cu /tmp/none -include /tmp/x-none/mpix_part_device.h $nccl -- $ncclibs > $OUT/build-none.txt 2>&1 || echo "none did not build"
variants gate-nocheck
export BENCH_NO_TRADITIONAL=1 BENCH_STREAM_KERNELS=1
for np in 2 4; do
  [ $(el) -lt 540 ] || break
  run $np -marks 1024,4096,16384 --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS >> $OUT/mps-none.csv
  use gate-nocheck
  BENCH_LABEL=-none timeout 60 mpirun -np $np --bind-to none --oversubscribe --mca part ucx --mca part_ucx_coll_gpu_after_bytes 1 \
    -x BENCH_LABEL -x BENCH_NO_TRADITIONAL -x BENCH_STREAM_KERNELS /tmp/none allreduce 1024,4096,16384 2>&1 | tr -d '\000' | grep -a '^gallreduce' >> $OUT/mps-none.csv
  use base
done
echo "experiment at $(el) s"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s19/call-f.sh 2>&1 | tail; tar -cJf $O/f.tar.xz -C /tmp o
