#!/usr/bin/env python3
"""ab.txt (ab.sh) -> the mean of the rounds per tag, variant and grid, and
the ratios v1/v0 (GPU-scope over system-scope fences) and new/old (the
benchmark's epoch read), goodput or time.  ab_table.py ab.txt"""
import collections, sys

vals = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if len(f) < 8 or f[2] not in ("stream_goodput", "stream_hrtt"):
        continue
    tag, var = f[0], f[3].rsplit("-", 1)[0]
    key = f[4] if f[2] == "stream_goodput" else "hrtt"
    vals[(tag, var, key)].append(float(f[6]))

def mean(k):
    v = vals.get(k)
    return sum(v) / len(v) if v else None

def grids(var, tags):
    ks = {k[2] for k in vals if k[1] == var and k[0] in tags}
    return sorted(ks, key=lambda g: (g == "hrtt", int(g) if g.isdigit() else 0))

print("kernel copy, system (v0) vs GPU-scope (v1) fences; limit = ipc_limit")
print(f"{'variant':28} {'grid':>6} {'v0':>10} {'v1':>10} {'v1/v0':>7} {'limit':>9} {'v1/limit':>8}")
for var in ("kernel_copy_graph", "kernel_copy_kernels", "kernels_graph_kstart", "kernels",
            "parrived_graph_kstart"):
    for g in grids(var, ("v0", "v1")):
        a, b = mean(("v0", var, g)), mean(("v1", var, g))
        lim = mean(("limit", "ipc_limit", g))
        unit = "us" if g == "hrtt" else "GB/s"
        print(f"{var:28} {g:>6} {a:10.3f} {b:10.3f} {b / a:7.3f} "
              + (f"{lim:9.3f} {b / lim:8.2f}" if lim and g != "hrtt" else f"{'':9} {'':8}") + f"  {unit}")
print()
print("the benchmark's graph epochs: volatile epoch read (old) vs read-only cache (new), GB/s")
for var in ("ipc_limit_graph", "kernel_copy_graph"):
    for g in grids(var, ("old", "new")):
        a, b = mean(("old", var, g)), mean(("new", var, g))
        lim = mean(("limit", "ipc_limit", g))
        print(f"{var:28} {g:>6} {a:10.3f} {b:10.3f} {b / a:7.3f} {lim:9.3f} {b / lim:8.2f}")
