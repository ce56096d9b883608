# Sourced by the script of a device call that measures kernel + allreduce
# (bench/results/<machine>/*/call.sh), from the checkout's root:
#   . bench/call-common.sh BUNDLE.tar.xz
# Unpacks the bundle and takes its environment (bench/call-env.sh, which
# also defines `el` and writes $OUT/node.txt), builds b_coll_gpu with NCCL
# where found (/tmp/plain) and defines
#   el                     seconds since this file was sourced
#   run NP LABEL GRIDS [mpirun options]
#                          b_coll_gpu allreduce GRIDS under part/ucx, its
#                          gallreduce rows on stdout (LABEL: BENCH_LABEL,
#                          "" for the unlabelled rows with NCCL's;
#                          BENCH_NO_TRADITIONAL is passed on when set)
#   variants V...          builds /tmp/V.so for each V: the device plugin
#                          of this checkout with .bundle/exp/V.diff applied
#                          (timing experiments), beside /tmp/base.so, the
#                          bundle's; their logs in $OUT/build-V.txt
#   use V                  puts /tmp/V.so in the install's place (base: back)
#   mps_start, mps_stop    every rank on GPU 0 under CUDA MPS, and back
#   limits GRIDS NP...     b_coll_oneshot's rows (the kernel alone, the
#                          kernel + copy limit) for each NP, on stdout
# Keeps NCCL_NVLS_ENABLE=0 (NVLink multicast stays off on the lent nodes).
. bench/call-env.sh "${1:?bundle}" || return 1
. bench/common.sh
bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs > "$OUT/build.txt" 2>&1 ||
    echo "call-common: b_coll_gpu did not build (see build.txt)"
run() {
    local np=$1 lab=$2 grids=$3
    shift 3
    BENCH_LABEL=$lab timeout 100 mpirun -np "$np" --bind-to none --oversubscribe --mca part ucx \
        "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plain allreduce \
        "$grids" 2>&1 | tr -d '\000' | grep -a '^gallreduce'
}

plugin=$call_dir/part-ucx/lib/openmpi/part_ucx_device.so
variants() {
    local v
    cp "$plugin" /tmp/base.so || return 1
    for v in "$@"; do
        rm -rf "/tmp/$v" && cp -r . "/tmp/$v" && (cd "/tmp/$v" && patch -p1 < ".bundle/exp/$v.diff" > /dev/null) &&
            "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC \
                -I"/tmp/$v" -o "/tmp/$v.so" "/tmp/$v/part_ucx_device.cu" > "$OUT/build-$v.txt" 2>&1 &
    done
    wait
    for v in "$@"; do
        [ -f "/tmp/$v.so" ] || { echo "call-common: /tmp/$v.so did not build (build-$v.txt)" >&2; return 1; }
    done
}
use() {
    cp "/tmp/$1.so" "$plugin"
}
mps_start() {
    export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
    mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
}
mps_stop() {
    echo quit | nvidia-cuda-mps-control
    unset CUDA_VISIBLE_DEVICES CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}
limits() {
    local grids=$1 np
    shift
    [ -x /tmp/oneshot ] || bench_cuda_build bench/b_coll_oneshot.cu /tmp/oneshot > "$OUT/build-oneshot.txt" 2>&1
    for np in "$@"; do
        timeout 100 mpirun -np "$np" --bind-to none --oversubscribe /tmp/oneshot "$grids" 2>&1 |
            tr -d '\000' | grep -a '^gallreduce'
    done
}
