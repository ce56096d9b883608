#!/usr/bin/env bash
# Session 6 call H (4 GPUs): LL128 up to 512 KiB, 64 blocks and 1 KiB span
# units across GPUs (new defaults) against the old ones (ll128 off, 32
# blocks, 4 KiB units) and NCCL, np 2 and 4, 1-1024 blocks; the gcoll lines
# across GPUs; the ll128 lines under MPS on GPU 0; sanitizer on ll128.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; rm -rf $d; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-h
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
TEST_BUILD_DIR=/tmp/tbh TEST_TIMEOUT=60 timeout 250 tools/test.sh --gpu -k gcoll > $OUT/x-gcoll.txt 2>&1
echo "x gcoll: $(tail -1 $OUT/x-gcoll.txt) at $(el) s"
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plainh $nccl -- $ncclibs
run() { local np=$1 lab=$2 grids=$3; shift 3; BENCH_LABEL=$lab timeout 60 mpirun -np $np --bind-to none --mca part ucx "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plainh allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
G=1,4,16,32,64,128,256,512,1024
OLD="--mca part_ucx_coll_gpu_ll128_bytes 0 --mca part_ucx_coll_gpu_span_blocks 32 --mca part_ucx_coll_gpu_span_unit_bytes 4096"
for np in 2 4; do
  run $np "" $G >> $OUT/nccl.csv
  BENCH_NO_TRADITIONAL=1 run $np -old $G $OLD >> $OUT/ab.csv
  BENCH_NO_TRADITIONAL=1 run $np -new $G >> $OUT/ab.csv
  echo "np $np bench at $(el) s"
done
( export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
  mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
  TEST_BUILD_DIR=/tmp/tbh TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 timeout 60 tools/test.sh --gpu -k gcoll-ll128 > $OUT/mps-gcoll.txt 2>&1
  echo quit | nvidia-cuda-mps-control )
echo "mps gcoll: $(tail -1 $OUT/mps-gcoll.txt) at $(el) s"
left=$(( 440 - $(el) ))
[ $left -gt 30 ] && TEST_BUILD_DIR=/tmp/tbh TEST_REUSE_BUILD=1 timeout $left bash tools/sanitize-gpu.sh $OUT/sanitize.txt -k san-gcoll-ll128 > /dev/null 2>&1
echo "sanitize: $(grep -a 'passed' $OUT/sanitize.txt | tr '\n' ' ') at $(el) s"
grep -a -h FAIL $OUT/*.txt | head -20
