#!/usr/bin/env python3
"""The table of an A/B of bench/b_coll_gpu (twoshot2-ab/ab.sh, units8-ab/ab.sh).

    ab_coll_table.py AB.TXT LABEL_A LABEL_B

AB.TXT lines: LABEL,ROUND,npN,gallreduce,VARIANT,GRID,RANKS,US,us. Prints,
per np, variant and grid, each round's time under A and B and the ratio of
the best of B to the best of A."""
import collections
import sys

path, la, lb = sys.argv[1:4]
t = collections.defaultdict(list)
for line in open(path):
    f = line.strip().split(',')
    if len(f) < 8 or f[3] != 'gallreduce':
        continue
    t[(f[2], f[4], int(f[5]), f[0])].append(float(f[7]))
print('%-5s %-22s %7s %18s %18s %7s' % ('np', 'variant', 'grid', la + ' us', lb + ' us',
                                         lb + '/' + la))
for k in sorted({k[:3] for k in t}):
    a, b = t.get(k + (la,), []), t.get(k + (lb,), [])
    r = (min(b) / min(a)) if a and b else float('nan')
    print('%-5s %-22s %7d %18s %18s %7.3f' % (k[0], k[1], k[2], ' / '.join('%.2f' % x for x in a),
                                              ' / '.join('%.2f' % x for x in b), r))
