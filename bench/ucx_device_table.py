#!/usr/bin/env python3
"""Tables of bench/run-ucx-device.sh (bench/b_ucx_device.cu): goodput per
variant and grid, the ratios to part/ucx's kernel copy loop and to the
node's limit, and the registers a thread of each variant's kernel (issue
21 asks for 32 at most: past 32, an SM holds one block of 1024 threads
instead of two). Standard library only (the GPU node may lack matplotlib;
bench/plot.py prints the same beside its PNG).
usage: ucx_device_table.py results.csv [ptxas.txt]
(ptxas.txt: the lines of nvcc -Xptxas -v for the kernels; default
logs/ptxas.txt beside the CSV)"""
import csv
import os
import re
import sys

VARIANTS = ("ucx_put_thread", "ucx_put_warp", "ucx_put_block", "kernel_copy_get_ptr",
            "kernel_copy", "memcpy_limit")
SHORT = {"ucx_put_thread": "put_thr", "ucx_put_warp": "put_warp", "ucx_put_block": "put_blk",
         "kernel_copy_get_ptr": "kc_getptr", "kernel_copy": "kc", "memcpy_limit": "limit"}
KERNELS = {"ucx_put_thread": "ucxdev_put_thread", "ucx_put_warp": "ucxdev_put_warp",
           "ucx_put_block": "ucxdev_put_block", "kernel_copy_get_ptr": "ucxdev_kernel_copy_get_ptr",
           "kernel_copy": "ucxdev_kernel_copy", "memcpy_limit": "ucxdev_vadd"}
MAX_REGISTERS = 32


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def ptxas(path):
    """{kernel: (registers, spill store bytes)} from nvcc -Xptxas -v lines."""
    out, name, spill = {}, None, 0
    if not path or not os.path.exists(path):
        return out
    for line in open(path):
        m = re.search(r"entry function '(\w+)'", line)
        if m:
            name, spill = m.group(1), 0
        m = re.search(r"(\d+) bytes spill stores", line)
        if m:
            spill = int(m.group(1))
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            out[name] = (int(m.group(1)), spill)
    return out


def hostwords(gp):
    """Lines of the kernel_copy_hostwords table: microseconds an epoch with
    each piece of host-memory traffic added to kernel_copy's loop, and what
    it adds to kernel_copy's own time at the same grid."""
    sets = sorted({k[0] for k in gp if "+" in k[0] and k[1] == "kernel_copy_hostwords"},
                  key=lambda p: (p.count("+"), p))
    if not sets:
        return []
    grids = sorted({k[2] for k in gp if k[0] in sets})
    us = lambda v, g: None if not v else g * 8192 / (v * 1e3)  # noqa: E731
    out = ["", "host-memory traffic of part/ucx's stream-ordered kernel copy added to "
           "kernel_copy's loop: us an epoch (+ us over kernel_copy)",
           f"{'added':>40}" + "".join(f"{g:>18}" for g in grids)]
    for path in sets:
        base = path.split("+", 1)[0]
        cells = []
        for g in grids:
            t = us(gp.get((path, "kernel_copy_hostwords", g)), g)
            t0 = us(gp.get((base, "kernel_copy", g)), g)
            cell = "-" if t is None else f"{t:.2f}" + ("" if t0 is None else f" ({t - t0:+.2f})")
            cells.append(f"{cell:>18}")
        out.append(f"{path.split('+', 1)[1].replace('+', ','):>40}" + "".join(cells))
    return out


def report(rows, ptxas_path=None):
    """The tables as a string, from the CSV rows (dicts)."""
    gp, regs = {}, {}
    for r in rows:
        if r["bench"] == "ucxdev_goodput":
            variant, _, path = r["component"].partition("-")
            gp[(path, variant, int(r["param1"]))] = float(r["value"])
        elif r["bench"] == "ucxdev_regs":
            regs[r["component"]] = (int(r["value"]), int(r["param2"]))
    out = []
    # kernel_copy_hostwords runs are labelled PATH+PIECE+...: their own table
    for path in sorted({k[0] for k in gp if "+" not in k[0]}):
        grids = sorted({k[2] for k in gp if k[0] == path})
        out += ["", f"UCX device API vs part/ucx's kernel copy: goodput [GB/s] ({path}; 8 KiB a "
                "block, stream-ordered epochs)",
                f"{'grid':>8}" + "".join(f"{v:>21}" for v in VARIANTS)]
        for g in grids:
            out.append(f"{g:>8}" + "".join(f"{fmt(gp.get((path, v, g)), '.3f'):>21}"
                                           for v in VARIANTS))
        ratios = [(v, "kernel_copy") for v in VARIANTS if v not in ("kernel_copy", "memcpy_limit")]
        ratios += [("kernel_copy", "memcpy_limit"), ("ucx_put_block", "memcpy_limit")]
        out += ["", f"ratios ({path}): > 1x where the variant beats part/ucx's loop (kc); "
                "kc/limit and put_blk/limit against the copy engine",
                f"{'grid':>8}" + "".join(f"{SHORT[a] + '/' + SHORT[b]:>18}" for a, b in ratios)]
        lowest = {}
        for g in grids:
            cells = []
            for a, b in ratios:
                x, y = gp.get((path, a, g)), gp.get((path, b, g))
                q = x / y if x is not None and y else None
                if q is not None:
                    lowest[(a, b)] = min(q, lowest.get((a, b), q))
                cells.append(f"{fmt(q, '.2f') + ('x' if q is not None else ' '):>18}")
            out.append(f"{g:>8}" + "".join(cells))
        out.append(f"{'lowest':>8}" + "".join(
            f"{fmt(lowest.get(k), '.2f') + ('x' if k in lowest else ' '):>18}" for k in ratios))
    out += hostwords(gp)
    compiled = ptxas(ptxas_path)
    if regs or compiled:
        out += ["", f"registers a thread (ptxas -v; at run time, cudaFuncGetAttributes); "
                f"target <= {MAX_REGISTERS} (* = over); spill: local memory bytes",
                f"{'variant':>21}{'kernel':>30}{'ptxas':>7}{'spill':>7}{'run':>6}{'local':>7}"]
        for v in VARIANTS:
            k = KERNELS[v]
            c, rt = compiled.get(k), regs.get(v)
            over = any(x is not None and x[0] > MAX_REGISTERS for x in (c, rt))
            out.append(f"{v:>21}{k:>30}{fmt(c and c[0], 'd'):>7}{fmt(c and c[1], 'd'):>7}"
                       f"{fmt(rt and rt[0], 'd'):>6}{fmt(rt and rt[1], 'd'):>7}"
                       + (" *" if over else ""))
    return "\n".join(out)


if __name__ == "__main__":
    csv_path = sys.argv[1]
    px = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(csv_path) or ".",
                                                             "logs", "ptxas.txt")
    print(report(list(csv.DictReader(open(csv_path))), px))
