#!/usr/bin/env bash
# Prepared in session 22, not run (no device time left). One H200, both
# ranks under CUDA MPS, a bundle of this commit or later; about 3 minutes.
# Issue 21's last target: stream-ordered kernel copy >= 0.9x the
# host-issued limit at every grid (0.86-0.87x from 65536 blocks since
# session 18). The question: would kernel copy done after the producer
# reach it? b_stream's ipc_after_graph is that shape outside MPI's data
# path: the producer stores one mark a block (what MPIX_Pready's
# stream-ordered marks cost), then a copy kernel, launched behind it as a
# programmatic dependent, waits for the receiver's ready-to-receive
# itself, checks the marks and copies with SM stores.
# ipc_after_nomark_graph: the same without the marks; ipc_marks_graph:
# the marks checked by a one-block kernel, then the stream's wait and a
# copy-engine copy (the progress engine's stream copy with marks). Side by side, two
# rounds: ipc_limit (the host-issued limit the target names),
# ipc_limit_graph, kernel_copy_graph (the component today) and the three
# prototypes, 1024 to 131072 blocks.
# If ipc_after_graph or ipc_marks_graph is >= 0.95x ipc_limit from 16384
# blocks, build the faster one
# into the component: a stream-only kernel-copy send (info
# "mpix_stream_kernels") gets the ordered-marks tag, and
# MPIX_Wait_enqueue launches the copy kernel (receiver's flags and done
# words as mpix_part_mark writes them).
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
. bench/common.sh
bench_cuda_build bench/b_stream.cu /tmp/b_stream > $OUT/build.txt 2>&1 || { echo "b_stream did not build"; exit 1; }
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
G=1024,4096,16384,65536,131072
for r in 1 2; do
  for v in ipc_limit ipc_limit_graph kernel_copy_graph ipc_after_graph ipc_after_nomark_graph ipc_marks_graph; do
    BENCH_LABEL=r$r timeout 120 mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL \
      /tmp/b_stream goodput $v $G 2>&1 | tr -d '\000' | grep -a -E '^stream_goodput|b_stream' >> $OUT/after.csv
  done
  echo "round $r at $(el) s"
done
echo quit | nvidia-cuda-mps-control
python3 bench/results/h200x1-stream/after-prototype/after_table.py $OUT/after.csv | tee $OUT/table.txt
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/after-prototype/next-s23.sh 2>&1 | tail; tar -cJf $O/s.tar.xz -C /tmp o
