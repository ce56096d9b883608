import sys, re, statistics as st
for fn in sys.argv[1:]:
    L = open(fn, 'rb').read().decode('latin1').splitlines()
    pt = {}; gt = {}; gl = {}
    for l in L:
        f = l.split()
        if not f: continue
        try:
          if f[0] == 'GT' and (len(f) != 14 or not f[13].startswith('ub')): continue
          if f[0] == 'PT' and len(f) != 5: continue
          if f[0] == 'GL' and len(f) != 4: continue
          int(f[-1]) if f[0] != 'GT' else [int(x) for x in f[1:12]]
        except ValueError: continue
        if f[0] == 'PT': pt[(int(f[1]), int(f[2]))] = (int(f[3]), int(f[4]))
        elif f[0] == 'GT': gt.setdefault((int(f[1]), int(f[2])), []).append([int(x) for x in f[4:12]] + [f[12], f[13]])
        elif f[0] == 'GL': gl[(int(f[1]), int(f[2]))] = int(f[3])
    eps = sorted(set(e for (_, e) in gt))
    print("==", fn, "units", gt[(0, eps[0])][0][8:] if eps else None)
    prev_end = None
    for e in eps:
        t0 = min([v[0] for (r, ee), v in pt.items() if ee == e] + [b[0] for (r, ee), v in gt.items() if ee == e for b in v])
        rel = lambda t: (t - t0) / 1000.0
        for r in (0, 1):
            if (r, e) not in gt: continue
            B = gt[(r, e)]
            p = pt.get((r, e), (t0, t0))
            cols = list(zip(*[b[:8] for b in B]))
            names = ['entry', 'epoch', 'ownrdy', 'peerrdy', 'moved', 'told', 'finish', 'end']
            s = " ".join("%s %.1f/%.1f" % (n, rel(min(c)), rel(max(c))) for n, c in zip(names, cols))
            print("e%d r%d prod %.1f-%.1f | %s | GL %.1f" % (e, r, rel(p[0]), rel(p[1]), s, rel(gl.get((r, e), t0))))
        if prev_end is not None:
            print("   gap from previous epoch's last GL to this epoch's first event: %.1f us" % ((t0 - prev_end) / 1000))
        prev_end = max(gl.get((r, e), 0) for r in (0, 1))
