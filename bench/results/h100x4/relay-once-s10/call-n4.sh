#!/usr/bin/env bash
# The next session's second call (4 GPUs): the engine trace with the
# application's per-partition stamps (9bf9404) at np 2 and 4, 64 KiB-1 MiB
# (defaults), the pushed two-shot at np 4, 1 MiB, and GCOLL_LOADS_AT_ONCE at
# np 4, 1 MiB; then on GPU 0 under MPS np 4 at 16 and 64 blocks (issue 22).
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
M=--mca; T="$M part_ucx_coll_gpu_twoshot_bytes 262144 $M part_ucx_coll_gpu_bulk_bytes 0"
bash bench/trace/run.sh /tmp/tdef2 2 16,64,256 > $OUT/trace-def-np2.txt 2>&1
bash bench/trace/run.sh /tmp/tdef4 4 16,64,256 > $OUT/trace-def-np4.txt 2>&1
bash bench/trace/run.sh /tmp/tpush4 4 256 $T $M part_ucx_coll_gpu_twoshot_push 1 > $OUT/trace-push-np4.txt 2>&1
PART_UCX_TRACE_NVCC_FLAGS=-DGCOLL_LOADS_AT_ONCE=1 bash bench/trace/run.sh /tmp/tonce4 4 256 > $OUT/trace-once-np4.txt 2>&1
echo "traces at $(el) s"
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
timeout 120 bash bench/trace/run.sh /tmp/tmps4 4 16,64 --oversubscribe > $OUT/trace-mps-np4.txt 2>&1
echo quit | nvidia-cuda-mps-control
echo "done at $(el) s"
tar -cJf $OUT/traces.tar.xz --exclude='*.so' --exclude=b_coll_gpu -C /tmp tdef2 tdef4 tpush4 tonce4 tmps4 2>/dev/null
