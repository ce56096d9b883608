#!/usr/bin/env bash
# Session 5 call A (4 GPUs): the gcoll lines across GPUs (settings-differ
# lines first run), then bulk push unit sizes / pull / two-shot at np 2 and
# np 4 across GPUs, NCCL rows at np 4.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/pb; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
export PART_UCX_PREFIX=$d/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-b
{ nvidia-smi -L; nvidia-smi topo -m; git log -1 --format=%H; } > $OUT/node.txt 2>&1
ngpu=$(nvidia-smi -L | wc -l)
TEST_BUILD_DIR=/tmp/tbx timeout 200 tools/test.sh --gpu -k gcoll > $OUT/x-gcoll.txt 2>&1
echo "x gcoll: $(tail -1 $OUT/x-gcoll.txt) at $(el) s"
. bench/common.sh; bench_nccl
bench_cuda_build bench/b_coll_gpu.cu /tmp/plainb $nccl -- $ncclibs
run() { local np=$1 lab=$2 grids=$3; shift 3; BENCH_LABEL=$lab timeout 60 mpirun -np $np --bind-to none --mca part ucx "$@" -x BENCH_LABEL ${BENCH_NO_TRADITIONAL:+-x BENCH_NO_TRADITIONAL} /tmp/plainb allreduce $grids 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
export BENCH_NO_TRADITIONAL=1
sweep() { local np=$1 f=$2
  run $np -def 4,16,64,256 >> $f
  run $np -u4k 4,16,64,256 --mca part_ucx_coll_gpu_unit_bytes 4096 >> $f
  run $np -u2k 4,16,64,256 --mca part_ucx_coll_gpu_unit_bytes 2048 >> $f
  run $np -u2k-b64 16,64,256 --mca part_ucx_coll_gpu_unit_bytes 2048 --mca part_ucx_coll_gpu_blocks 64 >> $f
  run $np -pull 4,16,64,256 --mca part_ucx_coll_gpu_bulk_bytes 0 >> $f
  run $np -bulk2m 256,512 --mca part_ucx_coll_gpu_bulk_bytes 2097152 --mca part_ucx_coll_gpu_twoshot_bytes 4194304 >> $f
  run $np -ts 256,512 >> $f
}
sweep 2 $OUT/x2.csv; echo "np2 sweep at $(el) s"
(unset BENCH_NO_TRADITIONAL; run 2 "" 1,4,16,64,256,1024 > $OUT/x2-nccl.csv); echo "np2 nccl at $(el) s"
if [ $ngpu -ge 4 ]; then
  sweep 4 $OUT/x4.csv; echo "np4 sweep at $(el) s"
  unset BENCH_NO_TRADITIONAL
  run 4 "" 1,4,16,64,256,1024 > $OUT/x4-nccl.csv; echo "np4 nccl at $(el) s"
fi
grep -a -h FAIL $OUT/*.txt | head -20
