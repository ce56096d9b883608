#!/usr/bin/env bash
# A/B of the host copy's one-block kernel (part_ucx_gpu_host_copy_kernel:
# v0 off, the copy and event as before; v1 on, the default), the same
# bundle, two ranks under CUDA MPS, interleaved over three rounds:
# b_stream goodput progress_stream (and traditional beside it). On the
# device, after DEVICE_TESTS=0 tools/device-run.sh BUNDLE OUT:
#   bench/results/h200x1-stream/hcopy-kernel-ab/ab.sh OUTDIR
set -u
here=$(pwd); out=$1; mkdir -p "$out"
. /tmp/part-ucx-node/part-ucx/env.sh; . "$here/bench/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMPI_MCA_mca_base_component_show_load_errors=0 CUDA_DEVICE_MAX_CONNECTIONS=32
t=/tmp/hkab; rm -rf $t; mkdir -p $t
bench_cuda_build "$here/bench/b_stream.cu" $t/b_stream > $t/build.log 2>&1 || { cat $t/build.log; exit 1; }
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mpsp CUDA_MPS_LOG_DIRECTORY=/tmp/mpsl
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d
G=${AB_GRIDS:-1,4,16,32,64,256}
run() { # tag args...
    local tag=$1; shift
    timeout 150 mpirun -np 2 --bind-to none --mca part ucx "$@" 2>&1 | tr -d '\000' |
        grep -a "^stream_goodput\|rror" | sed "s/^/$tag,/" | tee -a "$out/ab.txt"
}
for round in 1 2 3; do
    run trad,$round $t/b_stream goodput traditional $G
    for p in 0 1; do
        run v$p,$round --mca part_ucx_gpu_host_copy_kernel $p $t/b_stream goodput progress_stream $G
    done
done
echo quit | nvidia-cuda-mps-control
python3 - "$out/ab.txt" <<'PY' | tee "$out/ab-table.txt"
import collections, sys
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.strip().split(',')
    if len(f) >= 8 and f[2] == 'stream_goodput':
        t[(f[0], int(f[4]))].append(float(f[6]))
grids = sorted({g for _, g in t})
print('%6s %22s %22s %22s %7s %7s' % ('grid', 'traditional GB/s', 'v0 (copy+event)', 'v1 (kernel)', 'v1/v0', 'v1/trad'))
for g in grids:
    a, b, c = t[('trad', g)], t[('v0', g)], t[('v1', g)]
    if a and b and c:
        print('%6d %22s %22s %22s %7.3f %7.3f' % (g, '/'.join('%.3f' % x for x in a), '/'.join('%.3f' % x for x in b),
              '/'.join('%.3f' % x for x in c), max(c) / max(b), max(c) / max(a)))
PY
