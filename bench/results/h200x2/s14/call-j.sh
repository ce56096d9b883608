#!/usr/bin/env bash
# Session 14, call J (two GPUs), bundle of c55d17a's install (0c8bdaf's
# code). Issue 23's DL step against NCCL with the engine at the greatest
# priority (default) and at 0: examples/dl, np 2 one rank a GPU, 65536 to
# 4M features, every mode (mpi, part, stream, nccl), two rounds.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
cuda=${CUDA_HOME:-/usr/local/cuda}
"$cuda/bin/nvcc" -O3 -std=c++17 -arch=sm_90 $nccl -ccbin "$(command -v mpicxx)" -c -o /tmp/dl.o examples/dl/dl.cu &&
    mpicxx -o /tmp/dl /tmp/dl.o -L"$cuda/lib64" -L"$cuda/lib" -lcudart $ncclibs > $OUT/build-dl.txt 2>&1 || { echo "no dl"; exit 1; }
for r in 1 2; do
  for f in 65536 262144 1048576 4194304; do
    timeout 60 mpirun -np 2 --bind-to none --mca part ucx /tmp/dl -f $f -b 64 -i 30 -p 32 2>&1 | tr -d '\000' | grep -a '^dl,' | sed "s/^dl,\([a-z]*\),/dl,\1-prio1-r$r,/" >> $OUT/dl.csv
    timeout 60 mpirun -np 2 --bind-to none --mca part ucx --mca part_ucx_coll_gpu_priority 0 /tmp/dl -f $f -b 64 -i 30 -p 32 -m part,stream 2>&1 | tr -d '\000' | grep -a '^dl,' | sed "s/^dl,\([a-z]*\),/dl,\1-prio0-r$r,/" >> $OUT/dl.csv
  done
  echo "round $r at $(el) s"
done
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s15j.sh $OUT/call.sh; bash .bundle/exp/s15j.sh 2>&1 | tail; tar -cJf $O/j.tar.xz -C /tmp o
