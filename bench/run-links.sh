#!/usr/bin/env bash
# Kernels moving large data between GPUs 0 and 1, both directions at once
# (bench/b_links.cu: loads from the peer, stores into it, a pulled sum,
# and the copy engines), one process:
#   bench/run-links.sh [OUTDIR]   (default bench/results/links-$(hostname -s))
#   BENCH_LINKS_BYTES=67108864    bytes a direction
#   BENCH_LINKS_BLOCKS=8,...      blocks a side (default 8, 16, 32, 64, 132)
#   BENCH_LINKS_U=1,2,4           16-byte chunks a thread in flight
# Writes OUTDIR/results.csv, OUTDIR/tables.txt (GB/s a direction, one
# column a chunk count: bench/label_table.py), OUTDIR/links.png
# (bench/plot.py), machine.txt, and errors.txt where a move delivered
# wrong data.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/bench/results/links-$(hostname -s)}
mkdir -p "$out"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
"${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -O3 -std=c++17 -arch=sm_90 -o "$build/b_links" \
    "$here/bench/b_links.cu" || exit 1
{ nvidia-smi -L; nvidia-smi topo -m; } > "$out/machine.txt" 2>&1
echo "bench,component,param1,param2,value,unit" > "$out/results.csv"
timeout "${BENCH_TIMEOUT:-300}" "$build/b_links" "${BENCH_LINKS_BYTES:-67108864}" \
    "${BENCH_LINKS_BLOCKS:-8,16,32,64,132}" "${BENCH_LINKS_U:-1,2,4}" \
    2> "$out/errors.txt" | tee "$out/raw.txt" | grep -a '^links,' >> "$out/results.csv"
rc=${PIPESTATUS[0]}
{ echo "GB/s a direction, both directions at once (the grid column: blocks a side; copy: the copy engines)"
  python3 "$here/bench/label_table.py" "$out/results.csv"; } > "$out/tables.txt"
python3 "$here/bench/plot.py" "$out/results.csv" "$out" > /dev/null
cat "$out/tables.txt" "$out/errors.txt"
exit "$rc"
