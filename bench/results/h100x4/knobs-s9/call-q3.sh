#!/usr/bin/env bash
# Session 9, call 3 (4 GPUs), bundle of 6437af0 (HEAD's code).
# A: np 3 and 4 at 1 and 2 MiB across GPUs: the defaults (bulk push np 3,
#    two-shot np 4 at 1 MiB) against the bulk push in LL128 lines and the
#    flagged bulk push with their thresholds raised, two rounds.
# B: the whole GPU suite as on one GPU under CUDA MPS (every rank of a
#    line on one GPU), in four shards side by side, shard i on GPU i, one
#    MPS control daemon for the node.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; rm -rf $d; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-q
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs > $OUT/build.txt 2>&1 || echo "build failed"
( TEST_BUILD_DIR=/tmp/tb0 TEST_TIMEOUT=120 tools/test.sh --gpu -k gpu-exchange-prepare > $OUT/tests-build.txt 2>&1 ) &
tb=$!
run() { local np=$1 lab=$2 grids=$3; shift 3
  BENCH_LABEL=$lab timeout 100 mpirun -np $np --bind-to none --oversubscribe --mca part ucx "$@" -x BENCH_LABEL -x BENCH_NO_TRADITIONAL /tmp/plain allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
export BENCH_NO_TRADITIONAL=1
M=--mca
for r in 1 2; do
  for np in 3 4; do
    run $np -def-r$r 256,512 >> $OUT/x-bulk.csv
    run $np -ll2m-r$r 256,512 $M part_ucx_coll_gpu_bulk_bytes 8388608 $M part_ucx_coll_gpu_ll128_bytes 2097152 >> $OUT/x-bulk.csv
    run $np -flag-r$r 256,512 $M part_ucx_coll_gpu_bulk_bytes 8388608 >> $OUT/x-bulk.csv
  done
  echo "bulk round $r at $(el) s"
done
unset BENCH_NO_TRADITIONAL
wait $tb; echo "tests built at $(el) s: $(tail -n 1 $OUT/tests-build.txt)"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -v '^#' tests/gpu.list | grep -v '^[[:space:]]*$' | awk '{print > "/tmp/shard" (NR % 4) ".list"}'
for i in 0 1 2 3; do
  [ $i = 0 ] || cp -a /tmp/tb0 /tmp/tb$i
  ( CUDA_VISIBLE_DEVICES=$i TEST_LIST=/tmp/shard$i.list TEST_BUILD_DIR=/tmp/tb$i TEST_REUSE_BUILD=1 TEST_TIMEOUT=120 \
      timeout $(( 560 - $(el) )) tools/test.sh --gpu > $OUT/mps-shard$i.txt 2>&1 ) &
done
wait
echo quit | nvidia-cuda-mps-control
for i in 0 1 2 3; do echo "shard $i: $(tr -d '\000' < $OUT/mps-shard$i.txt | tail -n 1)"; done
mkdir -p /tmp/fl; for i in 0 1 2 3; do for f in $(tr -d '\000' < $OUT/mps-shard$i.txt | awk '/^FAIL/{print $2}'); do cp /tmp/tb$i/$f.*log /tmp/fl/ 2>/dev/null; done; done
ls /tmp/fl | grep -q . && tar -cJf $OUT/failed-logs.tar.xz -C /tmp fl
echo "done at $(el) s"
