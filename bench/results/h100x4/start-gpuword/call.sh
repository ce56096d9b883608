#!/usr/bin/env bash
# Session 7, call K (4 GPUs): e5a0a88 (new) against afde612 (base).
# Tests of the new bundle: every gcoll line and every graph line. A/B of
# the captured start reading the engine's GPU word (np 2 and 4, 1-256
# blocks, two rounds interleaved); two-shot flagged (16-byte slices now)
# against two-shot in lines at np 3 and 4; sanitizer on the two-shot lines.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for v in a b; do rm -rf /tmp/p$v; mkdir -p /tmp/p$v; done
tar -xJf .bundle/base-afde612.tar.xz -C /tmp/pa && tar -xJf .bundle/part-ucx.tar.xz -C /tmp/pb
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
for v in a b; do
  ( . /tmp/p$v/part-ucx/env.sh; bench_cuda_build bench/b_coll_gpu.cu /tmp/plain$v $nccl -- $ncclibs ) > $OUT/build.txt 2>&1 || echo "build $v failed"
done
echo "built at $(el) s"
run() { local v=$1 np=$2 lab=$3 grids=$4; shift 4
  ( . /tmp/p$v/part-ucx/env.sh; BENCH_LABEL=$lab timeout 60 mpirun -np $np --bind-to none --mca part ucx "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plain$v allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce' ); }
G=1,4,16,64,256
for round in 1 2; do
  for np in 2 4; do
    [ $round = 2 ] && [ $np = 4 ] && continue
    BENCH_NO_TRADITIONAL=1 run a $np -base-r$round $G >> $OUT/start-ab.csv
    if [ $round = 1 ]; then run b $np -new-r$round $G >> $OUT/start-ab.csv
    else BENCH_NO_TRADITIONAL=1 run b $np -new-r$round $G >> $OUT/start-ab.csv; fi
  done
  echo "start a/b round $round at $(el) s"
done
T="--mca part_ucx_coll_gpu_twoshot_bytes 65536 --mca part_ucx_coll_gpu_bulk_bytes 0"
for np in 3 4; do
  BENCH_NO_TRADITIONAL=1 run b $np -ts-flagged 256,512,1024 $T >> $OUT/twoshot-ab.csv
  BENCH_NO_TRADITIONAL=1 run b $np -ts-lines 256,512,1024 $T --mca part_ucx_coll_gpu_ll128_twoshot_bytes 16777216 >> $OUT/twoshot-ab.csv
  [ $np = 3 ] && BENCH_NO_TRADITIONAL=1 run b $np -defaults 256,512,1024 >> $OUT/twoshot-ab.csv
done
echo "two-shot a/b at $(el) s"
. /tmp/pb/part-ucx/env.sh
export PART_UCX_PREFIX=/tmp/pb/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-k
TEST_BUILD_DIR=/tmp/tbk timeout 120 bash tools/sanitize-gpu.sh $OUT/sanitize.txt -k san-gcoll-twoshot > /dev/null 2>&1
echo "sanitize: $(grep -a 'passed' $OUT/sanitize.txt | tr '\n' ' ') at $(el) s"
left=$(( 575 - $(el) ))
TEST_BUILD_DIR=/tmp/tbk TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 timeout $left tools/test.sh --gpu -k '@(gcoll|graph)' > $OUT/x-tests.txt 2>&1
echo "tests: $(tail -n 1 $OUT/x-tests.txt) at $(el) s"
grep -a -h FAIL $OUT/*.txt | head -20
