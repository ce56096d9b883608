#!/usr/bin/env python3
"""Timing-only variants of mpix_part_device.h for the large-grid ablation
(not correct for every reader: each drops work some epochs need).
  mkvariants.py SRC_HEADER OUTDIR   ->  OUTDIR/<variant>/mpix_part_device.h"""
import os, sys

src, out = sys.argv[1], sys.argv[2]
h = open(src).read()

def sub(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)

def nohost(t):
    # the per-group host-memory words (receiver's arrival flags, the
    # sender's ready word): only the last group's done words stay
    t = sub(t, "    for (p = first; NULL != remote && 0 == (mark & MPIX_PREQUEST_MARK_HOST) && p < first + count;",
               "    for (p = first; false && NULL != remote && 0 == (mark & MPIX_PREQUEST_MARK_HOST) && p < first + count;")
    t = sub(t, "    ready[first] = mark;\n}", "    (void) ready;\n}")
    return t

def gpufence(t):
    t = sub(t, "    if (preq->mark_gpu_scope) {\n        mpix_part_fence_gpu();",
               "    if (1) {\n        mpix_part_fence_gpu();")
    return t

variants = {
    "base": lambda t: t,
    "nohost": nohost,
    "gpufence": gpufence,
    "lean": lambda t: gpufence(nohost(t)),
}
for name, f in variants.items():
    os.makedirs(os.path.join(out, name), exist_ok=True)
    open(os.path.join(out, name, "mpix_part_device.h"), "w").write(f(h))
print(" ".join(variants))
