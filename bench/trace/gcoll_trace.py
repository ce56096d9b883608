#!/usr/bin/env python3
"""Where a GPU engine epoch's time goes, from one rank's two traces
(bench/trace/README.md):

  gcoll_trace.py ENGINE_TRACE APP_TRACE [--last N]

ENGINE_TRACE: the traced device plugin's "GT e t0..t7" lines
($PART_UCX_GCOLL_TRACE_FILE.<rank>); APP_TRACE: b_coll_gpu -DBENCH_TRACE's
"AT epoch t0 t1 part0 last" lines ($BENCH_TRACE_FILE.<rank>) of the graph
rows' kernels: block 0's start and return from MPIX_Pready, the latest
return among partition 0's blocks and among all (traces written before
these two stamps existed, "AT seq t0 t1", are read too). Each engine
epoch is paired with the application kernel that started nearest to it,
within 20 us (both follow the epoch's start; records of other collectives
of the process pair with none), and the phases are printed as medians
over the last N pairs (default 200), in us from the application kernel's
start, with the period between epochs and the gap from one epoch's end to
the next epoch's first kernel."""
import bisect
import statistics
import sys

APP_NAMES = ["application's MPIX_Pready returned", "partition 0's last MPIX_Pready",
             "application's last MPIX_Pready"]
NAMES = ["engine entry", "epoch read", "own ready", "peers ready", "moved",
         "told + done", "finished (block 0)", "end (last block)"]


def read(path, tag, *widths):
    """The tag's lines of any of these widths (numbers after the tag)."""
    rows = []
    with open(path, "rb") as f:
        for line in f.read().decode("latin1").splitlines():
            fields = line.split()
            if len(fields) - 1 in widths and fields[0] == tag:
                try:
                    rows.append([int(x) for x in fields[1:]])
                except ValueError:
                    pass
    return rows


def main(argv):
    last = 200
    if "--last" in argv:
        i = argv.index("--last")
        last = int(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) != 3:
        sys.exit(__doc__)
    engine = sorted((r for r in read(argv[1], "GT", 9) if r[1]), key=lambda r: r[1])
    app = sorted(read(argv[2], "AT", 3, 5), key=lambda r: r[1])
    if not engine or not app:
        sys.exit("no records (engine %d, application %d)" % (len(engine), len(app)))
    starts = [a[1] for a in app]
    pairs = []
    for g in engine:
        i = bisect.bisect_left(starts, g[1])
        near = [j for j in (i - 1, i) if 0 <= j < len(app)]
        j = min(near, key=lambda j: abs(starts[j] - g[1]))
        if abs(starts[j] - g[1]) <= 20000:
            pairs.append((app[j], g))
    if not pairs:
        sys.exit("no engine epoch began within 20 us of an application kernel")
    pairs = pairs[-last:]
    phases = {n: [] for n in APP_NAMES + NAMES}
    periods, gaps = [], []
    for k, (a, g) in enumerate(pairs):
        t0 = a[1]
        for n, t in list(zip(APP_NAMES, a[2:])) + list(zip(NAMES, g[1:])):
            if t:
                phases[n].append((t - t0) / 1e3)
        if k + 1 < len(pairs):
            nxt = min(pairs[k + 1][0][1], pairs[k + 1][1][1])
            periods.append((pairs[k + 1][0][1] - t0) / 1e3)
            if g[8]:
                gaps.append((nxt - g[8]) / 1e3)
    print("%d epochs (engine epochs %d-%d), us from the application kernel's start (median):"
          % (len(pairs), pairs[0][1][0], pairs[-1][1][0]))
    for n, v in phases.items():
        if v:
            print("  %-38s %8.2f" % (n, statistics.median(v)))
    if periods:
        print("  %-38s %8.2f" % ("period (next application kernel)", statistics.median(periods)))
    if gaps:
        print("  %-38s %8.2f" % ("gap: engine end -> next epoch's kernels", statistics.median(gaps)))


if __name__ == "__main__":
    main(sys.argv)
