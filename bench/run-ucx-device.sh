#!/usr/bin/env bash
# UCX's device API against part/ucx's kernel copy loop (issue 21, section
# 2) on a GPU node, every variant side by side in one run
# (bench/b_ucx_device.cu), two ranks:
#   bench/run-ucx-device.sh [OUTDIR]   (default bench/results/ucxdev-$(hostname -s))
#   BENCH_QUICK=1                      fewer grid sizes
#   BENCH_TIMEOUT=S                    limit of each variant's run (default 120)
#   BENCH_VARIANTS="..."               variants to run (default all)
#   BENCH_HOSTWORDS_SETS="..."         host-memory traffic added to kernel_copy's
#                                      loop, one run per set (default each
#                                      piece, then all; "": none)
# Goodput of vector add + transfer vs grid, stream-ordered epochs with no
# host per epoch: ucp_device_put at thread, warp and block level with a
# ucp_device_counter_inc per block, part/ucx's store loop into the
# pointers of ucp_device_get_ptr and of ucp_rkey_ptr, and the node's limit
# (cudaMemcpyAsync into the rkey_ptr-mapped buffer). Needs UCX's device API
# headers (ucp/api/device/, UCX >= 1.21: the wheel's, or those of
# PART_UCX_UCX_PREFIX). Each variant runs as its own mpirun: one that
# fails or runs past the limit is recorded in OUTDIR/errors.txt (the rows
# it printed before stay) and the others go on. Writes OUTDIR/results.csv,
# tables.txt (goodput, ratios to kernel_copy and to memcpy_limit,
# registers a thread from ptxas -v and from the runs), the PNG where
# matplotlib is found, machine.txt; logs/build.log (nvcc -Xptxas -v),
# logs/ptxas.txt (the kernels' lines) and one log per variant.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tools/env.sh"
. "$here/bench/common.sh"
out=${1:-$here/bench/results/ucxdev-$(hostname -s)}
mkdir -p "$out/logs"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
ucx=${PART_UCX_UCX_PREFIX:-$PART_UCX_PREFIX}
csv=$out/results.csv
echo "bench,component,param1,param2,value,unit" > "$csv"
: > "$out/errors.txt"
if [ ! -r "$ucx/include/ucp/api/device/ucp_device_impl.h" ]; then
    echo "bench: no UCX device API headers under $ucx/include (UCX >= 1.21 with ucp/api/device/)" |
        tee -a "$out/errors.txt" >&2
    exit 1
fi
# UCX's headers as system headers, as the component takes them
if ! bench_cuda_build "$here/bench/b_ucx_device.cu" "$build/b_ucx_device" -Xptxas -v \
        -isystem "$ucx/include" -- -L"$ucx/lib" -lucp -lucs > "$out/logs/build.log" 2>&1; then
    echo "bench: bench/b_ucx_device.cu did not build (logs/build.log)" | tee -a "$out/errors.txt" >&2
    cat "$out/logs/build.log" >&2
    exit 1
fi
# registers a thread of each variant's kernel, as ptxas counted them
grep -A 3 "entry function 'ucxdev_" "$out/logs/build.log" > "$out/logs/ptxas.txt"

bench_variants_begin
run() { # name b_ucx_device-args...
    local name=$1
    shift
    bench_variant "$name" ucxdev_ 'b_ucx_device|\.(cu|h):[0-9]+|UCX +ERROR' \
        mpirun -np 2 --bind-to none "$build/b_ucx_device" "$@"
}
for v in ${BENCH_VARIANTS:-ucx_put_thread ucx_put_warp ucx_put_block kernel_copy_get_ptr kernel_copy memcpy_limit}; do
    run "goodput-$v" goodput "$v" "$grids"
done
# What part/ucx's stream-ordered kernel copy adds to this loop in
# host-memory traffic, each piece alone, then all of them
# (kernel_copy_hostwords), at the grids where latency counts.
for set in ${BENCH_HOSTWORDS_SETS-arrival done rtrread rxwrite events arrival,done,rtrread,rxwrite,events}; do
    export BENCH_LABEL=nvlink+${set//,/+} BENCH_HOSTWORDS=$set
    run "goodput-hostwords-${set//,/+}" goodput kernel_copy_hostwords 1,4,16,64,256
    unset BENCH_LABEL BENCH_HOSTWORDS
done
bench_machine "$out"
py=$(bench_python)
if [ -n "$py" ]; then
    "$py" "$here/bench/plot.py" "$csv" "$out" | tee "$out/tables.txt"
else
    python3 "$here/bench/ucx_device_table.py" "$csv" | tee "$out/tables.txt"
    echo "bench: matplotlib missing; PNGs with: bench/plot.py $csv $out"
fi
if [ -s "$out/errors.txt" ]; then
    { echo; echo "failed variants:"; cat "$out/errors.txt"; } | tee -a "$out/tables.txt"
else
    rm -f "$out/errors.txt"
fi
echo "bench: $failures variant(s) failed"
[ "$failures" -eq 0 ]
