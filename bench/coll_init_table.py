#!/usr/bin/env python3
"""Table of bench/b_coll_init.c's CSV: per kind and np, the init time and
memory per rank and request, each also divided by n and by n log2 n (the
bound the init must stay within: a column that grows with n means faster
than that). Plain python; --plot PYTHON draws OUTDIR/coll-init.png with a
python that has matplotlib.
  bench/coll_init_table.py CSV OUTDIR [--plot PYTHON]"""
import csv
import math
import subprocess
import sys


def main():
    path, outdir = sys.argv[1], sys.argv[2]
    rows = list(csv.DictReader(open(path)))
    kinds = sorted({r["kind"] for r in rows})
    for kind in kinds:
        rs = sorted((r for r in rows if r["kind"] == kind), key=lambda r: int(r["np"]))
        print(f"{kind}: per rank and request (slowest rank, median of repetitions)")
        print(f"{'np':>4} {'init us':>9} {'/n':>7} {'/nlogn':>7} {'cpu us':>8} {'/n':>7} "
              f"{'/nlogn':>7} {'epoch us':>9} "
              f"{'heap B':>9} {'/n':>7} {'/nlogn':>7} {'rss KiB':>8} {'first KiB':>9}")
        for r in rs:
            n = int(r["np"])
            nl = n * max(1.0, math.log2(n))
            ti, tc, heap = float(r["init_us"]), float(r["init_cpu_us"]), float(r["heap_bytes"])
            print(f"{n:>4} {ti:>9.1f} {ti / n:>7.2f} {ti / nl:>7.2f} {tc:>8.1f} {tc / n:>7.2f} "
                  f"{tc / nl:>7.2f} {float(r['epoch_us']):>9.1f} "
                  f"{heap:>9.0f} {heap / n:>7.0f} {heap / nl:>7.0f} {float(r['rss_kib']):>8.1f} "
                  f"{float(r['rss_first_kib']):>9.1f}")
        print()
    if len(sys.argv) > 4 and sys.argv[3] == "--plot":
        subprocess.run([sys.argv[4], "-c", PLOT, path, outdir], check=True)


PLOT = r"""
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
fig, ax = plt.subplots(1, 2, figsize=(10, 4))
for kind in sorted({r["kind"] for r in rows}):
    rs = sorted((r for r in rows if r["kind"] == kind), key=lambda r: int(r["np"]))
    n = [int(r["np"]) for r in rs]
    ax[0].plot(n, [float(r["init_us"]) for r in rs], "o-", label=kind)
    ax[1].plot(n, [float(r["heap_bytes"]) / 1024 for r in rs], "o-", label=kind)
for a, t in zip(ax, ["init time per rank (us)", "heap per rank and request (KiB)"]):
    a.set_xscale("log", base=2); a.set_yscale("log"); a.set_xlabel("ranks"); a.set_title(t)
    a.legend()
fig.tight_layout()
fig.savefig(sys.argv[2] + "/coll-init.png", dpi=120)
"""

if __name__ == "__main__":
    main()
