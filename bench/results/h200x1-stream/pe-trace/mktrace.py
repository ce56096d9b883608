#!/usr/bin/env python3
"""Add host timestamps (CLOCK_MONOTONIC, shared by both ranks) to the
progress engine's stream-ordered epoch path of the component source in
DIR (edited in place; revert with git checkout). Each stamp is the last
time a point was passed for an epoch (epoch % 8192); a destructor writes
them to $PART_TRACE.<pid> with the progress thread's pass statistics.
  mktrace.py DIR"""
import re, sys
d = sys.argv[1]

def edit(path, pairs):
    s = open(f"{d}/{path}").read()
    for old, new in pairs:
        if s.count(old) != 1:
            sys.exit(f"{path}: {old[:60]!r} found {s.count(old)} times")
        s = s.replace(old, new)
    open(f"{d}/{path}", "w").write(s)

edit("part_ucx.h", [("#include <ucp/api/ucp.h>\n",
 "#include <ucp/api/ucp.h>\n#include <time.h>\n#include <stdint.h>\n"
 "extern uint64_t mca_part_ucx_tr[8192][16];\nextern uint64_t mca_part_ucx_trs[4];\n"
 "static inline uint64_t mca_part_ucx_now(void) { struct timespec t; "
 "clock_gettime(CLOCK_MONOTONIC, &t); return (uint64_t) t.tv_sec * 1000000000ull + t.tv_nsec; }\n"
 "#define TR(k, e) (mca_part_ucx_tr[(e) & 8191][k] = mca_part_ucx_now())\n")])

edit("part_ucx_request.c", [
 ("static void mca_part_ucx_request_drive(mca_part_ucx_request_t *req)\n",
  "uint64_t mca_part_ucx_tr[8192][16];\nuint64_t mca_part_ucx_trs[4];\n"
  "#include <stdio.h>\n#include <unistd.h>\n"
  "__attribute__((destructor)) static void mca_part_ucx_tr_dump(void)\n{\n"
  "    const char *o = getenv(\"PART_TRACE\"); char n[512]; FILE *f; int i, k;\n"
  "    if (NULL == o) return;\n    snprintf(n, sizeof(n), \"%s.%d\", o, (int) getpid());\n"
  "    if (NULL == (f = fopen(n, \"w\"))) return;\n"
  "    fprintf(f, \"passes %lu progress_ns %lu begin_ns %lu\\n\", mca_part_ucx_trs[0], mca_part_ucx_trs[1], mca_part_ucx_trs[2]);\n"
  "    for (i = 0; i < 8192; ++i) { for (k = 0; k < 16; ++k) if (mca_part_ucx_tr[i][k]) break;\n"
  "        if (16 == k) continue; fprintf(f, \"%d\", i);\n"
  "        for (k = 0; k < 16; ++k) fprintf(f, \" %lu\", mca_part_ucx_tr[i][k]); fprintf(f, \"\\n\"); }\n"
  "    fclose(f);\n}\n\n"
  "static void mca_part_ucx_request_drive(mca_part_ucx_request_t *req)\n"),
 ("        words[MCA_PART_UCX_STREAM_DONE] = req->epoch;\n    }\n}",
  "        words[MCA_PART_UCX_STREAM_DONE] = req->epoch;\n"
  "        TR(MCA_PART_UCX_SEND == req->kind ? 5 : 11, req->epoch);\n    }\n}"),
 ("        bool ok = (OMPI_SUCCESS == mca_part_ucx_request_begin(due[i]));\n",
  "        bool ok = (OMPI_SUCCESS == mca_part_ucx_request_begin(due[i]));\n"
  "        TR(MCA_PART_UCX_SEND == due[i]->kind ? 0 : 8, due[i]->epoch);\n"),
])
edit("part_ucx_stream.c", [
 ("            (void) mca_part_ucx_request_progress();\n            mca_part_ucx_request_drive_begin();\n",
  "            uint64_t t0 = mca_part_ucx_now(), t1, t2;\n"
  "            (void) mca_part_ucx_request_progress();\n            t1 = mca_part_ucx_now();\n"
  "            mca_part_ucx_request_drive_begin();\n            t2 = mca_part_ucx_now();\n"
  "            ++mca_part_ucx_trs[0]; mca_part_ucx_trs[1] += t1 - t0; mca_part_ucx_trs[2] += t2 - t1;\n"),
])
# PART_TRACE_NOAPP=1: the application's thread, held back by
# MCA_PART_UCX_STREAM_AHEAD, yields instead of progressing beside the
# progress thread
edit("part_ucx_stream.c", [
 ("            opal_progress();\n            mca_part_ucx_request_drive_begin();\n        }\n    }\n",
  "            if (NULL != getenv(\"PART_TRACE_NOAPP\") && mca_part_ucx_stream_thread_on) { sched_yield(); continue; }\n"
  "            opal_progress();\n            mca_part_ucx_request_drive_begin();\n        }\n    }\n"),
 ("#include <unistd.h>\n", "#include <unistd.h>\n#include <sched.h>\n"),
])
edit("part_ucx_devreq.c", [
 ("        opal_atomic_rmb(); /* the kernel's data before its mark */\n",
  "        opal_atomic_rmb(); /* the kernel's data before its mark */\n        TR(1, req->epoch);\n"),
])
edit("part_ucx_sendreq.c", [
 ("    if (sreq->queued > 0 && mca_part_ucx_receiver_ready(sreq)) {\n        mca_part_ucx_issue(req, 0, req->parts - 1);\n",
  "    if (sreq->queued > 0 && mca_part_ucx_receiver_ready(sreq)) {\n        TR(2, req->epoch);\n        mca_part_ucx_issue(req, 0, req->parts - 1);\n"),
 ("        r = &sreq->hcopy_runs[sreq->hcopy_tail++ % req->parts];\n",
  "        TR(3, req->epoch);\n        r = &sreq->hcopy_runs[sreq->hcopy_tail++ % req->parts];\n"),
 ("        mca_part_ucx_send_arrivals(req, r.first, r.bits);\n    }\n}",
  "        TR(4, req->epoch);\n        mca_part_ucx_send_arrivals(req, r.first, r.bits);\n    }\n}"),
])
edit("part_ucx_recvreq.c", [
 ("    rreq->rtr_op = UCS_PTR_IS_PTR(op) ? op : NULL;\n",
  "    rreq->rtr_op = UCS_PTR_IS_PTR(op) ? op : NULL;\n    TR(9, req->epoch);\n"),
 ("    opal_atomic_wmb();\n    for (; count > 0; --count, ++part) {\n",
  "    TR(10, epoch);\n    opal_atomic_wmb();\n    for (; count > 0; --count, ++part) {\n"),
])
