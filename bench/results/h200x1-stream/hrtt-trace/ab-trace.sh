#!/usr/bin/env bash
# On the device, after tools/device-run.sh unpacked the bundle
# (DEVICE_TESTS=0): an A/B of mpix_part_device.h and the device plugin,
# "old" from .bundle/old (mpix_part_device.h, part_ucx_device.cu) and
# "new" from the working tree, interleaved (old, new, old, new): the half
# round trip and kernel-copy goodput untraced, then the half round trip
# traced (mktrace.py: the plugin's waits and starts too).
#   bench/results/h200x1-stream/hrtt-trace/ab-trace.sh OUTDIR
set -u
here=$(pwd); out=$1; mkdir -p "$out"
. /tmp/part-ucx-node/part-ucx/env.sh; . "$here/bench/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0 CUDA_DEVICE_MAX_CONNECTIONS=32
d=$here/bench/results/h200x1-stream/hrtt-trace
t=/tmp/trc; rm -rf $t; mkdir -p $t
plugin=$(find "$(dirname "$(command -v mpirun)")/.." -name part_ucx_device.so | head -1)
echo "plugin: $plugin"
cp "$plugin" $t/plugin-orig.so
mkdir -p $t/oldsrc/bench
cp "$here/.bundle/old/part_ucx_device.cu" $t/oldsrc/
cp "$here/bench/b_stream.cu" $t/oldsrc/bench/
for v in old new; do
    h=$here; s=$here; [ $v = old ] && h=$here/.bundle/old && s=$t/oldsrc
    mkdir -p $t/$v
    python3 $d/mktrace.py "$s" $t/$v "$h" || exit 1
    cp "$here"/part_ucx_device.h "$here"/part_ucx_device_coll.h $t/$v/
    cp $t/$v/b_stream.cu "$here/bench/b_stream_trace_$v.cu"
    bench_cuda_build "$here/bench/b_stream.cu" $t/b_stream_$v -I"$h" > $t/build-$v.log 2>&1 || { cat $t/build-$v.log; exit 1; }
    bench_cuda_build "$here/bench/b_stream_trace_$v.cu" $t/b_stream_trace_$v -I$t/$v >> $t/build-$v.log 2>&1 || { cat $t/build-$v.log; exit 1; }
    [ -z "${AB_COLL_GRIDS:-}" ] || bench_cuda_build "$here/bench/b_coll_gpu.cu" $t/b_coll_gpu_$v -I"$h" -DHAVE_NCCL \
        -- -L"${CUDA_HOME:-/usr/local/cuda}/lib" -lnccl >> $t/build-$v.log 2>&1 || { cat $t/build-$v.log; exit 1; }
done
for v in old new; do
    nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I$t/$v -o $t/plugin-trace-$v.so $t/$v/part_ucx_device.cu || exit 1
done
cp $t/plugin-orig.so $t/plugin-old.so
nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I"$here" -o $t/plugin-new.so "$here/part_ucx_device.cu" || exit 1
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsp CUDA_MPS_LOG_DIRECTORY=/tmp/mpsl
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d
G=${AB_GRIDS:-1,4,16,64,256,1024,65536}
for round in 1 2; do
    for v in old new; do
        cp $t/plugin-$v.so "$plugin"
        for h in ${AB_HRTT:-kernels_graph_kstart kernels parrived_graph_kstart}; do
            timeout 60 mpirun -np 2 --bind-to none --mca part ucx $t/b_stream_$v hrtt $h 2>&1 |
                tr -d '\000' | grep -a "^stream_hrtt\|rror" | sed "s/^/$v,$round,/" | tee -a "$out/ab.txt"
        done
        for g in ${AB_GOODPUT:-kernel_copy_graph kernel_copy_kernels}; do
            timeout 120 mpirun -np 2 --bind-to none --mca part ucx $t/b_stream_$v goodput $g $G 2>&1 |
                tr -d '\000' | grep -a "^stream_goodput\|rror" | sed "s/^/$v,$round,/" | tee -a "$out/ab.txt"
        done
        [ -z "${AB_COLL_GRIDS:-}" ] ||
            timeout 200 mpirun -np 2 --bind-to none --mca part ucx $t/b_coll_gpu_$v allreduce $AB_COLL_GRIDS 2>&1 |
                tr -d '\000' | grep -a "^gallreduce\|rror" | grep -v "nccl\|traditional\|host_engine" |
                sed "s/^/$v,$round,/" | tee -a "$out/ab.txt"
        cp $t/plugin-trace-$v.so "$plugin"
        mkdir -p "$out/tr-$v-$round"
        TRACE_OUT="$out/tr-$v-$round" timeout 60 mpirun -np 2 --bind-to none --mca part ucx -x TRACE_OUT \
            $t/b_stream_trace_$v hrtt kernels_graph_kstart 2>&1 | tr -d '\000' | grep -a "hrtt\|rror" |
            sed "s/^/traced,$v,$round,/" | tee -a "$out/ab.txt"
    done
done
cp $t/plugin-orig.so "$plugin"
echo quit | nvidia-cuda-mps-control
