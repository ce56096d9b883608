#!/usr/bin/env bash
# Session 3 call 7: where the 1.8 us between "told" and "finish" go (traces with the
# host done store removed, t1, or the finish loop skipped for push, t2; timing-only
# variants n1, n2 against cur); 64 MiB with stderr.
set -u
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=/tmp/p; mkdir -p $d && tar -xJf .bundle/part-ucx.tar.xz -C $d
. $d/part-ucx/env.sh
{ nvidia-smi -L; nvidia-smi topo -m; git log -1 --format=%H; } > $OUT/node.txt 2>&1
. bench/common.sh; bench_nccl
bench_cuda_build .bundle/exp/b_coll_gpu.cu /tmp/traced -Ibench $nccl -- $ncclibs
bench_cuda_build bench/b_coll_gpu.cu /tmp/plain $nccl -- $ncclibs
pl=$d/part-ucx/lib/openmpi/part_ucx_device.so
ngpu=$(nvidia-smi -L | wc -l)
export BENCH_NO_TRADITIONAL=1
trc() { timeout 60 mpirun -np 2 --bind-to none --mca part ucx -x GCOLL_TRACE_LO -x GCOLL_TRACE_HI -x BENCH_NO_TRADITIONAL /tmp/traced allreduce "$@" 2>&1 | tr -d '\000'; }
run() { local lab=$1; shift; BENCH_LABEL=$lab timeout 60 mpirun -np 2 --bind-to none --mca part ucx -x BENCH_LABEL -x BENCH_NO_TRADITIONAL /tmp/plain allreduce "$@" 2>&1 | tr -d '\000' | grep -a '^gallreduce'; }
if [ $ngpu -ge 2 ]; then
  for v in trace trace_t1 trace_t2; do cp .bundle/exp/$v.so $pl
    GCOLL_TRACE_LO=600 GCOLL_TRACE_HI=603 trc 1 > $OUT/x-$v-1.txt
  done
  cp .bundle/exp/trace_t1.so $pl; GCOLL_TRACE_LO=600 GCOLL_TRACE_HI=603 trc 64 > $OUT/x-trace_t1-64.txt
  echo "traces at $(el) s"
  for r in 1 2; do for v in cur n1 n2; do cp .bundle/exp/$v.so $pl; run -$v 1,4,64,256 >> $OUT/x-ab.csv; done; done
  echo "ab at $(el) s"
  cp .bundle/exp/cur.so $pl
  unset BENCH_NO_TRADITIONAL
  timeout 120 mpirun -np 2 --bind-to none --mca part ucx /tmp/plain allreduce 16384 > $OUT/x-64mib.txt 2>&1
  echo "64 MiB rc $? at $(el) s"
fi
cd $OUT && tar -cJf traces.tar.xz x-trace*.txt && rm -f x-trace*.txt
