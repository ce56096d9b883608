#!/usr/bin/env bash
# Prepared in session 14, not run (no device time left): the engine's extra
# blocks on one GPU (extra-experiment.diff; NOTES.md, "Next for one GPU").
# One GPU under MPS (nvidia-h200, or GPU 0 of a larger kind), with a bundle
# of the tree this diff applies to (tools/setup.sh, tools/bundle.sh
# .bundle/part-ucx.tar.xz). (1) Two-shot lines with the extra blocks on
# (PART_UCX_EXP_EXTRA), data checked, and one under compute-sanitizer
# racecheck and memcheck; (2) kernel + allreduce at 4-64 MiB, np 2 and 4:
# the base against 64 / 128 extra blocks, with the units of the default
# (1 MiB at 64 MiB) and of part_ucx_coll_gpu_blocks 256 (256 KiB), two
# rounds.
set -u
mkdir -p .bundle/exp && cp bench/results/h200x4/s14/extra-experiment.diff .bundle/exp/extra.diff
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
variants extra || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
use extra
T='--mca part_ucx_coll_gpu_twoshot_bytes 16384'
cat > /tmp/x.list <<LIST
x-twoshot-np2        2 -x PART_UCX_EXP_EXTRA=64 $T -- g_coll -c allreduce -p 8 -n 65536 -e 300 -k -w -G 2
x-twoshot-np3-double 3 -x PART_UCX_EXP_EXTRA=40 $T --mca part_ucx_coll_gpu_blocks 256 -- g_coll -c allreduce -p 7 -n 30001 -e 300 -k -t double -o max -a -G 2
x-twoshot-np4-inplace 4 -x PART_UCX_EXP_EXTRA=100 $T --mca part_ucx_coll_gpu_blocks 256 -- g_coll -c allreduce -p 16 -n 65536 -e 200 -k -i -w -G 2
x-twoshot-host-np2   2 -x PART_UCX_EXP_EXTRA=64 $T -- g_coll -c allreduce -p 32 -n 4096 -e 200 -w -G 2
x-stream-graph-np2   2 -x PART_UCX_EXP_EXTRA=64 $T -- g_stream -R -p 16 -n 65536 -A -G 4 -e 201
LIST
TEST_LIST=/tmp/x.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 tools/test.sh --gpu > $OUT/extra-tests.txt 2>&1
echo "tests: $(tr -d '\000' < $OUT/extra-tests.txt | tail -n 1) at $(el) s"
head -1 /tmp/x.list | sed 's/-e 300/-e 10/' > /tmp/xs.list
for tool in racecheck memcheck; do
  TEST_LIST=/tmp/xs.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=300 \
    TEST_WRAPPER="compute-sanitizer --tool $tool --error-exitcode 9" tools/test.sh --gpu > $OUT/extra-san-$tool.txt 2>&1
  echo "$tool: $(tr -d '\000' < $OUT/extra-san-$tool.txt | tail -n 1) at $(el) s"
done
export BENCH_NO_TRADITIONAL=1
G=1024,4096,16384
for r in 1 2; do
  for np in 2 4; do
    use base; run $np -base-r$r $G >> $OUT/mps-extra.csv
    use extra
    for x in 64 128; do
      run $np -x$x-r$r $G -x PART_UCX_EXP_EXTRA=$x >> $OUT/mps-extra.csv
      run $np -x$x-p256-r$r $G -x PART_UCX_EXP_EXTRA=$x --mca part_ucx_coll_gpu_blocks 256 >> $OUT/mps-extra.csv
    done
  done
  echo "round $r at $(el) s"
done
use base
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x4/s14/next-extra.sh 2>&1 | tail; tar -cJf $O/x.tar.xz -C /tmp o
