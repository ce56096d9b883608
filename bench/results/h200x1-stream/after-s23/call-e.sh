#!/usr/bin/env bash
# Session 23, call E (one H200, both ranks under CUDA MPS): call D's hang
# (b_stream kernel_copy_graph_inkernel at 1024 blocks, CUDA_DEVICE_MAX_CONNECTIONS
# unset) against the same with no captured start joined to the wait before
# it (_nojoin: part_ucx_stream_graph_join 0), and with 32 connections.
# Then (call F, the same script with F=1): each of the in-kernel graph,
# its _nojoin and the default (the copy after the kernels at 1024 blocks)
# four times with CUDA's 8 connections, how often each hangs.
set -u
T0=$(date +%s)
el0() { echo $(( $(date +%s) - T0 )); }
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog
. bench/common.sh
bench_cuda_build bench/b_stream.cu /tmp/b_stream > $OUT/build.txt 2>&1
runs=("kernel_copy_graph_nojoin_inkernel 1024 -" "kernel_copy_graph_inkernel 1024 32" "kernel_copy_graph_inkernel 1024 -")
[ -n "${F:-}" ] && runs=() && for i in 1 2 3 4; do
  runs+=("kernel_copy_graph_inkernel 1024 - $i" "kernel_copy_graph_nojoin_inkernel 1024 - $i" "kernel_copy_graph 1024 - $i")
done
for r in "${runs[@]}"; do
  set -- $r
  [ $(el0) -lt 280 ] || break
  if [ "$3" = - ]; then unset CUDA_DEVICE_MAX_CONNECTIONS; else export CUDA_DEVICE_MAX_CONNECTIONS=$3; fi
  pkill -9 b_stream; echo quit | nvidia-cuda-mps-control 2>/dev/null; sleep 1; nvidia-cuda-mps-control -d; sleep 1
  f=$OUT/probe-$1-$2-$3${4:+-$4}.txt
  BENCH_LABEL=c$3 timeout ${F:+25}${F:-40} mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL /tmp/b_stream goodput $1 $2 > $f 2>&1
  echo "probe $1 $2 connections $3 ${4:-}: rc $? at $(el0) s: $(tr -d '\000' < $f | grep -c '^stream_goodput') rows"
done
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/after-s23/call-e.sh 2>&1 | tail; tar -cJf $O/e.tar.xz -C /tmp o
# call F: ... F=1 bash bench/results/h200x1-stream/after-s23/call-e.sh 2>&1 | tail -20; tar -cJf $O/f.tar.xz -C /tmp o
