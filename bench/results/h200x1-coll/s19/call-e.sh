#!/usr/bin/env bash
# Session 19, call E: one H200, every rank under CUDA MPS, bundle of 996fbad
# (tests of this tree). The g_coll -K lines once more (call D: MPI_Start
# reports on MPI_COMM_WORLD in Open MPI) and the missing-mark sanitizer
# line; kernel + allreduce, stream-ordered rows, default vs the marks
# (after mode + BENCH_STREAM_KERNELS) at 1-16384 blocks, np 2 and 4, two
# rounds, with the limits; then two timing experiments on the marks'
# block level (marks-sync: the block's barrier before the leader's mark;
# marks-allstore: every thread marks), np 2 and 4, 1024-16384 blocks.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
D=bench/results/h200x1-coll/s19
mps_start
grep -E '^(gpu-gcoll-stream-marks|gpu-gcoll-stream-kernels)' tests/gpu.list > /tmp/e.list
TEST_LIST=/tmp/e.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 150 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tail -1 $OUT/tests.txt | tr -d '\000')"
for f in /tmp/tb/*.log; do grep -aq 'FAIL\|failed\|abort' $f && { echo "== $f"; tr -d '\000' < $f | head -40; }; done > $OUT/failed-logs.txt 2>&1
k=san-gcoll-stream-marks
SANITIZE_TOOLS="racecheck memcheck" TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 timeout 60 tools/sanitize-gpu.sh $OUT/sanitize-$k.txt -k $k > /dev/null 2>&1
echo "sanitizer $k at $(el) s: $(tr -d '\000' < $OUT/sanitize-$k.txt | grep -aE '^(racecheck|memcheck):.*passed' | tr '\n' ' ')"
for v in sync allstore; do
  mkdir -p /tmp/x-$v && cp mpix_part_device.h /tmp/x-$v/ && (cd /tmp/x-$v && patch -p1 < "$OLDPWD/$D/marks-$v-experiment.diff") > /dev/null
  bench_cuda_build bench/b_coll_gpu.cu /tmp/$v -include /tmp/x-$v/mpix_part_device.h $nccl -- $ncclibs > $OUT/build-$v.txt 2>&1 || echo "$v did not build"
done
export BENCH_NO_TRADITIONAL=1
G=1,16,64,256,1024,4096,16384
for r in 1 2; do
  for np in 2 4; do
    [ $(el) -lt 420 ] || break
    run $np -base-r$r $G >> $OUT/mps-marks.csv
    BENCH_STREAM_KERNELS=1 run $np -marks-r$r $G --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS >> $OUT/mps-marks.csv
  done
  echo "round $r at $(el) s"
done
[ $(el) -lt 470 ] && limits $G 2 4 >> $OUT/mps-limits.csv
echo "limits at $(el) s"
export BENCH_STREAM_KERNELS=1
for np in 2 4; do
  for v in sync allstore; do
    [ $(el) -lt 540 ] || break
    BENCH_LABEL=-$v timeout 60 mpirun -np $np --bind-to none --oversubscribe --mca part ucx --mca part_ucx_coll_gpu_after_bytes 1 \
      -x BENCH_LABEL -x BENCH_NO_TRADITIONAL -x BENCH_STREAM_KERNELS /tmp/$v allreduce 1024,4096,16384 2>&1 | tr -d '\000' | grep -a '^gallreduce' >> $OUT/mps-exp.csv
  done
done
echo "experiments at $(el) s"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s19/call-e.sh 2>&1 | tail; tar -cJf $O/e.tar.xz -C /tmp o
