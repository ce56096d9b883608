# Median time of each stamp of an epoch, from rank 0's ping kernel entry:
#   analyse.py DIR   (DIR/trace-*-r0.txt and -r1.txt from ab-trace.sh, or .txt.xz)
import sys, glob, statistics, lzma
names = {1: 'wait enter', 2: 'wait epoch loaded', 3: 'wait done seen', 4: 'wait fenced',
         5: 'wait end', 11: 'start enter', 12: 'start end', 19: 'Pready enter',
         20: 'Pready counted+rtr', 21: 'Pready stored', 22: 'Pready marked',
         24: 'ping enter', 25: 'ping end', 26: 'pong enter', 27: 'pong end'}
for t in range(6, 11):
    names[t] = 'joined ' + names[t - 5]
d = sys.argv[1]
tr = []
for r in (0, 1):
    f = glob.glob(f'{d}/trace-*-r{r}.txt*')[0]
    m = {}
    for line in (lzma.open(f, 'rt') if f.endswith('.xz') else open(f)):
        s, tag, t = map(int, line.split())
        m[(s, tag)] = t
    tr.append(m)
slots = sorted(s for (s, tag) in tr[0] if tag == 24)
rows = {}
for s in slots:
    base = tr[0][(s, 24)]
    nxt = tr[0].get(((s + 1) % 1024, 24))
    if nxt is None or not 0 < nxt - base < 100000:
        continue
    for r in (0, 1):
        for (s2, tag), t in tr[r].items():
            if s2 == s and -20000 < t - base < 100000:
                rows.setdefault((r, tag), []).append((t - base) / 1000)
    rows.setdefault((0, 99), []).append((nxt - base) / 1000)
names[99] = 'next ping enter'
out = sorted(((statistics.median(v), r, tag, len(v)) for (r, tag), v in rows.items()))
print(f'{len(slots)} epochs; median us from rank 0 ping enter')
for med, r, tag, n in out:
    print(f'  rank {r}  {names.get(tag, tag):24s} {med:7.2f}   (n={n})')
