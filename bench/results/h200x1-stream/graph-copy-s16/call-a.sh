#!/usr/bin/env bash
# Session 16, call A (one H200), as prepared in session 15 with
# gpu-stream-kops-progress added: the stream copy's counted form of
# graph-copy.diff (prepared in session 15, see git show 867a6a7, applied
# as it was), so that the progress engine's stream-ordered epochs replay
# from CUDA graphs. Built and bundled first (tools/setup.sh,
# tools/bundle.sh .bundle/part-ucx.tar.xz):
# (1) every progress-engine line of the GPU suite (the graph lines now take
# the counted copy), (2) memcheck and racecheck as tools/sanitize-gpu.sh
# runs them over the progress stream lines, (3) b_stream goodput at 1-65536
# blocks: traditional, progress_kernels, progress_graph (the diff's new
# variant), kernel_copy_graph, ipc_limit_graph.
set -u
. bench/call-env.sh .bundle/part-ucx.tar.xz || exit 1
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E '^(gpu-stream-kops-progress|gpu-stream-progress|gpu-stream-errors-progress|gpu-settings-differ-stream-progress|gpu-stream-joined-progress|gpu-stream-kernels-progress|gpu-device-hcopy|gpu-stream-allreduce-hostrun)' tests/gpu.list > /tmp/s.list
TEST_LIST=/tmp/s.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=40 timeout 240 tools/test.sh --gpu > $OUT/tests-progress.txt 2>&1
echo "progress lines (MPS): $(tr -d '\000' < $OUT/tests-progress.txt | tail -n 1) at $(el) s"
grep -E '^san-stream-(progress|kernels-progress)' tests/sanitize.list > /tmp/z.list
for tool in memcheck racecheck; do
  opts="--tool $tool --error-exitcode 9"; [ $tool = memcheck ] && opts="$opts --report-api-errors no"
  TEST_LIST=/tmp/z.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 \
    TEST_WRAPPER="compute-sanitizer $opts" timeout 150 tools/test.sh --gpu > $OUT/san-$tool.txt 2>&1
  echo "$tool: $(tr -d '\000' < $OUT/san-$tool.txt | tail -n 1) at $(el) s"
done
. bench/common.sh
bench_cuda_build bench/b_stream.cu /tmp/b_stream > $OUT/build.txt 2>&1 || echo "no b_stream"
export CUDA_DEVICE_MAX_CONNECTIONS=32 BENCH_LABEL=mps
echo "bench,component,param1,param2,value,unit" > $OUT/goodput.csv
for v in traditional progress_kernels progress_graph kernel_copy_graph ipc_limit_graph; do
  timeout 60 mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL -x CUDA_DEVICE_MAX_CONNECTIONS \
    /tmp/b_stream goodput $v 1,4,16,64,256,4096,65536 2>&1 | tr -d '\000' | tee -a $OUT/bench-log.txt |
    grep -a '^stream_goodput' >> $OUT/goodput.csv
done
python3 bench/stream_table.py $OUT/goodput.csv > $OUT/tables.txt 2>&1
echo "bench at $(el) s"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/graph-copy-next/call.sh 2>&1 | tail; tar -cJf $O/g.tar.xz -C /tmp o
