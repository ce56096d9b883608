#!/usr/bin/env bash
# Session 15, call E, bundle of a7f79eb: where the stream-copied progress
# engine's epoch goes (call D: progress_kernels 0.94x traditional at one
# block, 13 us an epoch against ipc_limit's 4.4, with 11 us of host time
# in the kernel's launch and 12.6 in MPIX_Wait_enqueue). Timing-only
# plugin (copyexp-experiment.diff, PART_UCX_EXP_COPY bits: 1 both waits in
# one batch, 2 no wait for the marks, 4 the copy by a kernel, 8 no copy),
# b_stream progress_kernels at 1-4096 blocks, GPU 0 under MPS; then
# compute-sanitizer memcheck as tools/sanitize-gpu.sh runs it (API errors
# of the memory-type probes not reported) over the progress stream lines.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/pb && tar -xJf .bundle/part-ucx.tar.xz -C /tmp/pb && . /tmp/pb/part-ucx/env.sh
export PART_UCX_PREFIX=/tmp/pb/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-call
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0
plugin=/tmp/pb/part-ucx/lib/openmpi/part_ucx_device.so
rm -rf /tmp/xe && cp -r . /tmp/xe && (cd /tmp/xe && patch -p1 < bench/results/h200x1-stream/copy2-s15/copyexp-experiment.diff > /dev/null) &&
  /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I/tmp/xe -o /tmp/x.so /tmp/xe/part_ucx_device.cu > $OUT/build-x.txt 2>&1 &
. bench/common.sh
bench_cuda_build bench/b_stream.cu /tmp/b_stream > $OUT/build.txt 2>&1 || echo "no b_stream"
wait
cp $plugin /tmp/base.so
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
export CUDA_DEVICE_MAX_CONNECTIONS=32
echo "bench,component,param1,param2,value,unit" > $OUT/exp.csv
g() { BENCH_LABEL=$1 timeout 40 mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL -x CUDA_DEVICE_MAX_CONNECTIONS -x PART_UCX_EXP_COPY /tmp/b_stream goodput $2 1,16,64,4096 2>&1 |
      tr -d '\000' | tee -a $OUT/bench-log.txt | grep -a '^stream_' >> $OUT/exp.csv; }
g limit ipc_limit
[ -f /tmp/x.so ] && cp /tmp/x.so $plugin
for b in 0 1 3 4 5 8 11; do PART_UCX_EXP_COPY=$b g x$b progress_kernels; done
cp /tmp/base.so $plugin
echo "bench at $(el) s"
grep -E '^san-stream-(progress|kernels-progress)' tests/sanitize.list > /tmp/z.list
TEST_LIST=/tmp/z.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=40 \
  TEST_WRAPPER="compute-sanitizer --tool memcheck --error-exitcode 9 --report-api-errors no" \
  timeout 120 tools/test.sh --gpu > $OUT/san-memcheck.txt 2>&1
echo "memcheck: $(tr -d '\000' < $OUT/san-memcheck.txt | tail -n 1) at $(el) s"
echo quit | nvidia-cuda-mps-control
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/copy2-s15/call-e.sh 2>&1 | tail; tar -cJf $O/e.tar.xz -C /tmp o
