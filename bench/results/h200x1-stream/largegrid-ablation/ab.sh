#!/usr/bin/env bash
# Where kernel copy's time goes at large grids: b_stream built against
# timing-only variants of mpix_part_device.h (mkvariants.py), interleaved
# over two rounds, beside the host-issued limit. On the device, after
# DEVICE_TESTS=0 DEVICE_MPS=1 tools/device-run.sh BUNDLE OUT (MPS is
# started here again):
#   bench/results/h200x1-stream/largegrid-ablation/ab.sh OUTDIR
set -u
here=$(pwd); out=$1; mkdir -p "$out"
. /tmp/part-ucx-node/part-ucx/env.sh; . "$here/bench/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0 CUDA_DEVICE_MAX_CONNECTIONS=32
d=$here/bench/results/h200x1-stream/largegrid-ablation
t=/tmp/abl; rm -rf $t; mkdir -p $t
vs=$(python3 $d/mkvariants.py "$here/mpix_part_device.h" $t/h) || exit 1
vs=${AB_VARIANTS:-$vs}
for v in $vs; do
    bench_cuda_build "$here/bench/b_stream.cu" $t/b_stream_$v -I$t/h/$v > $t/build-$v.log 2>&1 ||
        { cat $t/build-$v.log; exit 1; }
done
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsp CUDA_MPS_LOG_DIRECTORY=/tmp/mpsl
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d
G=${AB_GRIDS:-1,256,1024,4096,65536}
for round in 1 2; do
    timeout 120 mpirun -np 2 --bind-to none --mca part ucx $t/b_stream_base goodput ipc_limit $G 2>&1 |
        tr -d '\000' | grep -a "^stream_goodput\|rror" | sed "s/^/limit,$round,/" | tee -a "$out/ab.txt"
    for v in $vs; do
        for g in ${AB_GOODPUT:-kernel_copy_graph kernel_copy_kernels}; do
            timeout 120 mpirun -np 2 --bind-to none --mca part ucx $t/b_stream_$v goodput $g $G 2>&1 |
                tr -d '\000' | grep -a "^stream_goodput\|rror" | sed "s/^/$v,$round,/" | tee -a "$out/ab.txt"
        done
    done
done
echo quit | nvidia-cuda-mps-control
