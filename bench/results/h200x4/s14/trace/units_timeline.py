"""Per-rank timeline of one traced epoch (units-experiment.diff): the
application kernel's start and last MPIX_Pready (b_coll_gpu -DBENCH_TRACE,
the epoch whose start is nearest the engine's first block), the engine's
blocks' start and finish, and every unit's stamps (peers seen, moved,
told), in us from rank 0's first engine block."""
import sys
d, n = sys.argv[1], int(sys.argv[2])
ranks = []
for r in range(n):
    gu = [l.split() for l in open(f'{d}/gt.{r}', errors='replace') if l.startswith('GU ')]
    e = max(int(f[2]) for f in gu)
    U = {int(f[1]): [int(x) for x in f[3:6]] for f in gu if int(f[1]) < 4096 and int(f[2]) == e}
    B = {int(f[1]) - 4096: [int(x) for x in f[3:6]] for f in gu if int(f[1]) >= 4096 and int(f[2]) == e}
    at = [[int(x) for x in l.split()[1:]] for l in open(f'{d}/at.{r}', errors='replace') if l.startswith('AT')]
    ranks.append((e, U, B, at))
base = min(v[0] for v in ranks[0][2].values())
f = lambda t: (t - base) / 1e3
for r, (e, U, B, at) in enumerate(ranks):
    t0 = min(v[0] for v in B.values())
    v = min(at, key=lambda v: abs(v[1] - t0))
    print(f'rank {r}, epoch {e}: application kernel {f(v[1]):.1f} .. last MPIX_Pready {f(v[4]):.1f}; '
          f'engine blocks start {f(t0):.1f} .. {f(max(x[0] for x in B.values())):.1f}, '
          f'finish {f(min(x[1] for x in B.values())):.1f} .. {f(max(x[1] for x in B.values())):.1f}; '
          f'{len(U)} units on {len(B)} blocks')
ks = sorted(ranks[0][1])
step = max(1, len(ks) // 22)
print('unit ' + ' | '.join(f'r{r}: peers  moved   told' for r in range(n)))
for k in ks[::step] + ([ks[-1]] if ks[-1] not in ks[::step] else []):
    print(f'{k:4d} ' + ' | '.join(' '.join(f'{f(x):6.1f}' for x in ranks[r][1][k]) for r in range(n)))
