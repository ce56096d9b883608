#!/usr/bin/env bash
# Next session's first call (4 GPUs), 3780472+: the gcoll lines across GPUs
# (the refactored LL128 bulk push, the two-shot in lines, off by default,
# forced by its lines); two-shot in lines against the flagged two-shot,
# the bulk push and NCCL, np 2 3 4, 64-1024 blocks; sanitizer on ll128.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; rm -rf $d; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-j
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
TEST_BUILD_DIR=/tmp/tbj TEST_TIMEOUT=60 timeout 260 tools/test.sh --gpu -k gcoll > $OUT/x-gcoll.txt 2>&1
echo "x gcoll: $(tail -1 $OUT/x-gcoll.txt) at $(el) s"
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plainj $nccl -- $ncclibs
run() { local np=$1 lab=$2 grids=$3; shift 3; BENCH_LABEL=$lab timeout 60 mpirun -np $np --bind-to none --mca part ucx "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plainj allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
G=64,128,256,512,1024
for np in 2 3 4; do
  run $np "" $G >> $OUT/nccl.csv
  BENCH_NO_TRADITIONAL=1 run $np -ts-lines $G --mca part_ucx_coll_gpu_twoshot_bytes 65536 --mca part_ucx_coll_gpu_bulk_bytes 0 --mca part_ucx_coll_gpu_ll128_twoshot_bytes 16777216 >> $OUT/ab.csv
  BENCH_NO_TRADITIONAL=1 run $np -ts-flagged $G --mca part_ucx_coll_gpu_twoshot_bytes 65536 --mca part_ucx_coll_gpu_bulk_bytes 0 >> $OUT/ab.csv
  echo "np $np bench at $(el) s"
done
left=$(( 480 - $(el) ))
[ $left -gt 30 ] && TEST_BUILD_DIR=/tmp/tbj TEST_REUSE_BUILD=1 timeout $left bash tools/sanitize-gpu.sh $OUT/sanitize.txt -k san-gcoll-ll128 > /dev/null 2>&1
echo "sanitize: $(grep -a 'passed' $OUT/sanitize.txt | tr '\n' ' ') at $(el) s"
grep -a -h FAIL $OUT/*.txt | head -20
