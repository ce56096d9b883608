#!/usr/bin/env bash
# On the device: two bundles of part/ucx (OLD, NEW: tools/bundle.sh),
# b_coll_gpu allreduce built against each, run interleaved (old, new, old,
# new), np 2 and 4 under CUDA MPS.
#   bench/results/h200x1-coll/units8-ab/ab.sh OLD.tar.xz NEW.tar.xz OUTDIR
set -u
here=$(pwd); old=$1; new=$2; out=$3; mkdir -p "$out"
. "$here/bench/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0 BENCH_NO_TRADITIONAL=1
for v in old new; do
    d=/tmp/part-ucx-ab-$v; rm -rf $d; mkdir -p $d
    tar -xJf "$([ $v = old ] && echo "$old" || echo "$new")" -C $d || exit 1
    ( . $d/part-ucx/env.sh
      bench_cuda_build "$here/bench/b_coll_gpu.cu" $d/b_coll_gpu -DHAVE_NCCL \
          -- -L"${CUDA_HOME:-/usr/local/cuda}/lib" -lnccl > $d/build.log 2>&1 ) || { cat $d/build.log; exit 1; }
done
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsp CUDA_MPS_LOG_DIRECTORY=/tmp/mpsl
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d
G=${AB_GRIDS:-16,32,64,96,128}
for round in 1 2; do
    for v in old new; do
        for np in ${AB_NPS:-2 4}; do
            ( . /tmp/part-ucx-ab-$v/part-ucx/env.sh
              timeout 200 mpirun -np $np --oversubscribe --bind-to none --mca part ucx \
                  /tmp/part-ucx-ab-$v/b_coll_gpu allreduce $G 2>&1 ) | tr -d '\000' |
                grep -a "^gallreduce\|rror" | grep -v "nccl\|traditional" |
                sed "s/^/$v,$round,np$np,/" | tee -a "$out/ab.txt"
        done
    done
done
echo quit | nvidia-cuda-mps-control
python3 "$(dirname "$0")/../ab_coll_table.py" "$out/ab.txt" old new | tee "$out/ab-table.txt"
