#!/usr/bin/env bash
# Session 17, call J (one H200, two ranks under MPS), bundle of f244fe8,
# run as one command line: every gpu-kcopy line of tests/gpu.list with
# part_ucx_device_group_bytes 32768 (the groups the new default gives at
# 256-1024 blocks of 8 KiB), data checked.
. bench/call-env.sh .bundle/part-ucx.tar.xz; export CUDA_VISIBLE_DEVICES=0 CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog; mkdir -p /tmp/mps /tmp/mpslog; nvidia-cuda-mps-control -d; awk '!/^#/ && NF && $1 ~ /^gpu-kcopy/' tests/gpu.list > /tmp/k.list; OMPI_MCA_part_ucx_device_group_bytes=32768 TEST_LIST=/tmp/k.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=30 timeout 140 tools/test.sh --gpu > $OUT/kcopy-g32k.txt 2>&1; tail -n 3 $OUT/kcopy-g32k.txt; echo quit | nvidia-cuda-mps-control
