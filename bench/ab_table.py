#!/usr/bin/env python3
"""Medians of bench/run-ab.sh's rounds, old vs new, as a table (stdout) and
OUTDIR/ab.png (new/old per row, with each side's spread)."""
import collections, csv, statistics, sys

rows = collections.defaultdict(list)
with open(sys.argv[1]) as f:
    for r in csv.DictReader(f):
        version, what = r["component"].split(":", 1)
        rows[(r["bench"], what.replace("-nvlink", ""), int(r["param1"]), int(r["param2"]), version,
              r["unit"])].append(float(r["value"]))
keys = sorted({k[:4] + (k[5],) for k in rows})
print(f"{'bench':8} {'path':12} {'p1':>7} {'p2':>9} {'old median [min-max]':>26} "
      f"{'new median [min-max]':>26} {'new/old':>8}")
labels, ratios = [], []
for b, what, p1, p2, unit in keys:
    old, new = rows.get((b, what, p1, p2, "old", unit)), rows.get((b, what, p1, p2, "new", unit))
    if not old or not new:
        continue
    mo, mn = statistics.median(old), statistics.median(new)
    cell = lambda v, m: f"{m:.4g} [{min(v):.4g}-{max(v):.4g}] {unit}"
    print(f"{b:8} {what:12} {p1:>7} {p2:>9} {cell(old, mo):>26} {cell(new, mn):>26} {mn / mo:8.3f}")
    labels.append(f"{b} {what} {p1}/{p2}")
    ratios.append(mn / mo)
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(labels) + 1.5))
    ax.barh(range(len(labels)), ratios, color="tab:blue")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_xlabel("new / old (median; goodput: higher is better, latency: lower is better)")
    fig.tight_layout()
    fig.savefig(f"{sys.argv[2]}/ab.png", dpi=120)
except ImportError:
    print("(no matplotlib: no plot)", file=sys.stderr)
