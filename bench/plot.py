#!/usr/bin/env python3
"""Plot bench/run.sh's CSV the way the papers' figures do, and print a table.
usage: plot.py results.csv OUTDIR"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
out = sys.argv[2]
by = defaultdict(list)
for r in rows:
    by[r["bench"]].append(r)
styles = {"ucx": ("tab:blue", "o"), "persist": ("tab:orange", "s"), "sendrecv": ("tab:gray", "^")}


def style(ax, xlabel, ylabel, title, logy):
    """Every panel: log2 x axis, labels, grid."""
    ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)


def finish(fig, ax, xlabel, ylabel, title, path, logy, **legend):
    """The common end of every one-panel figure: style, legend, PNG."""
    style(ax, xlabel, ylabel, title, logy)
    ax.legend(**legend)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def table(name, rows, keys):
    print(f"\n{name}")
    print("  ".join(f"{k:>12}" for k in keys))
    for r in rows:
        print("  ".join(f"{r[k]:>12}" for k in keys))


# MPI_Parrived cost vs partitions (seed 004, Fig. 5)
if by["parrived"]:
    fig, ax = plt.subplots(figsize=(6, 4))
    for comp in ("ucx", "persist"):
        pts = [(int(r["param1"]), float(r["value"])) for r in by["parrived"] if r["component"] == comp and r["param2"] == "miss"]
        if pts:
            pts.sort()
            c, m = styles[comp]
            ax.plot(*zip(*pts), marker=m, color=c, label=f"part/{comp}")
    finish(fig, ax, "partitions (one polling thread each)", "time per MPI_Parrived while waiting [ns]", "MPI_Parrived polling cost", f"{out}/parrived.png", True)
    table("MPI_Parrived [ns]", by["parrived"], ["component", "param1", "param2", "value"])
    miss = {(r["component"], int(r["param1"])): float(r["value"]) for r in by["parrived"] if r["param2"] == "miss"}
    print("\nMPI_Parrived while waiting: part/persist / part/ucx (target >= 50)")
    for n in sorted({k[1] for k in miss}):
        if ("ucx", n) in miss and ("persist", n) in miss:
            print(f"{n:>12}  {miss[('persist', n)] / miss[('ucx', n)]:12.1f}x")

# Latency and bandwidth vs size, one line per component and partition count
for bench, ylabel, fname in (("latency", "half round trip [us]", "latency.png"),
                             ("bandwidth", "bandwidth [MB/s]", "bandwidth.png")):
    if not by[bench]:
        continue
    fig, ax = plt.subplots(figsize=(7, 4.5))
    series = defaultdict(list)
    for r in by[bench]:
        series[(r["component"], r["param2"])].append((int(r["param1"]), float(r["value"])))
    for (comp, parts), pts in sorted(series.items()):
        pts.sort()
        c, m = styles.get(comp, ("black", "x"))
        label = "MPI_Send/Recv" if comp == "sendrecv" else f"part/{comp}, {parts} part."
        alpha = 0.4 + 0.6 * (1 if comp == "sendrecv" else min(1.0, 1.0 / (1 + [1, 4, 16, 64].index(int(parts)) if int(parts) in (1, 4, 16, 64) else 1)))
        ax.plot(*zip(*pts), marker=m, color=c, alpha=alpha, label=label)
    finish(fig, ax, "message size [bytes]", ylabel, f"partitioned {bench}", f"{out}/{fname}", True, fontsize=7, ncol=2)
    table(f"{bench}", by[bench], ["component", "param1", "param2", "value"])

# Bandwidth vs number of UCP workers (seed 004), one line per transfer and size
if by["workers"]:
    fig, ax = plt.subplots(figsize=(6, 4))
    series = defaultdict(list)
    for r in by["workers"]:
        series[(r["component"], r["param2"])].append((int(r["param1"]), float(r["value"])))
    for (comp, what), pts in sorted(series.items()):
        pts.sort()
        size, parts = what.split("/")
        ax.plot(*zip(*pts), marker="o", label=f"part/{comp}, {int(size) >> 10} KiB, {parts} part.")
    finish(fig, ax, "UCP workers (part_ucx_num_workers)", "bandwidth [MB/s]", "partitioned bandwidth vs workers", f"{out}/workers.png", False, fontsize=7)
    table("bandwidth vs workers [MB/s]", by["workers"], ["component", "param1", "param2", "value"])

if by["overhead"]:
    table("overheads [us]", by["overhead"], ["component", "param1", "value"])

# GPU: goodput vs grid size (seed 000, Figs. 4-5), one line per mechanism and path
if by["goodput"]:
    fig, ax = plt.subplots(figsize=(6.5, 4))
    series = defaultdict(list)
    for r in by["goodput"]:
        series[r["component"]].append((int(r["param1"]), float(r["value"])))
    for comp, pts in sorted(series.items()):
        pts.sort()
        ax.plot(*zip(*pts), marker="o", linestyle="--" if "tcp" in comp else "-", label=comp)
    finish(fig, ax, "grid size (blocks of 1024 threads, 8 B per thread)", "goodput [GB/s]", "vector add + transfer: goodput", f"{out}/goodput.png", True, fontsize=7)
    table("goodput [GB/s]", by["goodput"], ["component", "param1", "value"])
    gp = {(r["component"], int(r["param1"])): float(r["value"]) for r in by["goodput"]}
    for path in sorted({c.split("-", 1)[1] for c, _ in gp}):
        print(f"\nspeedup over traditional ({path}): grid, progress, kernel_copy")
        for g in sorted({k[1] for k in gp}):
            base = gp.get((f"traditional-{path}", g))
            if base:
                pe = gp.get((f"progress-{path}", g), 0) / base
                kc = gp.get((f"kernel_copy-{path}", g), 0) / base
                print(f"{g:>8}  {pe:8.2f}x  {kc:8.2f}x")

# GPU: MPIX_Pready cost per aggregation level (seed 000, Fig. 3)
if by["pready"]:
    fig, ax = plt.subplots(figsize=(6, 4))
    series = defaultdict(list)
    for r in by["pready"]:
        series[r["component"]].append((int(r["param1"]), float(r["value"])))
    for comp, pts in sorted(series.items()):
        pts.sort()
        ax.plot(*zip(*pts), marker="o", label=comp if comp == "empty" else f"MPIX_Pready ({comp})")
    finish(fig, ax, "threads in the block", "kernel time [us]", "MPIX_Pready cost by aggregation level", f"{out}/pready.png", True, fontsize=7)
    table("MPIX_Pready kernel time [us]", by["pready"], ["component", "param1", "value"])

if by["doverhead"]:
    table("device request overheads [us]", by["doverhead"], ["component", "param1", "value"])

# Collectives, CPU: partitioned allreduce vs MPI_Allreduce, one panel per size
if by["callreduce"]:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    series = defaultdict(list)
    for r in by["callreduce"]:
        series[(r["component"], int(r["param2"]))].append((int(r["param1"]), float(r["value"])))
    for (comp, np_), pts in sorted(series.items()):
        pts.sort()
        ax.plot(*zip(*pts), marker="o" if comp.startswith("part") else "^",
                linestyle="-" if comp.startswith("part") else "--", label=f"{comp}, np {np_}")
    finish(fig, ax, "allreduce size [bytes]", "time per epoch [us]", "partitioned allreduce vs MPI_Allreduce (host buffers)", f"{out}/allreduce-cpu.png", True, fontsize=6, ncol=2)
    table("allreduce, host buffers [us]", by["callreduce"], ["component", "param1", "param2", "value"])
    t = {(r["component"].split("-")[0], int(r["param1"]), int(r["param2"])): float(r["value"]) for r in by["callreduce"]}
    print("\nMPI_Allreduce / partitioned (host buffers): size, np, ratio")
    for (comp, size, np_) in sorted(k for k in t if k[0] == "partitioned"):
        if ("MPI_Allreduce", size, np_) in t:
            print(f"{size:>10} {np_:>4}  {t[('MPI_Allreduce', size, np_)] / t[(comp, size, np_)]:8.2f}x")

# Collectives, GPU: kernel + allreduce vs grid size (seed 000, Figs. 6-7)
if by["gallreduce"]:
    # one panel per number of ranks; the one- and two-shot prototypes
    # (b_coll_oneshot) stay in the tables below, out of the figure
    series = defaultdict(list)
    for r in by["gallreduce"]:
        if r["component"].startswith(("oneshot_", "twoshot_")):
            continue
        series[(int(r["param2"]), r["component"])].append((int(r["param1"]), float(r["value"])))
    nps = sorted({k[0] for k in series})
    # one colour a component in every panel (more components than the
    # default cycle's ten); the limits dashed
    comps = sorted({k[1] for k in series})
    colour = {c: plt.get_cmap("tab20")(i % 20) for i, c in enumerate(comps)}
    fig, axes = plt.subplots(1, len(nps), figsize=(5.2 * len(nps) + 1.6, 4.2), squeeze=False)
    for ax, np_ in zip(axes[0], nps):
        for (n, comp), pts in sorted(series.items()):
            if n == np_:
                pts.sort()
                ax.plot(*zip(*pts), marker="o", color=colour[comp],
                        linestyle="--" if comp.startswith("kernel_") else "-", label=comp)
        style(ax, "grid size (blocks of 1024 threads, one float each)", "kernel + allreduce [us]",
              f"kernel + allreduce on GPU buffers, {np_} ranks", True)
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.tight_layout()
    fig.savefig(f"{out}/allreduce-gpu.png", dpi=120)
    table("kernel + allreduce, GPU buffers [us]", by["gallreduce"], ["component", "param1", "param2", "value"])
    t = {(r["component"], int(r["param1"]), int(r["param2"])): float(r["value"]) for r in by["gallreduce"]}
    # NCCL on the same footing: host-synchronized each epoch (nccl) for the
    # host-started partitioned, stream-ordered (nccl_stream) and graph
    # (nccl_graph) for their partitioned counterparts, where they ran
    print("\nspeedup of partitioned: variant, grid, ranks, over traditional, over nccl "
          "(partitioned: nccl, _stream: nccl_stream, _graph: nccl_graph; the nccl row where "
          "those did not run)")
    for (comp, g, np_) in sorted(k for k in t if k[0].startswith("partitioned")):
        tr = t.get(("traditional", g, np_))
        nc = t.get(("nccl" + comp[len("partitioned"):], g, np_)) or t.get(("nccl", g, np_))
        p = t[(comp, g, np_)]
        print(f"{comp:>18} {g:>8} {np_:>4}  {tr / p if tr else 0:8.2f}x  {nc / p if nc else 0:8.2f}x")
    print("\nthe GPU engine (partitioned: host-started, partitioned_stream: stream-ordered, "
          "partitioned_graph: stream-ordered epochs replayed from CUDA graphs) against "
          "the schedule engine, traditional and the two limits: grid, ranks, us, and "
          "it / kernel_copy_limit; issue 22's targets: <= 15 us at 1-64 blocks, <= 1.3x the "
          "limit at 4-64 MiB (1K-16K blocks) (* = missed)")
    parts = ("partitioned", "partitioned_stream", "partitioned_graph", "partitioned_stream_after",
             "partitioned_graph_after")
    parts = tuple(c for c in parts if any(k[0] == c for k in t))
    cols = parts + ("host_engine", "traditional", "kernel_alone", "kernel_copy_limit")
    print("(_after: stream-ordered epochs with the engine after the producers, "
          "part_ucx_coll_gpu_after_bytes and info mpix_stream_kernels)")
    print(f"{'grid':>8} {'np':>3}" + "".join(f"{c:>25}" for c in cols)
          + "".join(f"{c[len('partitioned'):].lstrip('_') or 'part':>14}" for c in parts) + "   (/limit)")
    for (g, np_) in sorted({(k[1], k[2]) for k in t if k[0] in cols}):
        cells = ""
        for c in cols:
            v = t.get((c, g, np_))
            miss = c.startswith("partitioned") and v is not None and g <= 64 and v > 15.0
            cells += f"{'-' if v is None else format(v, '.1f') + ('*' if miss else ''):>25}"
        lim = t.get(("kernel_copy_limit", g, np_))
        for c in parts:
            v = t.get((c, g, np_))
            q = v / lim if v and lim else None
            miss = q is not None and 1024 <= g <= 16384 and q > 1.3
            cells += f"{'-' if q is None else format(q, '.2f') + 'x' + ('*' if miss else ''):>14}"
        print(f"{g:>8} {np_:>3}" + cells)
    print("\nGPU-executed one-shot and two-shot (bench/b_coll_oneshot.cu, prototypes outside MPI's data path): "
          "variant, grid, ranks, us, partitioned / it, it / kernel_copy_limit")
    for (comp, g, np_) in sorted(k for k in t if k[0].startswith(("oneshot", "twoshot"))):
        p = t[(comp, g, np_)]
        he = t.get(("partitioned", g, np_))
        lim = t.get(("kernel_copy_limit", g, np_))
        print(f"{comp:>16} {g:>8} {np_:>4}  {p:8.1f}  {he / p if he else 0:8.2f}x  "
              f"{p / lim if lim else 0:8.2f}x")

if by["coverhead"]:
    table("MPIX_Pallreduce_init [us]", by["coverhead"], ["component", "param1", "param2", "value"])

# Applications (seed 000 Figs. 8-11): DL step time vs model size, Jacobi GFLOP/s
for bench, xlabel, ylabel, fname, logy in (
        ("dl", "model size (features, doubles)", "iteration time [us]", "dl.png", True),
        ("jacobi", "problem multiplier (NX 4096, NY 1024 x m)", "GFLOP/s", "jacobi.png", False)):
    if not by[bench]:
        continue
    fig, ax = plt.subplots(figsize=(6.5, 4))
    series = defaultdict(list)
    for r in by[bench]:
        series[(r["component"], int(r["param2"]))].append((int(r["param1"]), float(r["value"])))
    for (comp, np_), pts in sorted(series.items()):
        pts.sort()
        ax.plot(*zip(*pts), marker="o", label=f"{comp}, {np_} ranks")
    finish(fig, ax, xlabel, ylabel, bench, f"{out}/{fname}", logy, fontsize=7)
    table(bench, by[bench], ["component", "param1", "param2", "value"])

if by["limits"]:
    table("node limits", by["limits"], ["component", "value", "unit"])

def panels(rows, sep, label, xlabel, ylabel, logy, path, hline=None):
    """One panel a component prefix (before `sep`), one line a suffix (a
    number, labelled by label(n)): value vs param1; `hline` (value,
    label) drawn across every panel."""
    series = defaultdict(lambda: defaultdict(list))
    for r in rows:
        name, n = r["component"].rsplit(sep, 1)
        series[name][int(n)].append((int(r["param1"]), float(r["value"])))
    fig, axes = plt.subplots(1, len(series), figsize=(4.5 * len(series), 3.8), sharey=True)
    for ax, (name, lines) in zip(axes if len(series) > 1 else [axes], sorted(series.items())):
        for n, pts in sorted(lines.items()):
            pts.sort()
            ax.plot(*zip(*pts), marker="o", label=label(n))
        if hline:
            ax.axhline(hline[0], color="gray", linestyle=":", label=hline[1])
        style(ax, xlabel, ylabel, name, logy)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


# The GPU engine's exchange protocols alone (bench/run-lines.sh): us an
# epoch vs bytes, one panel a protocol, one line a block count
if by["lines"]:
    panels(by["lines"], "-b", lambda n: f"{n} blocks", "bytes an exchange", "us an epoch", True,
           f"{out}/lines.png")

# Kernels moving large data across the link (bench/run-links.sh): GB/s a
# direction vs blocks, one panel a mode, one line a chunk count; the copy
# engines' rate as a horizontal line in each
moves = [r for r in by["links"] if not r["component"].startswith("copy")]
if moves:
    copy = [float(r["value"]) for r in by["links"] if r["component"].startswith("copy")]
    panels(moves, "-u", lambda n: f"{n} x 16 B a thread", "blocks a side (512 threads)",
           "GB/s a direction", False, f"{out}/links.png",
           (copy[0], "copy engines") if copy else None)

# Stream-ordered epochs (bench/run-stream.sh): goodput vs grid per variant,
# the half round trips, and stream_table.py's ratios and targets
if by["stream_goodput"]:
    fig, ax = plt.subplots(figsize=(6.5, 4))
    series = defaultdict(list)
    for r in by["stream_goodput"]:
        series[r["component"]].append((int(r["param1"]), float(r["value"])))
    for comp, pts in sorted(series.items()):
        pts.sort()
        ax.plot(*zip(*pts), marker="o", linestyle=":" if comp.startswith("ipc_limit") else "-", label=comp)
    finish(fig, ax, "grid size (blocks of 1024 threads, 8 B per thread, one partition each)", "goodput [GB/s]", "vector add + transfer, stream-ordered vs host-driven", f"{out}/stream-goodput.png", True, fontsize=7)
if by["stream_hrtt"]:
    fig, ax = plt.subplots(figsize=(5, 3.5))
    names = [r["component"] for r in by["stream_hrtt"]]
    ax.bar(names, [float(r["value"]) for r in by["stream_hrtt"]])
    ax.set_ylabel("half round trip [us]")
    ax.set_title("one-block epoch (8 KiB), ping-pong")
    ax.tick_params(axis="x", labelsize=7)
    fig.tight_layout()
    fig.savefig(f"{out}/stream-hrtt.png", dpi=120)
if by["stream_goodput"] or by["stream_hrtt"]:
    sys.path.insert(0, __file__.rsplit("/", 1)[0] if "/" in __file__ else ".")
    from stream_table import report  # noqa: E402

    print(report(by["stream_goodput"] + by["stream_hrtt"] + by["stream_issue"] + by["stream_calls"]))

# UCX's device API vs part/ucx's kernel copy (bench/run-ucx-device.sh):
# goodput vs grid per variant, and ucx_device_table.py's ratios and registers
if by["ucxdev_goodput"]:
    fig, ax = plt.subplots(figsize=(6.5, 4))
    series = defaultdict(list)
    for r in by["ucxdev_goodput"]:
        if "+" not in r["component"]:  # kernel_copy_hostwords: a table only
            series[r["component"]].append((int(r["param1"]), float(r["value"])))
    for comp, pts in sorted(series.items()):
        pts.sort()
        ax.plot(*zip(*pts), marker="o", linestyle=":" if comp.startswith("memcpy_limit") else
                "--" if comp.startswith("kernel_copy") else "-", label=comp)
    finish(fig, ax, "grid size (blocks of 1024 threads, 8 KiB a block)", "goodput [GB/s]", "vector add + transfer: UCX device API vs kernel copy", f"{out}/ucxdev-goodput.png", True, fontsize=7)
# (the registers from the build's ptxas lines even where no variant ran)
ucxdev_ptxas = os.path.join(os.path.dirname(sys.argv[1]) or ".", "logs", "ptxas.txt")
if by["ucxdev_goodput"] or by["ucxdev_regs"] or os.path.exists(ucxdev_ptxas):
    sys.path.insert(0, __file__.rsplit("/", 1)[0] if "/" in __file__ else ".")
    from ucx_device_table import report as ucxdev_report  # noqa: E402

    print(ucxdev_report(by["ucxdev_goodput"] + by["ucxdev_regs"], ucxdev_ptxas))
