#!/usr/bin/env bash
# This session's last call (4 GPUs): the done words at a block's end
# (472334f) against the plugin before it (9db17e9, .bundle/old-src), one
# install, plugins swapped, two rounds, np 2 and 4 at 4 KiB-4 MiB, with
# NCCL; then every gcoll line (gpu-gcoll, gpu-stream-gcoll) across GPUs
# and the push/bulk sanitizer lines on the new plugin.
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
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -I.bundle/old-src -o /tmp/old.so .bundle/old-src/part_ucx_device.cu > $OUT/build.txt 2>&1 || echo "old plugin build failed"
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs >> $OUT/build.txt 2>&1 || echo "build failed"
echo "built at $(el) s"
run() { local np=$1 lab=$2 grids=$3; shift 3
  BENCH_LABEL=$lab timeout 90 mpirun -np $np --bind-to none --oversubscribe --mca part ucx "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plain allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
G=1,4,16,64,256,1024
for np in 2 4; do
  cp /tmp/new.so $plugin; run $np "" $G >> $OUT/x-nccl.csv
  for r in 1 2; do
    cp /tmp/old.so $plugin; BENCH_NO_TRADITIONAL=1 run $np -old-r$r $G >> $OUT/x-ab.csv
    cp /tmp/new.so $plugin; BENCH_NO_TRADITIONAL=1 run $np -new-r$r $G >> $OUT/x-ab.csv
  done
  echo "np $np at $(el) s"
done
cp /tmp/new.so $plugin
left=$(( 470 - $(el) ))
TEST_BUILD_DIR=/tmp/tbp TEST_TIMEOUT=60 timeout $left tools/test.sh --gpu -k '@(gpu-gcoll|gpu-stream-gcoll)' > $OUT/x-gcoll.txt 2>&1
echo "x gcoll: $(tr -d '\000' < $OUT/x-gcoll.txt | tail -n 1) at $(el) s"
mkdir -p /tmp/fl; for f in $(tr -d '\000' < $OUT/x-gcoll.txt | awk '/^FAIL/{print $2}'); do cp /tmp/tbp/$f.*log /tmp/fl/ 2>/dev/null; done
ls /tmp/fl | grep -q . && tar -cJf $OUT/failed-logs.tar.xz -C /tmp fl
left=$(( 555 - $(el) ))
[ $left -gt 30 ] && TEST_BUILD_DIR=/tmp/tbp TEST_REUSE_BUILD=1 timeout $left bash tools/sanitize-gpu.sh $OUT/sanitize.txt -k 'san-gcoll-@(allreduce|push|twoshot-push|bulk)*' > /dev/null 2>&1
echo "sanitize: $(tr -d '\000' < $OUT/sanitize.txt 2>/dev/null | grep -a 'passed' | tr '\n' ' ') at $(el) s"
