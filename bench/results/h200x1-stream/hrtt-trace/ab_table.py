# new/old of ab-trace.sh's ab.txt (mean of the rounds): ab_table.py AB.TXT
import collections, sys
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    f = l.strip().split(',')
    if len(f) > 6 and f[0] in ('old', 'new') and f[2] in ('stream_hrtt', 'stream_goodput'):
        key = (f[2][7:], f[3], int(f[4]) if f[2] == 'stream_goodput' else 0)
        d[(key, f[0])].append(float(f[6]))
print(f"{'':8s} {'variant':34s} {'grid':>6s} {'old':>9s} {'new':>9s} {'new/old':>8s}")
for k in sorted(set(k for k, v in d)):
    o, n = d[(k, 'old')], d[(k, 'new')]
    if o and n:
        mo, mn = sum(o) / len(o), sum(n) / len(n)
        unit = 'us' if k[0] == 'hrtt' else 'GB/s'
        print(f"{k[0]:8s} {k[1]:34s} {k[2]:6d} {mo:9.3f} {mn:9.3f} {mn / mo:8.3f}  {unit}")
