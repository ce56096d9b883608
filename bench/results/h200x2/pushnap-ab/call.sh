#!/usr/bin/env bash
# Session 3 call 3: the push's line wait with a nap (32, 256 ns) against HEAD's spin,
# one ablation without the own-ready wait's host reads, and graph starts as copies.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
d=/tmp/p; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/bcg $nccl -- $ncclibs
pl=$d/part-ucx/lib/openmpi/part_ucx_device.so
echo "built at $(el) s"
ngpu=$(nvidia-smi -L | wc -l)
run() { local np=$1 lab=$2; shift 2
  BENCH_LABEL=$lab timeout 100 mpirun -np $np --bind-to none --mca part ucx -x BENCH_LABEL "$@" 2>&1 |
  tr -d '\000' | grep -a '^gallreduce'; }
ab() { # np grids out
  for v in old nap32 nap256 nohost; do cp .bundle/exp/$v.so $pl
    BENCH_NO_TRADITIONAL=1 run $1 -$v-push -x BENCH_NO_TRADITIONAL --mca part_ucx_coll_gpu_push_bytes 262144 /tmp/bcg allreduce $2 >> $3
  done
  cp .bundle/exp/old.so $pl
  BENCH_NO_TRADITIONAL=1 run $1 -old-pull -x BENCH_NO_TRADITIONAL --mca part_ucx_coll_gpu_push_bytes 0 /tmp/bcg allreduce $2 >> $3
  cp .bundle/exp/nohost.so $pl
  BENCH_NO_TRADITIONAL=1 run $1 -nohost-pull -x BENCH_NO_TRADITIONAL --mca part_ucx_coll_gpu_push_bytes 0 /tmp/bcg allreduce $2 >> $3
  cp .bundle/exp/old.so $pl
  BENCH_NO_TRADITIONAL=1 run $1 -old-startcopy -x BENCH_NO_TRADITIONAL --mca part_ucx_stream_graph_start copy /tmp/bcg allreduce $2 >> $3
}
if [ $ngpu -ge 2 ]; then
  for round in 1 2; do ab 2 1,4,16,64,256 $OUT/x-ab.csv; echo "x round $round at $(el) s"; done
fi
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
ab 2 1,4,16,64,256 $OUT/mps-ab.csv; echo "mps np2 at $(el) s"
ab 4 1,16,64 $OUT/mps-ab.csv; echo "mps np4 at $(el) s"
echo quit | nvidia-cuda-mps-control
