#!/usr/bin/env bash
# Session 14, call D (four GPUs). Call C's trace: at 64 MiB the engine's
# blocks start only when the application's kernel has all its blocks on
# the GPU (launched behind it, at equal priority), and under MPS the
# second rank's kernel runs after the first's: the engine overlaps
# nothing. prio.diff launches the engine at the greatest stream priority
# (and creates our streams so); b_coll_gpu's graphs instantiated with
# cudaGraphInstantiateFlagUseNodePriority (/tmp/plainprio) keep it.
# GPU 0 under MPS and across GPUs, np 2 and 4, two rounds; then NCCL's
# rows once.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
variants prio
rm -rf /tmp/bpx && mkdir /tmp/bpx && cp -r bench examples /tmp/bpx/ && sed -i 's/cudaGraphInstantiate(&exec, g, 0)/cudaGraphInstantiate(\&exec, g, cudaGraphInstantiateFlagUseNodePriority)/' /tmp/bpx/bench/graph_epochs.h
grep -c UseNodePriority /tmp/bpx/bench/graph_epochs.h
bench_cuda_build /tmp/bpx/bench/b_coll_gpu.cu /tmp/plainprio $nccl -- $ncclibs > $OUT/build-prio.txt 2>&1 || { echo "no plainprio"; exit 1; }
run2() {
    local bin=$1 np=$2 lab=$3 grids=$4
    shift 4
    BENCH_LABEL=$lab timeout 100 mpirun -np "$np" --bind-to none --oversubscribe --mca part ucx \
        "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} $bin allreduce \
        "$grids" 2>&1 | tr -d '\000' | grep -a '^gallreduce'
}
export BENCH_NO_TRADITIONAL=1
G=64,1024,4096,16384
(
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
for r in 1 2; do
  for np in 2 4; do
    use base; run2 /tmp/plain $np -base-r$r $G >> $OUT/mps-prio.csv
    run2 /tmp/plainprio $np -baseflag-r$r $G >> $OUT/mps-prio.csv
    use prio; run2 /tmp/plainprio $np -prio-r$r $G >> $OUT/mps-prio.csv
  done
  echo "mps round $r at $(el) s"
done
use base
echo quit | nvidia-cuda-mps-control
)
for r in 1 2; do
  for np in 2 4; do
    use base; run2 /tmp/plainprio $np -base-r$r $G >> $OUT/x-prio.csv
    use prio; run2 /tmp/plainprio $np -prio-r$r $G >> $OUT/x-prio.csv
  done
  echo "x round $r at $(el) s"
done
unset BENCH_NO_TRADITIONAL
use prio
for np in 2 4; do run2 /tmp/plainprio $np -nccl $G >> $OUT/x-prio.csv; done
use base
echo "done at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s15d.sh $OUT/call.sh; bash .bundle/exp/s15d.sh 2>&1 | tail; tar -cJf $O/d.tar.xz -C /tmp o
