#!/usr/bin/env bash
# Session 4 call 4: the bulk lines (bulk pushed also on one GPU when asked;
# by default only across GPUs) and compute-sanitizer's bulk lines, across
# the GPUs and on GPU 0 under MPS.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; mkdir -p $d && tar -xJf .bundle/part-ucx-bulk.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-b
{ nvidia-smi -L; echo "bundle: ${BUNDLE_COMMIT:-?}"; } > $OUT/node.txt 2>&1
TEST_BUILD_DIR=/tmp/tbx timeout 150 tools/test.sh --gpu -k bulk > $OUT/x-bulk.txt 2>&1
echo "x bulk: $(tail -1 $OUT/x-bulk.txt) at $(el) s"
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
TEST_REUSE_BUILD=1 TEST_BUILD_DIR=/tmp/tbx timeout 100 tools/test.sh --gpu -k bulk > $OUT/mps-bulk.txt 2>&1
echo "mps bulk: $(tail -1 $OUT/mps-bulk.txt) at $(el) s"
echo quit | nvidia-cuda-mps-control
unset CUDA_VISIBLE_DEVICES CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
grep -a -h -A9 FAIL $OUT/*.txt | head -40
