#!/usr/bin/env bash
# Stream-ordered partitioned epochs (issue 21) on a GPU node, every variant
# side by side in one run (bench/b_stream.cu), two ranks:
#   bench/run-stream.sh [OUTDIR]   (default bench/results/stream-$(hostname -s))
#   BENCH_QUICK=1                  fewer grid sizes
#   BENCH_TIMEOUT=S                limit of each variant's run (default 120)
#   BENCH_VARIANTS="..."           goodput variants to run (default all)
#   BENCH_HRTT_VARIANTS="..."      half-round-trip variants (default all)
#   BENCH_NVCCFLAGS="..."          more nvcc flags for b_stream (e.g.
#                                  a -D for a variant of a device header)
# Goodput of vector add + transfer vs grid: traditional, kernel copy
# host-synchronised, kernel copy stream-ordered (and with info
# "mpix_stream_kernels": kernels count the epochs), progress engine
# stream-ordered (also with "mpix_stream_kernels": no host on either side),
# and the
# node's limit (cudaMemcpyAsync into the peer's IPC-mapped buffer: a peer
# copy over NVLink where the ranks have a GPU each), NCCL's ncclSend/ncclRecv
# on the same stream where NCCL is built in and each rank has a GPU, kernel
# copy and the limit also with their epochs replayed from CUDA graphs
# (BENCH_GRAPH_EPOCHS a graph, default 32; the _kstart variants with the
# graphs' starts made kernels, at the grids that fit beside them; the
# _nojoin variants with no start joined to the wait before it); then the
# half round trip of a one-block epoch: stream-ordered (also with
# "mpix_stream_kernels") vs host-synchronised
# partitioned vs MPI_Send/MPI_Recv vs NCCL. Each variant runs as its own mpirun: one
# that fails or runs past the limit is recorded in OUTDIR/errors.txt (the
# rows it printed before stay) and the others go on. Writes
# OUTDIR/results.csv, tables.txt (ratios to traditional and to the limit,
# with the issue's targets), the PNGs where matplotlib is found, and
# machine.txt; the logs of the runs in OUTDIR/logs/.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tools/env.sh"
. "$here/bench/common.sh"
out=${1:-$here/bench/results/stream-$(hostname -s)}
mkdir -p "$out/logs"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
csv=$out/results.csv
echo "bench,component,param1,param2,value,unit" > "$csv"
: > "$out/errors.txt"
bench_nccl # NCCL's stream-ordered send/recv (the nccl variants) where NCCL is found
# shellcheck disable=SC2086
if ! bench_cuda_build "$here/bench/b_stream.cu" "$build/b_stream" $nccl ${BENCH_NVCCFLAGS:-} \
        -- $ncclibs > "$out/logs/build.log" 2>&1; then
    echo "bench: bench/b_stream.cu did not build (logs/build.log)" | tee -a "$out/errors.txt" >&2
    cat "$out/logs/build.log" >&2
    exit 1
fi

bench_variants_begin
# progress_stream: epochs the host runs (help-part-ucx.txt, "stream connections")
export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-32}
run() { # name b_stream-args...
    local name=$1
    shift
    bench_variant "$name" stream_ 'b_stream|\.(cu|h):[0-9]+' \
        mpirun -np 2 --bind-to none --mca part ucx "$build/b_stream" "$@"
}
for v in ${BENCH_VARIANTS:-traditional kernel_copy_host kernel_copy_stream kernel_copy_kernels kernel_copy_graph kernel_copy_graph_kstart kernel_copy_graph_nojoin kernel_copy_graph_kstart_nojoin progress_stream progress_kernels progress_graph ipc_limit ipc_limit_graph nccl}; do
    run "goodput-$v" goodput "$v" "$grids"
done
for v in ${BENCH_HRTT_VARIANTS:-stream kernels parrived kernels_graph kernels_graph_kstart kernels_graph_nojoin kernels_graph_kstart_nojoin parrived_graph parrived_graph_kstart host sendrecv nccl}; do
    run "hrtt-$v" hrtt "$v"
done
bench_machine "$out"
py=$(bench_python)
if [ -n "$py" ]; then
    "$py" "$here/bench/plot.py" "$csv" "$out" | tee "$out/tables.txt"
else
    python3 "$here/bench/stream_table.py" "$csv" | tee "$out/tables.txt"
    echo "bench: matplotlib missing; PNGs with: bench/plot.py $csv $out"
fi
[ -s "$out/errors.txt" ] || rm -f "$out/errors.txt"
echo "bench: $failures variant(s) failed"
[ "$failures" -eq 0 ]
