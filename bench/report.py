#!/usr/bin/env python3
"""Markdown report of a bench/run-all directory: our numbers beside the
papers' (seed 000, seed 004) and the node's limits.
usage: report.py OUTDIR   (writes OUTDIR/report.md)"""
import csv
import os
import sys

out = sys.argv[1]
rows = []
for part in ("host", "gpu", "stream", "ucxdev", "coll", "apps"):
    f = os.path.join(out, part, "results.csv")
    if os.path.exists(f):
        rows += [dict(r, part=part) for r in csv.DictReader(open(f))]


def pick(bench, comp=None, p1=None, p2=None):
    for r in rows:
        if r["bench"] == bench and (comp is None or r["component"] == comp) and \
                (p1 is None or r["param1"] == str(p1)) and (p2 is None or r["param2"] == str(p2)):
            return float(r["value"])
    return None


def fmt(v, unit=""):
    return "—" if v is None else f"{v:.3g}{unit}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def stream_limit_min():
    """The lowest ratio of stream-ordered kernel copy to the limit over grids."""
    q = [ratio(pick("stream_goodput", "kernel_copy_stream-nvlink", g),
               pick("stream_goodput", "ipc_limit-nvlink", g))
         for g in sorted({int(r["param1"]) for r in rows if r["bench"] == "stream_goodput"})]
    q = [x for x in q if x is not None]
    return min(q) if q else None


def ucxdev_lowest(variant, over="kernel_copy-nvlink"):
    """The lowest ratio over grids of a b_ucx_device variant to `over`."""
    q = [ratio(pick("ucxdev_goodput", f"{variant}-nvlink", g), pick("ucxdev_goodput", over, g))
         for g in sorted({int(r["param1"]) for r in rows if r["bench"] == "ucxdev_goodput"})]
    q = [x for x in q if x is not None]
    return min(q) if q else None


lines = ["# part/ucx: benchmark report", ""]
m = os.path.join(out, "machine.txt")
if os.path.exists(m):
    lines += ["```", open(m).read().strip(), "```", ""]

lines += ["## Node limits", "", "| limit | value |", "|---|---|"]
for what, unit in (("launch_sync", " us"), ("mark_copy_host", " us"), ("mark_copy_gated", " us"),
                   ("d2d_copy", " GB/s"), ("peer_copy", " GB/s"), ("gpus", "")):
    lines.append(f"| {what} | {fmt(pick('limits', what), unit)} |")

lines += ["", "## Beside the papers", "",
          "| metric | part/ucx | paper | target |", "|---|---|---|---|"]
table = [
    ("MPI_Psend_init/Precv_init [us]", pick("overhead", "ucx", "init"), "17.2", "< 8.6"),
    ("first MPIX_Pbuf_prepare, host [us]", pick("overhead", "ucx", "pbuf_prepare_first"), "193.4", "< 96.7"),
    ("later MPIX_Pbuf_prepare, host [us]", pick("overhead", "ucx", "pbuf_prepare_later"), "3.4", "< 1.7"),
    ("MPI_Parrived while waiting, persist/ucx at 16 partitions",
     ratio(pick("parrived", "persist", 16, "miss"), pick("parrived", "ucx", 16, "miss")), "—", ">= 50x"),
    ("MPIX_Prequest_create [us]", pick("doverhead", "nvlink", "prequest_create"), "110.7", "< 55"),
    ("first MPIX_Pbuf_prepare, GPU, mean of 20 new requests [us]",
     pick("doverhead", "nvlink", "pbuf_prepare_first"), "193.4", "< 96.7"),
    ("first MPIX_Pbuf_prepare, GPU, median of 20 new requests [us]",
     pick("doverhead", "nvlink", "pbuf_prepare_first_median"), "193.4", "< 96.7"),
    ("first MPIX_Pbuf_prepare, GPU, the process's first [us]",
     pick("doverhead", "nvlink", "pbuf_prepare_first_round0"), "—", "—"),
    ("later MPIX_Pbuf_prepare, GPU [us]", pick("doverhead", "nvlink", "pbuf_prepare_later"), "3.4", "< 1.7"),
    ("goodput kernel copy / traditional, 1 block",
     ratio(pick("goodput", "kernel_copy-nvlink", 1), pick("goodput", "traditional-nvlink", 1)), "2.34x", ">= 3x"),
    ("goodput progress / traditional, 64 blocks, NVLink",
     ratio(pick("goodput", "progress-nvlink", 64), pick("goodput", "traditional-nvlink", 64)), "—", ">= 1.5x"),
    ("goodput progress / traditional, 64 blocks, TCP",
     ratio(pick("goodput", "progress-tcp", 64), pick("goodput", "traditional-tcp", 64)), "—", ">= 2.8x"),
    ("goodput stream-ordered kernel copy / traditional, 1 block",
     ratio(pick("stream_goodput", "kernel_copy_stream-nvlink", 1),
           pick("stream_goodput", "traditional-nvlink", 1)), "—", ">= 3x"),
    ("goodput stream-ordered kernel copy / traditional, 64 blocks",
     ratio(pick("stream_goodput", "kernel_copy_stream-nvlink", 64),
           pick("stream_goodput", "traditional-nvlink", 64)), "—", ">= 3x"),
    ("goodput stream-ordered kernel copy / IPC copy limit, lowest over grids", stream_limit_min(),
     "—", ">= 0.9x"),
    ("goodput stream-ordered progress engine / traditional, 64 blocks",
     ratio(pick("stream_goodput", "progress_stream-nvlink", 64),
           pick("stream_goodput", "traditional-nvlink", 64)), "—", ">= 1.5x"),
    ("half round trip, one-block epoch, stream-ordered [us]", pick("stream_hrtt", "stream-nvlink"),
     "—", "<= 5"),
    ("goodput ucp_device_put block / our kernel copy loop, lowest over grids",
     ucxdev_lowest("ucx_put_block"), "—", ">= 1x to replace the loop"),
    ("goodput ucp_device_put warp / our kernel copy loop, lowest over grids",
     ucxdev_lowest("ucx_put_warp"), "—", ">= 1x to replace the loop"),
    ("goodput our kernel copy loop / copy engine limit (b_ucx_device), lowest over grids",
     ucxdev_lowest("kernel_copy", "memcpy_limit-nvlink"), "—", "—"),
    ("registers a thread, ucp_device_put block kernel", pick("ucxdev_regs", "ucx_put_block"),
     "—", "<= 32"),
    ("registers a thread, our kernel copy kernel (b_ucx_device)",
     pick("ucxdev_regs", "kernel_copy"), "—", "<= 32"),
    ("MPIX_Pready auto / block, 1024 threads",
     ratio(pick("pready", "auto", 1024), pick("pready", "block", 1024)), "—", "<= 1.1x"),
    ("MPIX_Pready thread / block, 1024 threads",
     ratio(pick("pready", "thread", 1024), pick("pready", "block", 1024)), "271.5x", "—"),
    ("MPIX_Pallreduce_init, host, np 2 [us]", pick("coverhead", "Pallreduce_init", 8, 2), "62.3", "< 31"),
    ("MPIX_Pallreduce_init, GPU, np 2, mean of 50 [us]",
     pick("coverhead", "Pallreduce_init-gpu", 32, 2), "62.3", "< 31"),
    ("MPIX_Pallreduce_init, GPU, np 2, median of 50 [us]",
     pick("coverhead", "Pallreduce_init-gpu-median", 32, 2), "62.3", "< 31"),
    ("kernel + allreduce, traditional / partitioned, 1 block",
     ratio(pick("gallreduce", "traditional", 1, 2), pick("gallreduce", "partitioned", 1, 2)), "—", ">= 10x"),
    ("kernel + allreduce, partitioned / NCCL, 1024 blocks (4 MiB)",
     ratio(pick("gallreduce", "partitioned", 1024, 2), pick("gallreduce", "nccl", 1024, 2)), "—", "<= 1.2x"),
    ("kernel + allreduce, partitioned / NCCL, 4096 blocks (16 MiB)",
     ratio(pick("gallreduce", "partitioned", 4096, 2), pick("gallreduce", "nccl", 4096, 2)), "—", "<= 1.2x"),
    ("Jacobi part / sendrecv GFLOP/s, multiplier 8",
     ratio(pick("jacobi", "part", 8, 2), pick("jacobi", "sendrecv", 8, 2)), "1.06x (1 node)", ">= 1.1x"),
    ("DL step mpi / part, 1M features",
     ratio(pick("dl", "mpi", 1048576, 2), pick("dl", "part", 1048576, 2)), "—", "—"),
    ("DL step part / nccl, 1M features",
     ratio(pick("dl", "part", 1048576, 2), pick("dl", "nccl", 1048576, 2)), "—", "—"),
]
for name, v, paper, target in table:
    lines.append(f"| {name} | {fmt(v)} | {paper} | {target} |")

lines += ["", "## Plots", ""]
for part in ("host", "gpu", "stream", "ucxdev", "coll", "apps"):
    d = os.path.join(out, part)
    if os.path.isdir(d):
        for png in sorted(f for f in os.listdir(d) if f.endswith(".png")):
            lines.append(f"![{part}/{png}]({part}/{png})")
open(os.path.join(out, "report.md"), "w").write("\n".join(lines) + "\n")
print(f"report: {os.path.join(out, 'report.md')}")
