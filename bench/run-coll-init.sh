#!/usr/bin/env bash
# Init cost of partitioned collectives against the number of ranks
# (bench/b_coll_init.c): MPIX_Palltoall_init and MPIX_Pallreduce_init,
# time and memory per rank, oversubscribed where np exceeds the cores.
#   bench/run-coll-init.sh [OUTDIR]   (default bench/results/coll-init-$(hostname -s))
#   BENCH_NPS="2 4 8 16 32 64"  BENCH_REPS=5  BENCH_KEEP=8
# Writes OUTDIR/coll-init.csv, OUTDIR/coll-init.txt (table with the
# growth against n and n log2 n) and, with matplotlib, coll-init.png.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tools/env.sh"
. "$here/bench/common.sh"
out=${1:-$here/bench/results/coll-init-$(hostname -s)}
mkdir -p "$out"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
mpicc -O2 -Wall -Wextra -o "$build/b_coll_init" "$here/bench/b_coll_init.c"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_component_show_load_errors=0
nps=${BENCH_NPS:-"2 4 8 16 32 64"}
reps=${BENCH_REPS:-5}
keep=${BENCH_KEEP:-8}
limit=${BENCH_TIMEOUT:-300}
csv=$out/coll-init.csv
echo "bench,kind,np,init_us,init_cpu_us,epoch_us,heap_bytes,rss_kib,rss_first_kib" > "$csv"
rm -f "$out/errors.txt"
for np in $nps; do
    timeout "$limit" mpirun -np "$np" --oversubscribe --bind-to none --mca part ucx \
        "$build/b_coll_init" alltoall,allreduce "$reps" "$keep" | tr -d '\000' |
        grep -a '^coll_init,' | tee -a "$csv" ||
        echo "bench: np $np failed or ran past ${limit}s" | tee -a "$out/errors.txt" >&2
done
bench_machine "$out"
py=$(bench_python)
python3 "$here/bench/coll_init_table.py" "$csv" "$out" ${py:+--plot "$py"} | tee "$out/coll-init.txt"
