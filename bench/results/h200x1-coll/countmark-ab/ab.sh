#!/usr/bin/env bash
# A/B of mpix_part_device.h (the application's header, which the
# producers' MPIX_Pready comes from): "old" = .bundle/old/mpix_part_device.h
# first on the include path, "new" = the installed one, the same library.
# Interleaved over two rounds, ranks under CUDA MPS: b_coll_gpu allreduce
# (np 2 and 4; v0 old, v1 new).
# On the device, after DEVICE_TESTS=0 tools/device-run.sh BUNDLE OUT:
#   bench/results/h200x1-coll/countmark-ab/ab.sh OUTDIR
set -u
here=$(pwd); out=$1; mkdir -p "$out"
. /tmp/part-ucx-node/part-ucx/env.sh; . "$here/bench/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0 BENCH_NO_TRADITIONAL=1
t=/tmp/cmab; rm -rf $t; mkdir -p $t
for v in old new; do
    fl=(); [ $v = old ] && fl=(-I"$here/.bundle/old")
    bench_cuda_build "$here/bench/b_coll_gpu.cu" $t/b_coll_gpu_$v "${fl[@]}" >> $t/build.log 2>&1 ||
        { cat $t/build.log; exit 1; }
done
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsp CUDA_MPS_LOG_DIRECTORY=/tmp/mpsl
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d
G=${AB_GRIDS:-1,64,256,1024,4096}
for round in 1 2; do
    for v in old new; do
        tag=v0; [ $v = new ] && tag=v1
        for np in 2 4; do
            timeout 200 mpirun -np $np --oversubscribe --bind-to none --mca part ucx \
                $t/b_coll_gpu_$v allreduce $G 2>&1 | tr -d '\000' |
                grep -a "^gallreduce\|rror" | grep -v "nccl\|traditional" |
                sed "s/^/$tag,$round,np$np,/" | tee -a "$out/ab.txt"
        done
    done
done
echo quit | nvidia-cuda-mps-control
python3 "$here/bench/results/h200x1-coll/ab_coll_table.py" "$out/ab.txt" v0 v1 | tee "$out/ab-table.txt"
