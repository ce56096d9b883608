#!/usr/bin/env python3
"""Tables of bench/run-stream.sh (bench/b_stream.cu): goodput per variant and
grid, its ratios to the traditional path and to the node's limit with the
targets of issue 21, and the half round trips. Standard library only (the
GPU node may lack matplotlib; bench/plot.py prints the same beside its PNGs).
usage: stream_table.py results.csv"""
import csv
import sys

GOODPUT = ("traditional", "kernel_copy_host", "kernel_copy_stream", "kernel_copy_kernels",
           "kernel_copy_graph", "kernel_copy_graph_kstart", "kernel_copy_graph_nojoin",
           "kernel_copy_graph_kstart_nojoin", "kernel_copy_kernels_inkernel",
           "kernel_copy_graph_inkernel", "kernel_copy_kernels_after", "kernel_copy_graph_after",
           "progress_stream", "progress_kernels", "progress_graph",
           "ipc_limit", "ipc_limit_graph", "nccl")
HRTT = ("stream", "kernels", "parrived", "kernels_graph", "kernels_graph_kstart", "parrived_graph",
        "parrived_graph_kstart", "kernels_graph_nojoin", "kernels_graph_kstart_nojoin",
        "parrived_graph_nojoin", "parrived_graph_kstart_nojoin", "host", "sendrecv", "nccl")
HRTT_TARGETED = tuple(v for v in HRTT
                      if v not in ("host", "sendrecv", "nccl") and not v.endswith("_nojoin"))
SHORT = {"traditional": "trad", "kernel_copy_host": "kc_host", "kernel_copy_stream": "kc_stream",
         "kernel_copy_kernels": "kc_kern", "kernel_copy_graph": "kc_graph",
         "kernel_copy_graph_kstart": "kc_graph_k", "kernel_copy_graph_nojoin": "kc_graph_nj",
         "kernel_copy_graph_kstart_nojoin": "kc_graph_k_nj",
         "kernel_copy_kernels_inkernel": "kc_kern_ik", "kernel_copy_graph_inkernel": "kc_graph_ik",
         "kernel_copy_kernels_after": "kc_kern_af", "kernel_copy_graph_after": "kc_graph_af",
         "progress_stream": "pe_stream", "progress_kernels": "pe_kern", "progress_graph": "pe_graph", "ipc_limit": "limit", "ipc_limit_graph": "lim_graph",
         "nccl": "nccl"}
# Stream-ordered kernel copy: kernel_copy_stream, kernel_copy_kernels (info
# "mpix_stream_kernels") and kernel_copy_graph (the same, epochs replayed from
# a CUDA graph; _kstart: the graphs' starts are kernels, part_ucx_stream_graph_start
# kernel; _nojoin: every captured start a node of its own, part_ucx_stream_graph_join
# 0; _inkernel: the kernels copy at every size, part_ucx_stream_copy_after_bytes 0,
# shown beside the default, which copies after them from 1 MiB; _after: after
# them at every size, part_ucx_stream_copy_after_bytes 1); the limit is ipc_limit, issued each epoch as the issue defines it
# (ipc_limit_graph, its graph form, is shown beside it).
KC = ("kernel_copy_stream", "kernel_copy_kernels", "kernel_copy_graph", "kernel_copy_graph_kstart")
# (variant, over, grids it applies to (None: all), at least); NCCL's
# stream-ordered send/recv (issue 23, one rank per GPU) is a target where
# it ran: none of its rows under MPS, where NCCL refuses ranks sharing a GPU.
TARGETS = tuple((kc, "traditional", (1, 4, 16, 64), 3.0) for kc in KC) + \
    tuple((kc, "ipc_limit", None, 0.9) for kc in KC) + \
    tuple((kc, "nccl", None, 1.0) for kc in KC) + \
    (("progress_stream", "traditional", (1, 4, 16, 64), 1.5),
     ("progress_kernels", "traditional", (1, 4, 16, 64), 1.5),
     ("progress_graph", "traditional", (1, 4, 16, 64), 1.5))
HRTT_TARGET_US = 5.0


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def report(rows):
    """The tables as a string, from the CSV rows (dicts)."""
    gp, hr, iss, calls = {}, {}, {}, []
    for r in rows:
        variant, _, path = r["component"].partition("-")
        if r["bench"] == "stream_goodput":
            gp[(path, variant, int(r["param1"]))] = float(r["value"])
        elif r["bench"] == "stream_hrtt":
            hr[(path, variant)] = float(r["value"])
        elif r["bench"] == "stream_calls":
            calls.append((path, variant, int(r["param1"]), int(r["param2"]), r["value"]))
        elif r["bench"] == "stream_issue":
            iss[(path, variant, int(r["param1"]), int(r["param2"]))] = float(r["value"])
    out = []
    for path in sorted({k[0] for k in gp}):
        grids = sorted({k[2] for k in gp if k[0] == path})
        out += ["", f"stream-ordered goodput [GB/s] ({path})",
                f"{'grid':>8}" + "".join(f"{v:>20}" for v in GOODPUT)]
        for g in grids:
            out.append(f"{g:>8}" + "".join(f"{fmt(gp.get((path, v, g)), '.3f'):>20}" for v in GOODPUT))
        ratios = (("kernel_copy_host", "traditional"), ("kernel_copy_stream", "traditional"),
                  ("kernel_copy_kernels", "traditional"), ("kernel_copy_graph", "traditional"),
                  ("kernel_copy_graph_kstart", "traditional"),
                  ("kernel_copy_graph_nojoin", "traditional"),
                  ("kernel_copy_graph_kstart_nojoin", "traditional"),
                  ("progress_stream", "traditional"), ("progress_kernels", "traditional"),
                  ("progress_graph", "traditional"),
                  ("kernel_copy_stream", "ipc_limit"),
                  ("kernel_copy_kernels", "ipc_limit"), ("kernel_copy_graph", "ipc_limit"),
                  ("kernel_copy_graph_kstart", "ipc_limit"),
                  ("kernel_copy_graph", "ipc_limit_graph"),
                  ("kernel_copy_kernels_inkernel", "ipc_limit"),
                  ("kernel_copy_graph_inkernel", "ipc_limit"),
                  ("kernel_copy_graph_after", "traditional"),
                  ("kernel_copy_graph_after", "ipc_limit"), ("progress_stream", "ipc_limit"),
                  ("progress_kernels", "ipc_limit"), ("progress_graph", "ipc_limit_graph"),
                  ("kernel_copy_stream", "nccl"), ("kernel_copy_kernels", "nccl"),
                  ("kernel_copy_graph", "nccl"), ("kernel_copy_graph_kstart", "nccl"),
                  ("progress_stream", "nccl"))
        ratios = tuple((a, b) for a, b in ratios
                       if any(k[0] == path and k[1] in (a, b) for k in gp) and
                       (b != "nccl" or any(k[0] == path and k[1] == b for k in gp)))
        out += ["", f"ratios ({path}); targets: kernel_copy_stream, _kernels and _graph >= 3x "
                "traditional at 1-64 blocks, >= 0.9x ipc_limit and (where it ran) >= 1.0x nccl "
                "at every grid, "
                "progress_stream, _kernels and _graph >= 1.5x traditional at 1-64 blocks (* = missed); "
                "kc: kernel copy, pe: progress engine",
                f"{'grid':>8}" + "".join(f"{SHORT[a] + '/' + SHORT[b]:>18}" for a, b in ratios)]
        missed = 0
        for g in grids:
            cells = []
            for a, b in ratios:
                x, y = gp.get((path, a, g)), gp.get((path, b, g))
                q = x / y if x is not None and y else None
                miss = any(a == ta and b == tb and (tg is None or g in tg) and
                           (q is None or q < least) for ta, tb, tg, least in TARGETS)
                missed += miss
                cell = fmt(q, ".2f") + ("x" if q is not None else " ") + ("*" if miss else " ")
                cells.append(f"{cell:>18}")
            out.append(f"{g:>8}" + "".join(cells))
        out.append(f"targets missed ({path}): {missed}")
    for path in sorted({k[0] for k in iss}):
        grids = sorted({k[2] for k in iss if k[0] == path})
        variants = [v for v in GOODPUT if any(k[0] == path and k[1] == v for k in iss)]
        out += ["", f"the host's time to issue an epoch [us] ({path}), sender/receiver, beside "
                "the epoch's time: where they meet, the host sets the pace",
                f"{'grid':>8}" + "".join(f"{SHORT[v]:>22}" for v in variants)]
        for g in grids:
            cells = []
            for v in variants:
                s, r = iss.get((path, v, g, 0)), iss.get((path, v, g, 1))
                b = gp.get((path, v, g))
                epoch_us = g * 8192 / b / 1e3 if b else None
                cells.append(f"{fmt(s, '.1f') + '/' + fmt(r, '.1f') + ' (' + fmt(epoch_us, '.1f') + ')':>22}")
            out.append(f"{g:>8}" + "".join(cells))
    if calls:
        out += ["", "the host's time an epoch in MPIX_Start_enqueue / the kernel's launch / "
                "MPIX_Wait_enqueue [us]", f"{'path':>8} {'variant':>20} {'grid':>8} {'rank':>5}  calls"]
        out += [f"{p:>8} {v:>20} {g:>8} {r:>5}  {c}" for p, v, g, r, c in sorted(calls)]
    for path in sorted({k[0] for k in hr}):
        out += ["", f"half round trip of a one-block epoch, 8 KiB [us] ({path}); "
                f"target: stream-ordered (stream, kernels, parrived) <= {HRTT_TARGET_US:g} us"]
        for v in HRTT:
            t = hr.get((path, v))
            flag = "*" if v in HRTT_TARGETED and (t is None or t > HRTT_TARGET_US) else ""
            if t is not None or v in HRTT_TARGETED:
                out.append(f"{v:>12}  {fmt(t, '.2f')}{flag}")
    return "\n".join(out)


if __name__ == "__main__":
    print(report(list(csv.DictReader(open(sys.argv[1])))))
