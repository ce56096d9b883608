#!/usr/bin/env python3
"""Medians of the stamps of mktrace.py, per run: analyse.py PREFIX...
(PREFIX.<pid> of both ranks). Times in us relative to the sender's host
seeing the kernel's mark of the same epoch; 'period' is that mark's
spacing between epochs."""
import glob, statistics, sys
names = {0: "S begin (start seen)", 1: "S mark seen", 2: "S issue (rtr seen)",
         3: "S copy issued", 4: "S copy done", 5: "S done word",
         8: "R begin (start seen)", 9: "R rtr sent", 10: "R arrival", 11: "R done word"}
for prefix in sys.argv[1:]:
    ranks, passes = {}, []
    for f in glob.glob(prefix + ".*"):
        lines = open(f).read().split("\n")
        p = lines[0].split()
        passes.append((int(p[1]), int(p[3]), int(p[5])))
        for ln in lines[1:]:
            if ln.strip():
                v = list(map(int, ln.split()))
                ranks.setdefault(v[0], [0] * 16)
                for k, t in enumerate(v[1:]):
                    if t:
                        ranks[v[0]][k] = t
    eps = sorted(e for e, v in ranks.items() if e > 8 and v[1])
    print(f"== {prefix}: {len(eps)} epochs")
    for n, pns, bns in passes:
        if n:
            print(f"   progress thread: {n} passes, {pns / n:.0f} ns progress + {bns / n:.0f} ns begin a pass")
    for k, name in names.items():
        d = [(ranks[e][k] - ranks[e][1]) / 1e3 for e in eps if ranks[e][k]]
        if d:
            print(f"   {name:24s} {statistics.median(d):8.2f} us")
    per = [(ranks[e + 1][1] - ranks[e][1]) / 1e3 for e in eps if e + 1 in ranks and ranks[e + 1][1]]
    if per:
        print(f"   {'period':24s} {statistics.median(per):8.2f} us")
