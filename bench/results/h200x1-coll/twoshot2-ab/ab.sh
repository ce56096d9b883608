#!/usr/bin/env bash
# On the device, after tools/device-run.sh unpacked the bundle
# (DEVICE_TESTS=0): b_coll_gpu allreduce under two settings, A and B
# (environment assignments, e.g. OMPI_MCA_... variables), interleaved
# (A, B, A, B), two or four ranks under CUDA MPS.
#   AB_A="VAR=VALUE ..." AB_B="..." [AB_GRIDS=...] [AB_NPS="2 4"] ab.sh OUTDIR
set -u
here=$(pwd); out=$1; mkdir -p "$out"
. /tmp/part-ucx-node/part-ucx/env.sh; . "$here/bench/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0 BENCH_NO_TRADITIONAL=1
b=/tmp/ab-env; mkdir -p $b
bench_cuda_build "$here/bench/b_coll_gpu.cu" $b/b_coll_gpu -DHAVE_NCCL \
    -- -L"${CUDA_HOME:-/usr/local/cuda}/lib" -lnccl > $b/build.log 2>&1 || { cat $b/build.log; exit 1; }
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsp CUDA_MPS_LOG_DIRECTORY=/tmp/mpsl
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d
G=${AB_GRIDS:-1,64,256,1024,4096,16384}
for round in 1 2; do
    for p in 0 1; do
        for np in ${AB_NPS:-2 4}; do
            env $([ $p = 0 ] && echo "${AB_A:-}" || echo "${AB_B:-}") timeout 200 mpirun -np $np --oversubscribe \
                --bind-to none --mca part ucx $b/b_coll_gpu allreduce $G 2>&1 | tr -d '\000' |
                grep -a "^gallreduce\|rror" | grep -v "nccl\|traditional" |
                sed "s/^/v$p,$round,np$np,/" | tee -a "$out/ab.txt"
        done
    done
done
echo quit | nvidia-cuda-mps-control
python3 "$(dirname "$0")/../ab_coll_table.py" "$out/ab.txt" v0 v1 | tee "$out/ab-table.txt"
