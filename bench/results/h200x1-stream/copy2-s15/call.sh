#!/usr/bin/env bash
# Session 15, call D, bundle of a7f79eb: the stream-copied progress engine
# with a stream-only send (receiver host-free too). GPU 0 under CUDA MPS,
# two ranks: (1) every progress-engine line of the GPU suite; (2)
# compute-sanitizer memcheck over the progress stream lines, with the
# stream copy and without it (logs kept: call C's memcheck failed without
# them); (3) b_stream goodput: traditional, progress_stream,
# progress_kernels, ipc_limit; (4) with two or more GPUs first: the pushed
# two-shot default lines (2db7e25), ranks spread over the GPUs.
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
if [ "$ngpu" -ge 2 ]; then
  grep -E '^gpu-gcoll-twoshot-push-(default-np3|bytes-np3|bytes-np4|default-np2) ' tests/gpu.list > /tmp/p.list
  TEST_LIST=/tmp/p.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 150 tools/test.sh --gpu > $OUT/tests-push.txt 2>&1
  echo "push lines over $ngpu GPUs: $(tr -d '\000' < $OUT/tests-push.txt | tail -n 1) at $(el) s"
fi
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
grep -E '^(gpu-stream-progress|gpu-stream-errors-progress|gpu-settings-differ-stream-progress|gpu-stream-joined-progress|gpu-stream-kernels-progress|gpu-device-hcopy|gpu-stream-allreduce-hostrun)' tests/gpu.list > /tmp/s.list
TEST_LIST=/tmp/s.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=40 timeout 200 tools/test.sh --gpu > $OUT/tests-progress.txt 2>&1
echo "progress lines (MPS): $(tr -d '\000' < $OUT/tests-progress.txt | tail -n 1) at $(el) s"
grep -E '^san-stream-(progress|kernels-progress)' tests/sanitize.list > /tmp/z.list
sed -n '1s/^san-stream-progress-7 /san-stream-progress-7-thread /; 1s/ -- / --mca part_ucx_stream_copy_engine 0 -- /p' /tmp/z.list >> /tmp/z.list
TEST_LIST=/tmp/z.list TEST_BUILD_DIR=/tmp/tb TEST_REUSE_BUILD=1 TEST_TIMEOUT=40 \
  TEST_WRAPPER="compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 8" \
  timeout 100 tools/test.sh --gpu > $OUT/san-memcheck.txt 2>&1
echo "memcheck: $(tr -d '\000' < $OUT/san-memcheck.txt | tail -n 1) at $(el) s"
mkdir -p $OUT/sanlogs && for f in /tmp/tb/san-*.log; do tr -d '\000' < "$f" | head -c 60000 > $OUT/sanlogs/$(basename "$f"); done
export CUDA_DEVICE_MAX_CONNECTIONS=32 BENCH_LABEL=mps
echo "bench,component,param1,param2,value,unit" > $OUT/goodput.csv
g() { timeout 40 mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL -x CUDA_DEVICE_MAX_CONNECTIONS "$@" 2>&1 |
      tr -d '\000' | tee -a $OUT/bench-log.txt | grep -a '^stream_goodput' >> $OUT/goodput.csv; }
G=1,4,16,64,256,4096,65536
for v in traditional progress_kernels progress_stream ipc_limit; do g /tmp/b_stream goodput $v $G; done
echo "bench at $(el) s: $(($(wc -l < $OUT/goodput.csv) - 1)) rows"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/copy2-s15/call.sh 2>&1 | tail; tar -cJf $O/d.tar.xz -C /tmp o
