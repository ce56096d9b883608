#!/usr/bin/env python3
"""The rows of b_coll_gpu runs labelled by BENCH_LABEL (component ROW-LABEL),
one column a label, every round's value (us an epoch) side by side:
    bench/label_table.py RESULTS.csv [...]"""
import collections, csv, re, sys

t = collections.defaultdict(lambda: collections.defaultdict(list))
for path in sys.argv[1:]:
    for r in csv.reader(open(path)):
        if len(r) < 6 or not r[2].isdigit():
            continue
        row, _, label = r[1].partition("-")
        t[(row, int(r[3]), int(r[2]))][label or "-"].append(float(r[4]))
labels = sorted({l for v in t.values() for l in v},
                key=lambda l: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", l)])
cells = {k: ["/".join(f"{x:.1f}" for x in v[l]) or "-" for l in labels] for k, v in t.items()}
w = max([12] + [len(l) + 2 for l in labels] + [len(c) + 2 for v in cells.values() for c in v])
print(f"{'row':>20} {'np':>3} {'grid':>6}" + "".join(f"{l:>{w}}" for l in labels))
for key in sorted(t):
    print(f"{key[0]:>20} {key[1]:>3} {key[2]:>6}" + "".join(f"{c:>{w}}" for c in cells[key]))
