#!/usr/bin/env bash
# The GPU engine's exchange protocols across GPUs on their own
# (bench/b_lines.cu: LL lines, LL128 lines, bulk stores with a release and a
# flag), one process on GPUs 0 and 1 (or both sides on GPU 0):
#   bench/run-lines.sh [OUTDIR]   (default bench/results/lines-$(hostname -s))
#   BENCH_LINES_BYTES=4096,...    bytes an exchange (default 4 KiB-1 MiB)
#   BENCH_LINES_BLOCKS=1,...      blocks a side (default 1, 4, 16, 32, 64)
# Writes OUTDIR/results.csv, OUTDIR/tables.txt (us an epoch, one column a
# block count: bench/label_table.py), OUTDIR/lines.png (bench/plot.py),
# machine.txt, and errors.txt where a protocol delivered wrong data (an
# LL128 line the link tore).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/common.sh"
bench_probe "$here/bench/b_lines.cu" "${1:-$here/bench/results/lines-$(hostname -s)}" lines \
    "exchange of BYTES (the grid column) between two GPUs, us an epoch, one column a block count" \
    "${BENCH_LINES_BYTES:-4096,16384,65536,262144,1048576}" "${BENCH_LINES_BLOCKS:-1,4,16,32,64}"
