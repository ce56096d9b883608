#!/usr/bin/env bash
# Session 15, call B (nvidia-h200, one H200, two ranks under CUDA MPS),
# bundle of 743512d. Issue 21's kernel copy misses 0.9x the host-issued
# limit at 1024 blocks (0.76x): there a transport group is 128 KiB (total /
# 32), which the block that completes it copies alone, so the epoch's last
# group adds a one-block copy of 128 KiB to its end. A/B by the MCA
# parameter part_ucx_device_group_bytes: the default (-1) against 64 KiB
# and 32 KiB groups, grids 256-4096, kernel_copy_graph and
# kernel_copy_kernels beside ipc_limit (host-issued) and ipc_limit_graph,
# three rounds interleaved.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
mkdir -p /tmp/pb && tar -xJf .bundle/part-ucx.tar.xz -C /tmp/pb && . /tmp/pb/part-ucx/env.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0
export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
. bench/common.sh
bench_cuda_build bench/b_stream.cu /tmp/b_stream > $OUT/build.txt 2>&1 || { echo "no b_stream"; cat $OUT/build.txt | tail; }
G=256,512,1024,2048,4096
echo "bench,component,param1,param2,value,unit" > $OUT/groups.csv
for r in 1 2 3; do
  for gb in -1 65536 32768; do
    for v in kernel_copy_graph kernel_copy_kernels; do
      BENCH_LABEL=g$gb-r$r timeout 100 mpirun -np 2 --bind-to none --mca part ucx \
        --mca part_ucx_device_group_bytes $gb -x BENCH_LABEL /tmp/b_stream goodput $v $G 2>&1 |
        tr -d '\000' | grep -a '^stream_goodput' >> $OUT/groups.csv
    done
  done
  for v in ipc_limit ipc_limit_graph; do
    BENCH_LABEL=r$r timeout 100 mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL \
      /tmp/b_stream goodput $v $G 2>&1 | tr -d '\000' | grep -a '^stream_goodput' >> $OUT/groups.csv
  done
  echo "round $r at $(el) s"
  [ $(el) -gt 330 ] && break
done
# correctness with 32 KiB groups (explicitly, every request): the kernel
# copy lines of the GPU suite that move the most partitions
grep -E '^(gpu-kcopy-(group|thread|warp|block|auto|autoblock|mixed)[^ ]*|gpu-stream-(kcopy|kernels|joined)[^ ]*) ' tests/gpu.list |
  grep -E -- '-1024|group|large|full|graph|delay' > /tmp/k.list
OMPI_MCA_part_ucx_device_group_bytes=32768 TEST_LIST=/tmp/k.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 \
  timeout $((560 - $(el))) tools/test.sh --gpu > $OUT/tests-g32k.txt 2>&1
echo "tests (32 KiB groups): $(tr -d '\000' < $OUT/tests-g32k.txt | tail -n 1) at $(el) s"
echo quit | nvidia-cuda-mps-control
wc -l $OUT/groups.csv
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-stream/groups-s15/call.sh 2>&1 | tail; tar -cJf $O/b.tar.xz -C /tmp o
