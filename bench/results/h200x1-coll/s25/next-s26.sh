#!/usr/bin/env bash
# Prepared in session 25, not run. One H200, every rank under CUDA MPS, a
# bundle of this checkout (the kept header: MPIX_Pready's ordered mark is
# one generic store, ST.E.64). What a mark costs inside the marks epochs:
# session 25 found a reduction 13 us cheaper a producer alone
# (markcost.cu) but slower inside the epochs (call D). Headers, each a
# b_coll_gpu build (the installed header patched for the build):
#   st      as kept;
#   red     red-header.diff: the block level's mark a red.global.or;
#   stg     stg-header.diff: a global-space store (STG.E.64);
#   strong  strong-header.diff: st.relaxed.gpu (STG.E.64.STRONG.GPU).
# Plugins: base (this checkout's) and notrig (../s24/notrig-experiment.diff:
# the gate no longer polls the peers' marks, so no early launch), to test
# whether the peers' polling of the last partition's mark is what made the
# reduction slow. Combinations st/red/stg/strong on base, st/red on notrig;
# np 2 and 4, 4/16/64 MiB, two rounds; the limits before and after.
# Then: the producers' own times in the epochs (st and red, events); the
# small grids with the default settings (issue 22's 15 us at 1-64 blocks,
# last measured in session 14: np 4 at 64 blocks 15.36 us); markcost.cu's
# strong-store variants, one process, no MPS (added after call C).
# Then the marks lines on this checkout. About 400 s.
# run: bash bench/results/h200x1-coll/s25/next-s26.sh (carry .bundle)
set -u
O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mkdir -p .bundle/exp && cp bench/results/h200x1-coll/s24/notrig-experiment.diff .bundle/exp/notrig.diff
variants notrig || exit 1
h=$call_dir/part-ucx/include/mpix_part_device.h
cp /tmp/plain /tmp/plain-st && cp $h /tmp/st.h
for v in red stg strong; do
  cp /tmp/st.h $h && patch -s $h < <(sed 's#^--- a/#--- #; s#^+++ b/#+++ #' bench/results/h200x1-coll/s25/$v-header.diff) &&
    bench_cuda_build bench/b_coll_gpu.cu /tmp/plain-$v $nccl -- $ncclibs > $OUT/build-$v.txt 2>&1
  [ -x /tmp/plain-$v ] || { echo "no plain-$v"; cp /tmp/st.h $h; exit 1; }
done
cp /tmp/st.h $h
echo "built at $(el) s"
mps_start
export BENCH_NO_TRADITIONAL=1 BENCH_NO_HOST=1
limits 1024,4096,16384 2 4 > $OUT/limits-0.csv
M="--mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST"
for r in 1 2; do
  for np in 2 4; do
    for c in st-base red-base stg-base strong-base st-notrig red-notrig; do
      use ${c#*-}
      cp /tmp/plain-${c%-*} /tmp/plain
      BENCH_STREAM_KERNELS=1 run $np marks-$c-r$r 1024,4096,16384 $M >> $OUT/marks.csv
    done
  done
  echo "round $r at $(el) s"
done
use base
for v in st red; do
  cp /tmp/plain-$v /tmp/plain
  BENCH_KERNEL_TIME=1 BENCH_STREAM_KERNELS=1 BENCH_LABEL=ktime-$v timeout 100 mpirun -np 2 --bind-to none \
    --oversubscribe --mca part ucx $M -x BENCH_KERNEL_TIME -x BENCH_LABEL -x BENCH_NO_TRADITIONAL \
    /tmp/plain allreduce 1024,4096,16384 2>&1 | tr -d '\000' | grep -a '^g' >> $OUT/ktime.csv
done
cp /tmp/plain-st /tmp/plain
limits 1024,4096,16384 2 4 > $OUT/limits-1.csv
for np in 2 4; do run $np small 1,4,16,64 -x BENCH_NO_HOST >> $OUT/small.csv; done
limits 1,4,16,64 2 4 > $OUT/limits-small.csv
echo "small at $(el) s"
# the marks lines on this checkout (79cf753's one count of the blocks, in
# the engine and the gate, not yet run on a GPU)
unset BENCH_NO_TRADITIONAL BENCH_NO_HOST
grep -E '^(gpu-gcoll-stream-marks|gpu-stream-gcoll-marks)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout -s KILL $((520 - $(el))) tools/test.sh --gpu 2>&1 |
  tr -d '\000' > $OUT/tests.txt
echo "tests at $(el) s: $(grep -c '^PASS' $OUT/tests.txt) PASS, $(grep -c '^FAIL' $OUT/tests.txt) FAIL of $(wc -l < /tmp/n.list)"
timeout -s KILL 5 nvidia-cuda-mps-control <<< quit
nvcc -O3 -arch=sm_90 -o /tmp/markcost bench/results/h200x1-coll/s25/markcost.cu &&
  MARKCOST_ONLY=none,st,div,red,ldgst,ldgred,strong,vol,ldgstrg /tmp/markcost > $OUT/markcost3.txt 2>&1
OUT=$O out_pack n /tmp/o
cp $OUT/marks.csv $OUT/ktime.csv $OUT/small.csv $OUT/limits-0.csv $OUT/limits-1.csv $OUT/limits-small.csv \
  $OUT/markcost3.txt $OUT/tests.txt $O/ 2>/dev/null
