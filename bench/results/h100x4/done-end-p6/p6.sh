#!/usr/bin/env bash
# Last call (4 GPUs, short budget): the done words' own thread with more
# than one block (new) against 9db17e9's plugin (old), np 2 and 4 at
# 4 KiB-1 MiB, then the allreduce gcoll lines across GPUs.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; rm -rf $d; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-p
{ nvidia-smi -L; nvidia-smi topo -m; } > $OUT/node.txt 2>&1
plugin=$d/part-ucx/lib/openmpi/part_ucx_device.so
cp $plugin /tmp/new.so
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I.bundle/old-src -o /tmp/old.so .bundle/old-src/part_ucx_device.cu > $OUT/build.txt 2>&1 &
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs >> $OUT/build.txt 2>&1 || echo "build failed"
wait
echo "built at $(el) s"
run() { local np=$1 lab=$2 grids=$3; shift 3
  BENCH_LABEL=$lab timeout 60 mpirun -np $np --bind-to none --oversubscribe --mca part ucx "$@" -x BENCH_LABEL -x BENCH_NO_TRADITIONAL /tmp/plain allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
export BENCH_NO_TRADITIONAL=1
G=1,4,16,64,256
for np in 2 4; do
  cp /tmp/old.so $plugin; run $np -old $G >> $OUT/x-ab.csv
  cp /tmp/new.so $plugin; run $np -new $G >> $OUT/x-ab.csv
  echo "np $np at $(el) s"
done
cp /tmp/new.so $plugin
left=$(( 140 - $(el) ))
[ $left -gt 20 ] && TEST_BUILD_DIR=/tmp/tbp TEST_TIMEOUT=40 timeout $left tools/test.sh --gpu -k '@(gpu-gcoll-allreduce|gpu-gcoll-push|gpu-gcoll-bulk|gpu-stream-gcoll-graph)' > $OUT/x-gcoll.txt 2>&1
echo "x gcoll: $(tr -d '\000' < $OUT/x-gcoll.txt | grep -a -c '^PASS') passed, $(tr -d '\000' < $OUT/x-gcoll.txt | grep -a -c '^FAIL') failed at $(el) s"
