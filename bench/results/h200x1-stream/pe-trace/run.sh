#!/usr/bin/env bash
# On the device, after tools/device-run.sh unpacked the bundle
# (DEVICE_TESTS=0), two ranks under CUDA MPS: progress_stream at one and
# 64 blocks with the traced libmpi (.bundle/trace/, mktrace.py) in front,
# the application's thread progressing (app) or yielding (noapp,
# PART_TRACE_NOAPP=1), and untraced beside them.
#   run.sh OUTDIR
set -u
here=$(pwd); out=$1; mkdir -p "$out/tr"
. /tmp/part-ucx-node/part-ucx/env.sh; . "$here/bench/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0 CUDA_DEVICE_MAX_CONNECTIONS=32
t=/tmp/petr; rm -rf $t; mkdir -p $t/lib
cp "$here/.bundle/trace/libmpi.so.40.40.7" $t/lib/
ln -s libmpi.so.40.40.7 $t/lib/libmpi.so.40
bench_cuda_build "$here/bench/b_stream.cu" $t/b_stream > $t/build.log 2>&1 || { cat $t/build.log; exit 1; }
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsp CUDA_MPS_LOG_DIRECTORY=/tmp/mpsl
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d
run() { # tag env... -- args
    local tag=$1; shift
    timeout 120 env "$@" 2>&1 | tr -d '\000' |
        grep -a "^stream_goodput\|^stream_issue\|^stream_calls\|rror" | sed "s/^/$tag,/" | tee -a "$out/ab.txt"
}
mr="mpirun -np 2 --bind-to none --mca part ucx"
for round in 1 2; do
    for g in 1 64; do
        run base,$g,$round $mr $t/b_stream goodput progress_stream $g
        run app,$g,$round $mr -x LD_LIBRARY_PATH=$t/lib:$LD_LIBRARY_PATH -x PART_TRACE=$out/tr/app-$g-$round \
            $t/b_stream goodput progress_stream $g
        run noapp,$g,$round $mr -x LD_LIBRARY_PATH=$t/lib:$LD_LIBRARY_PATH -x PART_TRACE=$out/tr/noapp-$g-$round \
            -x PART_TRACE_NOAPP=1 $t/b_stream goodput progress_stream $g
    done
    run nohcopy,1,$round $mr --mca part_ucx_gpu_host_copy 0 $t/b_stream goodput progress_stream 1
    run trad,1,$round $mr $t/b_stream goodput traditional 1
done
echo quit | nvidia-cuda-mps-control
ls -la $out/tr | head
