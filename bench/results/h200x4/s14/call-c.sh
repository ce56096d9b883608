#!/usr/bin/env bash
# Session 14, call C (GPU 0 under MPS): where the engine's time goes at
# large data. units.diff adds to the trace (bench/trace) every unit's
# stamps (peers seen, moved, told) and every block's start and finish
# end, of the last epoch; np 2 at 4 and 64 MiB, np 4 at 64 MiB.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
rm -rf /tmp/units && cp -r . /tmp/units && (cd /tmp/units && patch -p1 < .bundle/exp/units.diff > /dev/null) || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
timeout 200 bash /tmp/units/bench/trace/run.sh $OUT/np2 2 1024,16384 --oversubscribe > $OUT/trace-np2.txt 2>&1
timeout 150 bash /tmp/units/bench/trace/run.sh $OUT/np4 4 16384 --oversubscribe > $OUT/trace-np4.txt 2>&1
echo quit | nvidia-cuda-mps-control
echo "done at $(el) s"
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s15c.sh $OUT/call.sh; bash .bundle/exp/s15c.sh 2>&1 | tail; tar -cJf $O/c.tar.xz -C /tmp o
