#!/usr/bin/env bash
# Session 14, call A (four GPUs). (1) GPU 0 under MPS, issue 22's large
# data: the engine's bytes in flight. four.diff (one GPU: four 16-byte
# chunks a thread in flight in gcoll_reduce's loop, not two), a libmpi
# whose engine block cap PART_UCX_EXP_CAP overrides (blocks 64 at np 2,
# 32 at np 4, against the cap's 33 / 16), blocks 16 at np 2 (how the
# time follows the blocks), two rounds; the limits (b_coll_oneshot) once.
# (2) The span two-shot default against it off, np 4 across GPUs, and
# its two test lines (session 13's call H).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
variants four
lib=$call_dir/part-ucx/lib/libmpi.so.40.40.7
cp $lib /tmp/libmpi-base.so
export BENCH_NO_TRADITIONAL=1
G=64,1024,4096,16384
(
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
bench_cuda_build bench/b_coll_oneshot.cu /tmp/oneshot > $OUT/build-oneshot.txt 2>&1
for np in 2 4; do timeout 100 mpirun -np $np --bind-to none --oversubscribe /tmp/oneshot $G 2>&1 | tr -d '\000' | grep -a '^g' >> $OUT/mps-limits.csv; done
echo "limits at $(el) s"
for r in 1 2; do
  use base; cp /tmp/libmpi-base.so $lib
  run 2 -base-r$r $G >> $OUT/mps-big.csv
  run 4 -base-r$r $G >> $OUT/mps-big.csv
  run 2 -b16-r$r $G --mca part_ucx_coll_gpu_blocks 16 >> $OUT/mps-big.csv
  use four
  run 2 -four-r$r $G >> $OUT/mps-big.csv
  run 4 -four-r$r $G >> $OUT/mps-big.csv
  use base; cp .bundle/libmpi-cap.so $lib
  run 2 -cap64-r$r $G --mca part_ucx_coll_gpu_blocks 64 -x PART_UCX_EXP_CAP=64 >> $OUT/mps-big.csv
  run 4 -cap32-r$r $G --mca part_ucx_coll_gpu_blocks 32 -x PART_UCX_EXP_CAP=32 >> $OUT/mps-big.csv
  use four
  run 2 -fourcap64-r$r $G --mca part_ucx_coll_gpu_blocks 64 -x PART_UCX_EXP_CAP=64 >> $OUT/mps-big.csv
  run 4 -fourcap32-r$r $G --mca part_ucx_coll_gpu_blocks 32 -x PART_UCX_EXP_CAP=32 >> $OUT/mps-big.csv
  echo "round $r at $(el) s"
done
use base; cp /tmp/libmpi-base.so $lib
echo quit | nvidia-cuda-mps-control
)
[ $(el) -gt 400 ] && { echo "no time for part 2"; exit 0; }
run 4 -span2-r1 128,192,256 >> $OUT/x-span2.csv
run 4 -off-r1 128,192,256 --mca part_ucx_coll_gpu_span_twoshot_bytes 0 >> $OUT/x-span2.csv
echo "span2 at $(el) s"
grep -E '^gpu-gcoll-span-twoshot' tests/gpu.list > /tmp/new.list
TEST_LIST=/tmp/new.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=40 timeout $((580 - $(el))) tools/test.sh --gpu > $OUT/new-tests.txt 2>&1
echo "tests: $(tr -d '\000' < $OUT/new-tests.txt | tail -n 1) at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s15a.sh $OUT/call.sh; bash .bundle/exp/s15a.sh 2>&1 | tail; tar -cJf $O/a.tar.xz -C /tmp o
