#!/usr/bin/env bash
# A/B of mpix_part_device.h (the application's header: the benchmark
# compiled against each): "old" = .bundle/old/mpix_part_device.h, first on
# the include path, "new" = the installed one. Two ranks under CUDA MPS,
# interleaved over two rounds beside the host-issued limit. On the device,
# after DEVICE_TESTS=0 tools/device-run.sh BUNDLE OUT:
#   bench/results/h200x1-stream/earlycopy-ab/ab.sh OUTDIR
set -u
here=$(pwd); out=$1; mkdir -p "$out"
. /tmp/part-ucx-node/part-ucx/env.sh; . "$here/bench/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0 CUDA_DEVICE_MAX_CONNECTIONS=32
t=/tmp/ecab; rm -rf $t; mkdir -p $t
for v in old new; do
    fl=(); [ $v = old ] && fl=(-I"$here/.bundle/old")
    bench_cuda_build "$here/bench/b_stream.cu" $t/b_stream_$v "${fl[@]}" >> $t/build.log 2>&1 ||
        { cat $t/build.log; exit 1; }
done
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsp CUDA_MPS_LOG_DIRECTORY=/tmp/mpsl
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d
G=${AB_GRIDS:-1,4,16,64,256,1024,4096,65536}
run() { # tag args...
    local tag=$1; shift
    timeout 120 mpirun -np 2 --bind-to none --mca part ucx "$@" 2>&1 | tr -d '\000' |
        grep -a "^stream_goodput\|^stream_hrtt\|rror" | sed "s/^/$tag,/" | tee -a "$out/ab.txt"
}
for round in 1 2; do
    run limit,$round $t/b_stream_new goodput ipc_limit $G
    for v in old new; do
        for g in kernel_copy_graph kernel_copy_kernels; do
            run $v,$round $t/b_stream_$v goodput $g $G
        done
        for h in kernels_graph_kstart kernels; do
            run $v,$round $t/b_stream_$v hrtt $h
        done
    done
done
echo quit | nvidia-cuda-mps-control
