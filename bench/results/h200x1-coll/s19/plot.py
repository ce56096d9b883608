#!/usr/bin/env python3
"""Session 19, call E: kernel + allreduce in graphs (stream-ordered rows too),
the default against the stream-ordered marks (after mode + info
mpix_stream_kernels), beside the limits measured in the same call; best of
two rounds. Writes table.txt and marks.png next to this file:
    python3 bench/results/h200x1-coll/s19/plot.py"""
import collections, csv, os
here = os.path.dirname(os.path.abspath(__file__))
lim = {}
for r in csv.reader(open(f"{here}/e/mps-limits.csv")):
    lim[(r[1], int(r[3]), int(r[2]))] = float(r[4])
d = collections.defaultdict(list)
for r in csv.reader(open(f"{here}/e/mps-marks.csv")):
    kind, _, lab = r[1].partition("-")
    d[(kind, lab.rsplit("-r", 1)[0], int(r[3]), int(r[2]))].append(float(r[4]))
grids = sorted({k[3] for k in d})
lines = ["us an epoch (x the kernel + copy limit); 4 KiB a block, one H200, ranks under MPS"]
for np_ in (2, 4):
    lines.append(f"np {np_}: " + "  ".join(f"{g}" for g in grids))
    for kind in ("partitioned_stream", "partitioned_graph"):
        for v in ("base", "marks"):
            cells = []
            for g in grids:
                m = min(d[(kind, v, np_, g)])
                cells.append(f"{m:.1f} ({m / lim[('kernel_copy_limit', np_, g)]:.2f})")
            lines.append(f"  {kind[12:]:6} {v:5} " + "  ".join(cells))
    lines.append("  kernel_alone " + "  ".join(f"{lim[('kernel_alone', np_, g)]:.1f}" for g in grids))
    lines.append("  kernel+copy  " + "  ".join(f"{lim[('kernel_copy_limit', np_, g)]:.1f}" for g in grids))
open(f"{here}/table.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    raise SystemExit("no matplotlib: table.txt only")
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
for ax, np_ in zip(axes, (2, 4)):
    mib = [g * 4096 / 2**20 for g in grids]
    for kind, v, style, name in (("partitioned_graph", "base", "o-", "default, graph"),
                                 ("partitioned_graph", "marks", "s-", "marks (after mode + mpix_stream_kernels), graph"),
                                 ("partitioned_stream", "marks", "s--", "marks, stream-ordered")):
        ax.plot(mib, [min(d[(kind, v, np_, g)]) for g in grids], style, label=name)
    ax.plot(mib, [lim[("kernel_copy_limit", np_, g)] for g in grids], "k:", label="limit: kernel + copy")
    ax.plot(mib, [1.3 * lim[("kernel_copy_limit", np_, g)] for g in grids], color="grey", lw=0.8, label="1.3x the limit")
    ax.plot(mib, [lim[("kernel_alone", np_, g)] for g in grids], "k-.", lw=0.8, label="kernel alone")
    ax.set_xscale("log", base=2); ax.set_yscale("log")
    ax.set_xlabel("allreduce size [MiB]"); ax.set_ylabel("time per epoch [us]")
    ax.set_title(f"kernel + allreduce, {np_} ranks on one H200 (MPS)", fontsize=9)
    ax.grid(True, which="both", alpha=0.3); ax.legend(fontsize=6)
fig.tight_layout()
fig.savefig(f"{here}/marks.png", dpi=120)
