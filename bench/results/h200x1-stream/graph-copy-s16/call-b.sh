#!/usr/bin/env bash
# Session 16, call B (one H200, two ranks under MPS): the counted stream
# copy with the next start joined to its finishing kernel. (1) the
# progress-engine lines of the GPU suite, logs kept; (2) b_stream goodput
# of the graph variants at 1-64 blocks; (3) the stream trace of
# progress_graph (bench/trace/stream.sh).
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E '^(gpu-stream-kops-progress|gpu-stream-progress|gpu-stream-joined-progress|gpu-stream-kernels-progress)' tests/gpu.list > /tmp/s.list
TEST_LIST=/tmp/s.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=40 timeout 200 tools/test.sh --gpu > $OUT/tests-progress.txt 2>&1
echo "progress lines (MPS): $(tr -d '\000' < $OUT/tests-progress.txt | tail -n 1) at $(el) s"
mkdir -p $OUT/logs; cp /tmp/tb/*.log $OUT/logs/ 2>/dev/null
. bench/common.sh
bench_cuda_build bench/b_stream.cu /tmp/b_stream > $OUT/build.txt 2>&1 || echo "no b_stream"
export CUDA_DEVICE_MAX_CONNECTIONS=32 BENCH_LABEL=mps
echo "bench,component,param1,param2,value,unit" > $OUT/goodput.csv
for v in traditional progress_graph progress_graph_kstart progress_graph_nojoin ipc_limit_graph kernel_copy_graph; do
  timeout 40 mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL -x CUDA_DEVICE_MAX_CONNECTIONS \
    /tmp/b_stream goodput $v 1,4,16,64 2>&1 | tr -d '\000' | tee -a $OUT/bench-log.txt |
    grep -a '^stream_goodput' >> $OUT/goodput.csv
done
python3 bench/stream_table.py $OUT/goodput.csv > $OUT/tables.txt 2>&1
echo "bench at $(el) s"
mkdir -p /tmp/tr && cp /tmp/b_stream /tmp/tr/
timeout 120 bench/trace/stream.sh /tmp/tr progress_graph 1,64 -x CUDA_DEVICE_MAX_CONNECTIONS > $OUT/trace.txt 2>&1
for g in 1 64; do mkdir -p $OUT/trace/g$g; cp /tmp/tr/g$g/* $OUT/trace/g$g/ 2>/dev/null; done
echo "trace at $(el) s"
echo quit | nvidia-cuda-mps-control
