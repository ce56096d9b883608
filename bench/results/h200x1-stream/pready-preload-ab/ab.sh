#!/usr/bin/env bash
# A/B of mpix_part_device.h: "old" = .bundle/old/ (first on the include
# path), "new" = the installed one. Interleaved: old, new, old, new.
# .bundle/pready_real.cu: ../../h200x1-coll/trace-experiment/pready_real.cu
# with pready_real-direct.patch applied; .bundle/old/mpix_part_device.h: the
# header of 001fa42.
#   .bundle/ab.sh OUTDIR
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tools/env.sh"; . "$here/bench/common.sh"
out=$1; mkdir -p "$out"
b=$(mktemp -d); cuda=${CUDA_HOME:-/usr/local/cuda}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0 CUDA_DEVICE_MAX_CONNECTIONS=32
for v in old new; do
    fl=(); [ $v = old ] && fl=(-I"$here/.bundle/old")
    bench_cuda_build "$here/bench/b_stream.cu" "$b/b_stream_$v" "${fl[@]}" >"$out/build-$v.log" 2>&1 || { cat "$out/build-$v.log"; exit 1; }
    bench_cuda_build "$here/bench/b_coll_gpu.cu" "$b/b_coll_gpu_$v" "${fl[@]}" -DHAVE_NCCL -- -L"$cuda/lib" -lnccl >>"$out/build-$v.log" 2>&1 || { cat "$out/build-$v.log"; exit 1; }
    bench_cuda_build "$here/.bundle/pready_real.cu" "$b/pready_real_$v" "${fl[@]}" >>"$out/build-$v.log" 2>&1 || echo "pready_real $v did not build"
done
SG=${AB_STREAM_GRIDS:-1,64,256,1024,4096,16384,65536}
CG=${AB_COLL_GRIDS:-1,64,1024,4096,16384}
for round in 1 2; do
    for v in old new; do
        echo "== round $round $v" | tee -a "$out/ab.txt"
        [ -x "$b/pready_real_$v" ] && timeout 60 "$b/pready_real_$v" 2>&1 | sed "s/^/pready $v: /" | tee -a "$out/ab.txt"
        for var in ${AB_STREAM:-kernel_copy_kernels kernel_copy_graph}; do
            timeout 120 mpirun -np 2 --bind-to none --mca part ucx "$b/b_stream_$v" goodput $var $SG 2>&1 |
                tr -d '\000' | grep -a "^stream_goodput\|rror" | sed "s/^/$v,/" | tee -a "$out/ab.txt"
        done
        for np in ${AB_NPS:-2}; do
            timeout 200 mpirun -np $np --oversubscribe --bind-to none --mca part ucx "$b/b_coll_gpu_$v" allreduce $CG 2>&1 |
                tr -d '\000' | grep -a "^gallreduce\|rror" | grep -v "nccl\|traditional\|host_engine" | sed "s/^/$v,np$np,/" | tee -a "$out/ab.txt"
        done
    done
done
