#!/usr/bin/env bash
# Session 15, call C, bundle of 448f034: the progress engine's
# stream-ordered epochs moved by the sender's stream (part_ucx_stream_copy_engine).
# On GPU 0 under CUDA MPS, two ranks: (1) the progress-engine lines of the
# GPU suite (the stream-copied default and the progress thread's), (2)
# compute-sanitizer memcheck and racecheck over the two progress stream
# lines of tests/sanitize.list, (3) b_stream goodput at 1-65536 blocks:
# traditional, progress_stream (stream copy), progress_stream with the
# progress thread (part_ucx_stream_copy_engine 0, 1-256 blocks),
# ipc_limit, kernel_copy_graph; (4) with three or more GPUs, the pushed
# two-shot default lines (2db7e25) one rank a GPU.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/pb && tar -xJf .bundle/part-ucx.tar.xz -C /tmp/pb && . /tmp/pb/part-ucx/env.sh
export PART_UCX_PREFIX=/tmp/pb/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-call
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
ngpu=$(nvidia-smi -L | wc -l)
. bench/common.sh
bench_cuda_build bench/b_stream.cu /tmp/b_stream > $OUT/build.txt 2>&1 || echo "no b_stream"
if [ "$ngpu" -ge 3 ]; then
  grep -E '^gpu-gcoll-twoshot-push-(default-np3|bytes-np3|bytes-np4|default-np2) ' tests/gpu.list > /tmp/p.list
  TEST_LIST=/tmp/p.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=90 tools/test.sh --gpu > $OUT/tests-push.txt 2>&1
  echo "push lines, one rank a GPU: $(tr -d '\000' < $OUT/tests-push.txt | tail -n 1) at $(el) s"
fi
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E '^(gpu-stream-progress|gpu-stream-errors-progress|gpu-settings-differ-stream-progress|gpu-stream-joined-progress|gpu-stream-kernels-progress|gpu-device-hcopy|gpu-stream-allreduce-hostrun)' tests/gpu.list > /tmp/s.list
TEST_LIST=/tmp/s.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=60 tools/test.sh --gpu > $OUT/tests-progress.txt 2>&1
echo "progress lines (MPS): $(tr -d '\000' < $OUT/tests-progress.txt | tail -n 1) at $(el) s"
grep -E '^san-stream-progress' tests/sanitize.list > /tmp/z.list
for tool in memcheck racecheck; do
  TEST_LIST=/tmp/z.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=200 \
    TEST_WRAPPER="compute-sanitizer --tool $tool --error-exitcode 9 --print-limit 20" \
    tools/test.sh --gpu > $OUT/san-$tool.txt 2>&1
  echo "$tool: $(tr -d '\000' < $OUT/san-$tool.txt | tail -n 1) at $(el) s"
done
export CUDA_DEVICE_MAX_CONNECTIONS=32 BENCH_LABEL=mps
echo "bench,component,param1,param2,value,unit" > $OUT/goodput.csv
g() { timeout 120 mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL -x CUDA_DEVICE_MAX_CONNECTIONS "$@" 2>&1 |
      tr -d '\000' | tee -a $OUT/bench-log.txt | grep -a '^stream_goodput' >> $OUT/goodput.csv; }
G=1,4,16,64,256,1024,4096,65536
for v in traditional progress_stream ipc_limit kernel_copy_graph; do g /tmp/b_stream goodput $v $G; done
BENCH_LABEL=thread g --mca part_ucx_stream_copy_engine 0 /tmp/b_stream goodput progress_stream 1,4,16,64,256
echo "bench at $(el) s: $(($(wc -l < $OUT/goodput.csv) - 1)) rows"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/copy-s15/call.sh 2>&1 | tail; tar -cJf $O/c.tar.xz -C /tmp o
