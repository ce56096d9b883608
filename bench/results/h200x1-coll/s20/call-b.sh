#!/usr/bin/env bash
# Session 20, call B (one H200, every rank under CUDA MPS), bundle of the
# library as at e79a4e2 (s20's span after mode reverted).
# (1) Every stream-ordered GPU-engine line (gpu-gcoll-stream*,
#     gpu-stream-gcoll*): g_coll -S ran once per epoch sync since 16943cb,
#     -G 16 and -Y's expectations since this session.
# (2) Session 19's next-s20.sh, second half: b_coll_oneshot's kernel time
#     by events (back to back, and after a copy that leaves written lines)
#     np 1/2/4; the engine's result stores evict-first (engine-stcs) against
#     the plugin as built, marks mode, np 2 and 4, 4 and 64 MiB.
# (3) Where nsys exists: a timeline of np 2, 64 MiB, marks mode (stream and
#     graph rows), every kernel of both ranks, to see how long each
#     producer runs in these epochs and what runs beside it.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
mps_start
grep -E '^(gpu-gcoll-stream|gpu-stream-gcoll)' tests/gpu.list > /tmp/n.list
TEST_LIST=/tmp/n.list TEST_BUILD_DIR=/tmp/tb TEST_TIMEOUT=60 timeout 200 tools/test.sh --gpu > $OUT/tests.txt 2>&1
echo "tests at $(el) s: $(tr -d '\000' < $OUT/tests.txt | tail -1)"
bench_cuda_build bench/b_coll_oneshot.cu /tmp/oneshot > $OUT/build-oneshot.txt 2>&1
for r in 1 2; do
  for np in 1 2 4; do
    BENCH_KERNEL_EVENTS=1 timeout 60 mpirun -np $np --bind-to none --oversubscribe -x BENCH_KERNEL_EVENTS \
      /tmp/oneshot 4096,16384 2>&1 | tr -d '\000' | grep -a '^gallreduce' >> $OUT/kernel-events.csv
  done
done
echo "kernel events at $(el) s"
variants engine-stcs
export BENCH_NO_TRADITIONAL=1 BENCH_STREAM_KERNELS=1
for r in 1 2; do
  for np in 2 4; do
    [ $(el) -lt 420 ] || break
    for v in base engine-stcs; do
      use $v
      run $np -$v-r$r 1024,16384 --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_STREAM_KERNELS >> $OUT/mps-stcs.csv
    done
  done
done
use base
echo "stcs at $(el) s"
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none}" > $OUT/nsys.txt
if [ -n "$NSYS" ] && [ $(el) -lt 450 ]; then
  mkdir -p /tmp/ns
  BENCH_NO_HOST=1 timeout 90 mpirun -np 2 --bind-to none --oversubscribe --mca part ucx \
    --mca part_ucx_coll_gpu_after_bytes 1 -x BENCH_NO_TRADITIONAL -x BENCH_STREAM_KERNELS -x BENCH_NO_HOST \
    $NSYS profile -t cuda -f true -o /tmp/ns/r%q{OMPI_COMM_WORLD_RANK} /tmp/plain allreduce 16384 >> $OUT/nsys.txt 2>&1
  for r in 0 1; do
    timeout 60 $NSYS stats -r cuda_gpu_trace -f csv -o /tmp/ns/k$r /tmp/ns/r$r.nsys-rep >> $OUT/nsys.txt 2>&1
  done
  cp /tmp/ns/k*.csv $OUT/ 2>/dev/null
fi
echo "nsys at $(el) s"
mps_stop
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; bash bench/results/h200x1-coll/s20/call-b.sh 2>&1 | tail; tar -cJf $O/b.tar.xz -C /tmp o
