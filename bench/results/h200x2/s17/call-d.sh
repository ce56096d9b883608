#!/usr/bin/env bash
# Session 17, call D (two GPUs), bundle of f244fe8. Issue 23 run 5: every
# half-round-trip variant of bench/run-stream.sh across the two GPUs
# (stream-ordered, graphs, host-synchronised, MPI_Send/Recv, NCCL), the
# first on H200; run 4: bench/run-all's applications at np 2 (the DL step
# against NCCL with the GPU engine, its first run across H200; Jacobi).
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
BENCH_VARIANTS=" " BENCH_TIMEOUT=60 timeout 200 bench/run-stream.sh $OUT/hrtt > $OUT/hrtt.log 2>&1
echo "hrtt at $(el) s: $(tail -n 1 $OUT/hrtt.log)"
BENCH_PARTS=apps BENCH_TIMEOUT=90 timeout $((570 - $(el))) bench/run-all $OUT/all > $OUT/apps.log 2>&1
echo "apps at $(el) s: $(tail -n 1 $OUT/apps.log)"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x2/s17/call-d.sh 2>&1 | tail; tar -cJf $O/d.tar.xz -C /tmp o
