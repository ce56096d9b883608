#!/usr/bin/env bash
# Host benchmarks, side by side in one run: part/ucx vs part/persist (same
# install, same binary) vs MPI_Send/MPI_Recv. Writes CSV and PNG plots:
#   bench/run.sh [OUTDIR]        (default bench/results/$(hostname -s))
#   BENCH_QUICK=1                fewer sizes, for a smoke run
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tools/env.sh"
. "$here/bench/common.sh"
out=${1:-$here/bench/results/$(hostname -s)}
mkdir -p "$out"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
mpicc -O2 -Wall -Wextra -pthread -o "$build/b_part" "$here/bench/b_part.c"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_show_load_errors=0

if [ -n "${BENCH_QUICK:-}" ]; then
    sizes=8,4096,262144
    parts=1,8
    pparts=1,8,32
    wsizes=1048576
else
    sizes=8,64,512,4096,32768,262144,2097152,16777216,67108864
    parts=1,4,16,64
    pparts=1,2,4,8,16,32,64,128
    wsizes=1048576,16777216
fi

csv=$out/results.csv
echo "bench,component,param1,param2,value,unit" > "$csv"
rm -f "$out/errors.txt"
# Each run has a time limit: a component that hangs (part/persist with many
# polling threads) loses its rows, not the whole benchmark.
limit=${BENCH_TIMEOUT:-150}
mpi() { # component [mpirun args...] -- b_part args...
    local comp=$1; shift
    BENCH_COMPONENT=$comp timeout "$limit" mpirun -np 2 --bind-to none "$@" | tr -d '\000' | tee -a "$csv" ||
        echo "bench: $comp $* failed or ran past ${limit}s" | tee -a "$out/errors.txt" >&2
}
run() { # component b_part args...
    local comp=$1; shift
    mpi "$comp" --mca part "$comp" "$build/b_part" "$@"
}
for comp in ucx persist; do
    run "$comp" overhead
    run "$comp" parrived "$pparts"
    run "$comp" latency "$sizes" "$parts"
    run "$comp" bandwidth "$sizes" "$parts"
done
# Bandwidth against the number of UCP workers (seed 004), both transfers.
for xfer in auto put; do
    for w in 1 2 4 8; do
        BENCH_WORKERS=$w mpi "ucx-$xfer" -x BENCH_WORKERS --mca part ucx \
            --mca part_ucx_num_workers "$w" --mca part_ucx_transfer "$xfer" \
            "$build/b_part" workers "$wsizes" 64
    done
done
mpi sendrecv --mca part ucx "$build/b_part" sendrecv "$sizes"

bench_machine "$out"
bench_plot "$csv" "$out"
