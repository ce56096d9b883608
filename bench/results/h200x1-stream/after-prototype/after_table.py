#!/usr/bin/env python3
"""next-s23.sh's rows as a table: after_table.py after.csv

Goodput (GB/s) of each variant and round by grid, and its ratio to
ipc_limit of the same round (issue 21's >= 0.9x; the prototypes' bar for
going into the component, 0.95x from 16384 blocks)."""
import sys
from collections import defaultdict

rows = defaultdict(dict)  # (variant, round) -> grid -> GB/s
for line in open(sys.argv[1], encoding="latin1"):
    f = line.strip().split(",")
    if len(f) >= 5 and f[0] == "stream_goodput":
        variant, _, rnd = f[1].rpartition("-")
        rows[(variant, rnd)][int(f[2])] = float(f[4])
grids = sorted({g for v in rows.values() for g in v})
print(f"{'variant':>24} {'round':>5}" + "".join(f"{g:>16}" for g in grids))
for (variant, rnd), by in sorted(rows.items()):
    lim = rows.get(("ipc_limit", rnd), {})
    cells = ""
    for g in grids:
        v = by.get(g)
        q = f" {v / lim[g]:.2f}x" if v and lim.get(g) else ""
        cells += f"{(format(v, '.1f') + q) if v else '-':>16}"
    print(f"{variant:>24} {rnd:>5}" + cells)
