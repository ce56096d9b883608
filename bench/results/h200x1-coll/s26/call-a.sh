#!/usr/bin/env bash
# Session 26, call A (one H200, every rank under CUDA MPS; markcost as one
# process, no MPS), bundle of this checkout. Session 25's markcost found a
# producer of 16384 blocks 54.7 us with its mark's partition from a
# division by a runtime count, 42.9 us from a constant one and 38.0 us
# with no mark: the benchmark's own division, not the mark, may be most of
# the marks' cost. b_coll_gpu now finds the partition by a shift
# (BENCH_PARTITION_DIV=1: the division, as before).
# (1) markcost, the session-25 variants and the new ones (shift, ldgsh,
#     pre, ldgpre, umul), and ldgstrg now storing.
# (2) Marks epochs, np 2 and 4, 4/16/64 MiB, two rounds: headers st (as
#     kept) with the division (div) and with the shift (sh); red, strong
#     and stg headers (../s25/*-header.diff) with the shift. Limits before
#     and after.
# (3) The producers' own times in the marks epochs (BENCH_KERNEL_TIME),
#     div against sh, np 2.
# (4) The default mode (engine beside the producers), div against sh, np 2
#     and 4, one round; the small grids (1-64 blocks) with the shift.
# (5) The marks lines on this checkout (79cf753, not yet run on a GPU).
set -u
O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT
"${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -O3 -arch=sm_90 -o /tmp/markcost bench/results/h200x1-coll/s26/markcost.cu &&
  /tmp/markcost > $OUT/markcost.txt 2>&1
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
echo "markcost done, built at $(el) s"
h=$call_dir/part-ucx/include/mpix_part_device.h
cp /tmp/plain /tmp/plain-st && cp $h /tmp/st.h
for v in red stg strong; do
  cp /tmp/st.h $h && patch -s $h < <(sed 's#^--- a/#--- #; s#^+++ b/#+++ #' bench/results/h200x1-coll/s25/$v-header.diff) &&
    bench_cuda_build bench/b_coll_gpu.cu /tmp/plain-$v $nccl -- $ncclibs > $OUT/build-$v.txt 2>&1
done
cp /tmp/st.h $h
for v in red stg strong; do [ -x /tmp/plain-$v ] || { echo "no plain-$v"; exit 1; }; done
echo "built at $(el) s"
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
limits 1024,4096,16384 2 4 > $OUT/limits-0.csv
M="--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST -x BENCH_PARTITION_DIV"
for r in 1 2; do
  for np in 2 4; do
    for c in st-div st-sh red-sh strong-sh stg-sh; do
      cp /tmp/plain-${c%-*} /tmp/plain
      if [ ${c#*-} = div ]; then export BENCH_PARTITION_DIV=1; else unset BENCH_PARTITION_DIV; fi
      BENCH_STREAM_KERNELS=1 run $np marks-$c-r$r 1024,4096,16384 $M >> $OUT/marks.csv
    done
  done
  echo "round $r at $(el) s"
done
cp /tmp/plain-st /tmp/plain
for c in div sh; do
  if [ $c = div ]; then export BENCH_PARTITION_DIV=1; else unset BENCH_PARTITION_DIV; fi
  BENCH_KERNEL_TIME=1 BENCH_STREAM_KERNELS=1 BENCH_LABEL=ktime-$c timeout 100 mpirun -np 2 --bind-to none \
    --oversubscribe --mca part ucx $M -x BENCH_KERNEL_TIME -x BENCH_LABEL -x BENCH_NO_TRADITIONAL \
    /tmp/plain allreduce 1024,4096,16384 2>&1 | tr -d '\000' | grep -a '^g' >> $OUT/ktime.csv
done
limits 1024,4096,16384 2 4 > $OUT/limits-1.csv
echo "ktime at $(el) s"
for np in 2 4; do
  for c in div sh; do
    if [ $c = div ]; then export BENCH_PARTITION_DIV=1; else unset BENCH_PARTITION_DIV; fi
    run $np default-$c 1024,4096,16384 -x BENCH_NO_HOST -x BENCH_PARTITION_DIV >> $OUT/default.csv
  done
done
unset BENCH_PARTITION_DIV
for np in 2 4; do run $np small 1,4,16,64 -x BENCH_NO_HOST >> $OUT/small.csv; done
limits 1,4,16,64 2 4 > $OUT/limits-small.csv
echo "default and small at $(el) s"
unset BENCH_NO_TRADITIONAL BENCH_NO_HOST
grep -E '^(gpu-gcoll-stream-marks|gpu-stream-gcoll-marks)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout -s KILL $((560 - $(el))) tools/test.sh --gpu 2>&1 |
  tr -d '\000' > $OUT/tests.txt
echo "tests at $(el) s: $(grep -c '^PASS' $OUT/tests.txt) PASS, $(grep -c '^FAIL' $OUT/tests.txt) FAIL of $(wc -l < /tmp/n.list)"
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
OUT=$O out_pack a /tmp/o
cp $OUT/markcost.txt $OUT/marks.csv $OUT/ktime.csv $OUT/default.csv $OUT/small.csv $OUT/tests.txt $O/ 2>/dev/null
# run: bash bench/results/h200x1-coll/s26/call-a.sh (carry .bundle)
