#!/usr/bin/env bash
# Session 6 call E (4 GPUs), 4707d79: b_lines (LL / LL128 / bulk) on GPUs 0-1;
# the gcoll lines across GPUs (first run of a34bed9's bulk rule); kernel +
# allreduce with NCCL np 2 and 4 at 1-1024 blocks, and the bulk rule's A/B
# (default 2 MiB bound vs bulk off) at 64-512 blocks.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-b
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
BENCH_TIMEOUT=100 BENCH_LINES_BYTES=4096,16384,65536,131072,262144,524288,1048576 \
  BENCH_LINES_BLOCKS=1,4,16,32,64 bash bench/run-lines.sh $OUT/lines > $OUT/lines.log 2>&1
echo "lines rc $? at $(el) s"
TEST_BUILD_DIR=/tmp/tbx TEST_TIMEOUT=60 timeout 220 tools/test.sh --gpu -k gcoll > $OUT/x-gcoll.txt 2>&1
echo "x gcoll: $(tail -1 $OUT/x-gcoll.txt) at $(el) s"
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plainb $nccl -- $ncclibs
run() { local np=$1 lab=$2 grids=$3; shift 3; BENCH_LABEL=$lab timeout 60 mpirun -np $np --bind-to none --mca part ucx "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plainb allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
for np in 2 4; do
  run $np "" 1,4,16,64,128,256,512,1024 >> $OUT/nccl.csv
  BENCH_NO_TRADITIONAL=1 run $np -bulk2m 64,128,256,512 >> $OUT/ab.csv
  BENCH_NO_TRADITIONAL=1 run $np -bulk0 64,128,256,512 --mca part_ucx_coll_gpu_bulk_bytes 0 >> $OUT/ab.csv
  echo "np $np bench at $(el) s"
done
grep -a -h FAIL $OUT/*.txt | head -20
