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
. "$here/bench/common.sh"
bench_probe "$here/bench/b_links.cu" "${1:-$here/bench/results/links-$(hostname -s)}" links \
    "GB/s a direction, both directions at once (the grid column: blocks a side; copy: the copy engines)" \
    "${BENCH_LINKS_BYTES:-67108864}" "${BENCH_LINKS_BLOCKS:-8,16,32,64,132}" "${BENCH_LINKS_U:-1,2,4}"
