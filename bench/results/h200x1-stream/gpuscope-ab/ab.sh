#!/usr/bin/env bash
# On the device, after tools/device-run.sh unpacked the bundle
# (DEVICE_TESTS=0), two ranks under CUDA MPS, interleaved over two rounds:
#   - kernel copy's fences: system scope (v0,
#     part_ucx_device_gpu_scope_fences 0) against GPU scope (v1, the
#     default where the ranks share the GPU): goodput and half round trip
#   - the benchmark's graph epochs: b_stream with epoch_at's volatile read
#     of the epoch base (old) against the read-only cache (new)
#   ab.sh OUTDIR
set -u
here=$(pwd); out=$1; mkdir -p "$out"
. /tmp/part-ucx-node/part-ucx/env.sh; . "$here/bench/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0 CUDA_DEVICE_MAX_CONNECTIONS=32
t=/tmp/gsab; rm -rf $t; mkdir -p $t/old
cp -r "$here/bench" "$here/examples" $t/old/
sed -i 's/__ldg(ebase)/*(const volatile int *) ebase/' $t/old/bench/graph_epochs.h
grep -q "volatile int \*) ebase" $t/old/bench/graph_epochs.h || { echo "old epoch_at not made"; exit 1; }
bench_cuda_build "$here/bench/b_stream.cu" $t/b_stream > $t/build.log 2>&1 &&
    bench_cuda_build $t/old/bench/b_stream.cu $t/b_stream_old >> $t/build.log 2>&1 || { cat $t/build.log; exit 1; }
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsp CUDA_MPS_LOG_DIRECTORY=/tmp/mpsl
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d
G=${AB_GRIDS:-1,4,16,64,256,1024,4096,65536}
GG=${AB_GRAPH_GRIDS:-256,1024,4096,65536}
run() { # tag binary args...
    local tag=$1; shift
    timeout 120 mpirun -np 2 --bind-to none --mca part ucx "$@" 2>&1 | tr -d '\000' |
        grep -a "^stream_goodput\|^stream_hrtt\|rror" | sed "s/^/$tag,/" | tee -a "$out/ab.txt"
}
for round in 1 2; do
    run limit,$round $t/b_stream goodput ipc_limit $G
    for p in 0 1; do
        for g in kernel_copy_graph kernel_copy_kernels; do
            OMPI_MCA_part_ucx_device_gpu_scope_fences=$p run v$p,$round $t/b_stream goodput $g $G
        done
        for h in kernels_graph_kstart kernels parrived_graph_kstart; do
            OMPI_MCA_part_ucx_device_gpu_scope_fences=$p run v$p,$round $t/b_stream hrtt $h
        done
    done
    for b in old new; do
        bin=$t/b_stream; [ $b = old ] && bin=$t/b_stream_old
        for g in ipc_limit_graph kernel_copy_graph; do
            run $b,$round $bin goodput $g $GG
        done
    done
done
echo quit | nvidia-cuda-mps-control
