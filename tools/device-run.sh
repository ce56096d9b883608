#!/usr/bin/env bash
# The one command for GPU runs, on a GPU node without a package registry:
#   tools/device-run.sh BUNDLE.tar.xz OUTDIR [-k PATTERN]
#   DEVICE_BENCH=1   then bench/run-all too, packed as OUTDIR/bench-all.tar.xz
#                    (a lent machine sends back only a few files);
#                    DEVICE_BENCH=NAME: bench/run-NAME.sh alone, packed as
#                    OUTDIR/bench-NAME.tar.xz; several NAMEs, spaced:
#                    each in turn
#   DEVICE_TESTS=0   skip the GPU suite (a call is limited to 10 minutes:
#                    the suite and every benchmark take two calls)
#   DEVICE_SHARDS=N  on a node of at least 2N GPUs, the GPU suite's lines of
#                    one and two ranks in N shards side by side, shard i on
#                    GPUs 2i and 2i+1 (one rank per GPU), then the lines of
#                    more ranks on every GPU: a 10-minute call holds the
#                    whole suite on four GPUs with N=2 (default 1: in turn)
#   DEVICE_SHARD_GPUS=1  with DEVICE_SHARDS=N on a node of at least N GPUs
#                    (and DEVICE_MPS=1): every line dealt round the N
#                    shards, shard i with every rank on GPU i, as on a
#                    one-GPU machine (default 2: one rank a GPU, as above)
#   DEVICE_MPS=1     run everything under CUDA MPS (a control daemon started
#                    for the run and stopped after): ranks that share a GPU
#                    then run side by side instead of time-sliced
#   DEVICE_SANITIZE="OPTIONS"  then tools/sanitize-gpu.sh with these
#                    tools/test.sh options (e.g. "-k san-stream"), into
#                    OUTDIR/sanitize.txt
#   DEVICE_HANGDUMP=S  a test still running after S seconds prints every
#                    thread's backtrace into its log (tools/hangdump.c; default
#                    half of TEST_TIMEOUT, 0: off): cuda-gdb cannot attach
#                    under MPS
# The logs of failed tests come back as OUTDIR/failed-logs.tar.xz (a lent
# machine returns only a few files).
# Unpacks the bundle made by tools/bundle.sh, records what the node is and
# what Open MPI and UCX see there, runs the GPU suite, and writes
# OUTDIR/node.txt and OUTDIR/gpu-tests.txt.
set -uo pipefail
bundle=${1:?usage: tools/device-run.sh BUNDLE.tar.xz OUTDIR}
out=${2:?usage: tools/device-run.sh BUNDLE.tar.xz OUTDIR}
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
dest=${PART_UCX_NODE_DIR:-/tmp/part-ucx-node}

mkdir -p "$dest" "$out"
tar -xJf "$bundle" -C "$dest" || { echo "device-run: cannot unpack $bundle" >&2; exit 1; }
. "$dest/part-ucx/env.sh"
export PART_UCX_PREFIX=$dest/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache

{
    echo "== date"; date -u
    echo "== nvidia-smi -L"; nvidia-smi -L
    echo "== nvidia-smi topo -m"; nvidia-smi topo -m
    echo "== nvcc"; "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version | tail -n 2
    echo "== ompi_info (accelerator, part)"; ompi_info | grep -E "MCA (accelerator|part)"
    echo "== ucx_info -v"; ucx_info -v
    echo "== ucx_info -d (CUDA transports)"; ucx_info -d | grep -E "Transport: cuda|Device: cuda"
} > "$out/node.txt" 2>&1
cat "$out/node.txt"

if [ -n "${DEVICE_MPS:-}" ]; then
    export CUDA_MPS_PIPE_DIRECTORY=/tmp/part-ucx-mps CUDA_MPS_LOG_DIRECTORY=/tmp/part-ucx-mps-log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    if nvidia-cuda-mps-control -d; then
        trap 'echo quit | nvidia-cuda-mps-control' EXIT
        echo "== CUDA MPS: control daemon started for this run" >> "$out/node.txt"
    else
        echo "device-run: cannot start CUDA MPS; running without" >&2
        unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
    fi
fi

# tools/test.sh --gpu "$@", in DEVICE_SHARDS shards where the GPUs allow
gpu_suite() {
    local shards=${DEVICE_SHARDS:-1} per=${DEVICE_SHARD_GPUS:-2} ngpu i devs=() pids=() rc=0
    local passed=0 failed=0 f
    ngpu=$(nvidia-smi -L | wc -l)
    [ "$per" = 1 ] || per=2
    if [ "$shards" -le 1 ] || [ "$ngpu" -lt $((per * shards)) ]; then
        tools/test.sh --gpu "$@"
        return
    fi
    # one GPU a shard: every line round the shards; two: the lines of one
    # or two ranks, the others apart on every GPU
    rm -f "$dest"/shard-*.list "$dest/wide.list"
    awk -v n="$shards" -v d="$dest" -v per="$per" '/^[ \t]*(#|$)/ { next }
        per == 1 || $2 <= 2 { print > (d "/shard-" (k++ % n) ".list"); next }
        { print > (d "/wide.list") }' "$here/tests/gpu.list"
    for ((i = 0; i < shards; i++)); do
        devs[i]=$((per * i)); [ "$per" = 1 ] || devs[i]=${devs[i]},$((per * i + 1))
        CUDA_VISIBLE_DEVICES=${devs[i]} TEST_LIST=$dest/shard-$i.list \
            TEST_BUILD_DIR=$dest/tests-$i tools/test.sh --gpu "$@" > "$dest/shard-$i.txt" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || rc=1
        echo "== shard $i: GPUs ${devs[i]}, $(wc -l < "$dest/shard-$i.list") lines"
        cat "$dest/shard-$i.txt"
    done
    if [ -s "$dest/wide.list" ]; then
        echo "== lines of more than two ranks: every GPU ($ngpu)"
        TEST_LIST=$dest/wide.list TEST_BUILD_DIR=$dest/tests-0 TEST_REUSE_BUILD=1 \
            tools/test.sh --gpu "$@" > "$dest/wide.txt" 2>&1 || rc=1
        cat "$dest/wide.txt"
    fi
    for f in "$dest"/shard-*.txt "$dest/wide.txt"; do
        [ -e "$f" ] || continue
        read -r p q < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$f" | tail -n 1)
        passed=$((passed + ${p:-0})); failed=$((failed + ${q:-1}))
    done
    echo "$passed passed, $failed failed"
    return $rc
}

rc=0
# A lent machine allows 10 minutes a call: a hanging test must not take 3.
export TEST_TIMEOUT=${TEST_TIMEOUT:-60}
if [ "${DEVICE_TESTS:-1}" != 0 ]; then
    hang=${DEVICE_HANGDUMP:-$((TEST_TIMEOUT / 2))}
    if [ "$hang" -gt 0 ] && cc -shared -fPIC -O2 -o "$dest/libhangdump.so" \
            "$here/tools/hangdump.c" -lpthread -ldl; then
        export TEST_WRAPPER="env LD_PRELOAD=$dest/libhangdump.so HANGDUMP_AFTER=$hang"
    fi
    cd "$here" && gpu_suite "$@" 2>&1 | tee "$out/gpu-tests.txt"
    rc=${PIPESTATUS[0]}
    unset TEST_WRAPPER
    failed=$(tr -d '\000' < "$out/gpu-tests.txt" | grep -o 'log: [^ ]*\.log' | cut -c6-)
    # shellcheck disable=SC2086
    [ -z "$failed" ] || tar -cJf "$out/failed-logs.tar.xz" --transform 's|.*/||' $failed 2>/dev/null
fi
if [ -n "${DEVICE_SANITIZE:-}" ]; then
    # shellcheck disable=SC2086
    TEST_REUSE_BUILD=1 "$here/tools/sanitize-gpu.sh" "$out/sanitize.txt" $DEVICE_SANITIZE \
        > /dev/null 2>&1 || rc=1
fi
if [ "${DEVICE_BENCH:-}" = 1 ]; then
    bash "$here/bench/run-all" "$out/bench-all" > "$out/bench-all.log" 2>&1
    tar -cJf "$out/bench-all.tar.xz" -C "$out" bench-all && rm -rf "$out/bench-all"
elif [ -n "${DEVICE_BENCH:-}" ]; then
    for b in $DEVICE_BENCH; do
        bash "$here/bench/run-$b.sh" "$out/bench-$b" > "$out/bench-$b.log" 2>&1
        tar -cJf "$out/bench-$b.tar.xz" -C "$out" "bench-$b" && rm -rf "${out:?}/bench-$b"
    done
fi
exit "$rc"
