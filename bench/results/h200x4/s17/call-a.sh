#!/usr/bin/env bash
# Session 17, call A (four GPUs), bundle of f244fe8. (1) Issue 23 run 3:
# the defaults against NCCL, np 2-4 across GPUs, 1-16384 blocks (the
# pushed two-shot slices of three ranks from 8 MiB, 2db7e25, first beside
# NCCL); (2) issue 22, GPU 0 under MPS: session 14's extra blocks beyond
# the engine's cap (s14/extra-experiment.diff, never run): its test lines
# with data checked, racecheck and memcheck over one, then kernel +
# allreduce at 4-64 MiB, np 2 and 4, base against 64 / 128 extra blocks,
# two rounds.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
for np in 2 3 4; do run $np "" 1,16,64,192,256,512,1024,4096,16384 >> $OUT/x-defaults.csv; done
echo "defaults at $(el) s"
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
TEST_LIST=/tmp/x.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 200 tools/test.sh --gpu > $OUT/extra-tests.txt 2>&1
echo "tests: $(tr -d '\000' < $OUT/extra-tests.txt | tail -n 1) at $(el) s"
head -1 /tmp/x.list | sed 's/-e 300/-e 10/' > /tmp/xs.list
for tool in racecheck memcheck; do
  TEST_LIST=/tmp/xs.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=120 \
    TEST_WRAPPER="compute-sanitizer --tool $tool --error-exitcode 9" timeout 130 tools/test.sh --gpu > $OUT/extra-san-$tool.txt 2>&1
  echo "$tool: $(tr -d '\000' < $OUT/extra-san-$tool.txt | tail -n 1) at $(el) s"
done
export BENCH_NO_TRADITIONAL=1
G=1024,4096,16384
for r in 1 2; do
  for np in 2 4; do
    [ $(el) -lt 500 ] || break
    use base; run $np -base-r$r $G >> $OUT/mps-extra.csv
    use extra
    for x in 64 128; do
      run $np -x$x-r$r $G -x PART_UCX_EXP_EXTRA=$x >> $OUT/mps-extra.csv
    done
  done
  echo "round $r at $(el) s"
done
use base
echo quit | nvidia-cuda-mps-control
mkdir -p $OUT/logs && cp /tmp/tb/x-*.log $OUT/logs/ 2>/dev/null
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x4/s17/call-a.sh 2>&1 | tail -20; tar -cJf $O/a.tar.xz -C /tmp o
