#!/usr/bin/env python3
"""The last traced epoch of every rank, unit by unit (bench/trace/README.md):

  units_timeline.py DIR NP [--all]

DIR holds a grid's traces (bench/trace/run.sh's OUTDIR/gG): the engine's
gt.R ("GU k e peers moved told", "GB b e start finished" lines, and
after mode's gate, "GG b e entry waited left") and the
application's at.R of each rank R < NP. For each rank: the application
kernel of that epoch (the record whose start is nearest the rank's first
engine block: its start and its last MPIX_Pready), the gate's blocks
(entry, producer complete, left) where there is one, its engine blocks'
start and finish, and then every unit's stamps (peers' readiness seen,
moved, told) on every rank, in us from rank 0's first engine block; about
twenty units, evenly spread, unless --all. Ranks on different GPUs have
different clocks: read their lines one rank at a time."""
import sys


def load(d, r):
    units, blocks, gates, app = {}, {}, {}, []
    with open(f"{d}/gt.{r}", "rb") as f:
        for line in f.read().decode("latin1").splitlines():
            x = line.split()
            try:
                if x and x[0] == "GU" and len(x) == 6:
                    units[int(x[1])] = [int(v) for v in x[2:]]
                elif x and x[0] == "GB" and len(x) == 5:
                    blocks[int(x[1])] = [int(v) for v in x[2:]]
                elif x and x[0] == "GG" and len(x) == 6:
                    gates[int(x[1])] = [int(v) for v in x[2:]]
            except ValueError:
                pass
    with open(f"{d}/at.{r}", "rb") as f:
        for line in f.read().decode("latin1").splitlines():
            x = line.split()
            if len(x) == 6 and x[0] == "AT":
                try:
                    app.append([int(v) for v in x[1:]])
                except ValueError:
                    pass
    if not units or not blocks:
        sys.exit(f"{d}/gt.{r}: no unit records (a plugin traced before they existed?)")
    e = max(v[0] for v in blocks.values())
    units = {k: v[1:] for k, v in units.items() if v[0] == e}
    blocks = {b: v[1:] for b, v in blocks.items() if v[0] == e}
    gates = {b: v[1:] for b, v in gates.items() if v[0] == e}
    return e, units, blocks, gates, app


def main(argv):
    show_all = "--all" in argv
    argv = [a for a in argv if a != "--all"]
    if len(argv) != 3:
        sys.exit(__doc__)
    d, n = argv[1], int(argv[2])
    ranks = [load(d, r) for r in range(n)]
    base = min(v[0] for v in ranks[0][2].values())
    us = lambda t: (t - base) / 1e3 if t else float("nan")
    for r, (e, units, blocks, gates, app) in enumerate(ranks):
        first = min(v[0] for v in blocks.values())
        line = f"rank {r}, epoch {e}:"
        if app:
            a = min(app, key=lambda v: abs(v[1] - first))
            line += f" application kernel {us(a[1]):.1f} .. last MPIX_Pready {us(a[4]):.1f};"
        if gates:
            g = list(gates.values())
            line += (f" gate ({len(g)} blocks) entry {us(min(v[0] for v in g)):.1f},"
                     f" producer done {us(max(v[1] for v in g)):.1f},"
                     f" left {us(max(v[2] for v in g)):.1f};")
        line += (f" engine blocks start {us(first):.1f} .. {us(max(v[0] for v in blocks.values())):.1f},"
                 f" finish {us(min(v[1] for v in blocks.values())):.1f} .."
                 f" {us(max(v[1] for v in blocks.values())):.1f}; {len(units)} units, {len(blocks)} blocks")
        print(line)
    ks = sorted(ranks[0][1])
    if not show_all and len(ks) > 22:
        step = len(ks) // 22
        ks = ks[::step] + ([ks[-1]] if ks[-1] not in ks[::step] else [])
    print("unit  " + " | ".join(f"r{r}: peers  moved   told" for r in range(n)))
    for k in ks:
        cells = []
        for r in range(n):
            v = ranks[r][1].get(k)
            cells.append(" ".join(f"{us(x):6.1f}" for x in v) if v else "     -      -      -")
        print(f"{k:4d}  " + " | ".join(cells))


if __name__ == "__main__":
    main(sys.argv)
