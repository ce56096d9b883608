#!/usr/bin/env bash
# Session 14, call H (two GPUs, on call G's machine), bundle of 43e799a:
# kernel + allreduce, np 2 one rank a GPU, the defaults against NCCL, then
# part_ucx_coll_gpu_priority 0 at 4-64 MiB (run as one command line).
. bench/call-common.sh .bundle/part-ucx.tar.xz
run 2 "" 1,16,64,192,256,512,1024,4096,16384 > $OUT/x2-defaults.csv
export BENCH_NO_TRADITIONAL=1
run 2 -prio0-r1 1024,4096,16384 --mca part_ucx_coll_gpu_priority 0 > $OUT/x2-prio0.csv
