#!/usr/bin/env bash
# Build the tests against the installed prefix and run them under mpirun.
# Prints one line per test and a final "N passed, N failed"; exits non-zero
# when anything failed.
#
#   tools/test.sh              CPU suite (tests/cpu.list) and build checks
#   tools/test.sh --gpu        GPU suite (tests/gpu.list); skipped without a GPU
#   tools/test.sh -k PATTERN   only tests whose name matches PATTERN
#   tools/test.sh -x PATTERN   not the tests whose name matches PATTERN (with
#                              -k: of those; e.g. the GPU suite in two device
#                              calls: --gpu -x gpu-stream, then --gpu -k gpu-stream)
#   TEST_TIMEOUT=S             per-test limit in seconds (default 180)
#   TEST_WRAPPER="valgrind ..."  prefix every MPI process (see docs/developing.md)
#   TEST_LIST=FILE             run FILE's lines instead of tests/SUITE.list
#   TEST_REUSE_BUILD=1         keep test programs already built (repeated runs)
set -uo pipefail
. "$(dirname "$0")/common.sh"

suite=cpu
filter=
exclude=
while [ $# -gt 0 ]; do
    case "$1" in
        --gpu) suite=gpu ;;
        -k) filter=$2; shift ;;
        -x) exclude=$2; shift ;;
        *) echo "usage: tools/test.sh [--gpu] [-k PATTERN] [-x PATTERN]" >&2; exit 2 ;;
    esac
    shift
done

PREFIX=$PART_UCX_PREFIX
[ -x "$PREFIX/bin/mpicc" ] || { echo "test: no install at $PREFIX; run tools/setup.sh first" >&2; exit 1; }
. "$PART_UCX_SRC/tools/env.sh"

BUILD=${TEST_BUILD_DIR:-$PART_UCX_CACHE/tests-$PART_UCX_KEY}
mkdir -p "$BUILD"
timeout_s=${TEST_TIMEOUT:-180}
wrapper=${TEST_WRAPPER:-}
passed=0
failed=0
results=()

report() { # name np status seconds [detail]
    printf '%-4s  %-34s np=%-2s %7.2fs %s\n' "$3" "$1" "$2" "$4" "${5:-}"
    if [ "$3" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

selected() {
    { [ -z "$filter" ] || [[ "$1" == *$filter* ]]; } &&
        { [ -z "$exclude" ] || [[ "$1" != *$exclude* ]]; }
}

# --- build the test programs ------------------------------------------------
build_log=$BUILD/build.log
build_failed=()
reuse() { [ -n "${TEST_REUSE_BUILD:-}" ] && [ -x "$1" ]; }
[ -n "${TEST_REUSE_BUILD:-}" ] || : > "$build_log"
for src in "$PART_UCX_SRC"/tests/cpu/*.c; do
    exe=$BUILD/$(basename "$src" .c)
    reuse "$exe" && continue
    rm -f "$exe" # a program that no longer compiles must not run as it was
    if ! mpicc -O2 -g -Wall -Wextra -Werror -pthread -o "$exe" "$src" >>"$build_log" 2>&1; then
        build_failed+=("$(basename "$src")")
    fi
done
have_nvcc=no
if [ "$part_ucx_use_cuda" = yes ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then
    have_nvcc=yes
    for src in "$PART_UCX_SRC"/tests/gpu/*.cu "$PART_UCX_SRC"/examples/*/*.cu; do
        [ -e "$src" ] || continue
        exe=$BUILD/$(basename "$src" .cu)
        ucx_libs=   # u_* tests call UCP themselves
        [[ $(basename "$src") == u_* ]] && ucx_libs="-lucp -lucs"
        reuse "$exe" && continue
        rm -f "$exe" "$exe.o"
        # nvcc compiles, the install's mpicc links: the MPI flags come from it.
        if ! { "$CUDA_HOME/bin/nvcc" -O2 -std=c++17 -arch=sm_90 -ccbin "$(command -v mpicxx)" \
                   -I"$PART_UCX_SRC/tests" -c -o "$exe.o" "$src" &&
               mpicxx -o "$exe" "$exe.o" -L"$CUDA_HOME/lib64" -lcudart $ucx_libs; } >>"$build_log" 2>&1; then
            build_failed+=("$(basename "$src")")
        fi
    done
fi

# --- build checks -------------------------------------------------------------
run_check() { # name command...
    local name=$1; shift
    selected "$name" || return 0
    local t0=$SECONDS out
    if out=$("$@" 2>&1); then
        report "$name" - PASS $((SECONDS - t0))
    else
        report "$name" - FAIL $((SECONDS - t0)) "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
    fi
}

check_compiled() {
    [ ${#build_failed[@]} -eq 0 ] || { echo "did not compile: ${build_failed[*]} (see $build_log)"; return 1; }
}

check_patches() {
    local p want
    for p in "$PART_UCX_SRC"/ompi-patches/*.patch; do
        want="$(sha256sum < "$p" | cut -d' ' -f1)  $(basename "$p")"
        grep -qxF "$want" "$PREFIX/share/part-ucx/patches.sha256" ||
            { echo "patch not in the build: $(basename "$p")"; return 1; }
    done
}

check_cuda_objects() {
    [ "$part_ucx_use_cuda" = yes ] || { echo "CUDA not in this build (skip)"; return 0; }
    [ -e "${PART_UCX_UCX_PREFIX:-$PREFIX}/lib/ucx/libuct_cuda.so" ] ||
        { echo "UCX has no CUDA transports"; return 1; }
    local n=0 src
    for src in "$PART_UCX_SRC"/tests/gpu/*.cu "$PART_UCX_SRC"/examples/*/*.cu; do
        [ -e "$src" ] || continue
        [ -s "$BUILD/$(basename "$src" .cu).o" ] || { echo "no object for $src"; return 1; }
        n=$((n + 1))
    done
    [ $n -gt 0 ] || { echo "no GPU test sources"; return 1; }
    # the device plugin of GPU collectives, loaded by libmpi on first use
    local plugin=$PREFIX/lib/openmpi/part_ucx_device.so
    [ -e "$plugin" ] || { echo "device plugin $plugin not installed"; return 1; }
    nm -D "$plugin" | grep " T mca_part_ucx_device_ops$" >/dev/null ||
        { echo "device plugin lacks its entry point"; return 1; }
    ! readelf -d "$plugin" | grep -q 'NEEDED.*cudart' ||
        { echo "device plugin needs a shared CUDA runtime"; return 1; }
}

# The GPU benchmarks run only on a GPU node, from their run scripts: compile
# them here (object files, with the flags those scripts use), so that a
# change of an API they call shows in CI and not on the next GPU run.
# A benchmark's CUDA source compiled as bench/common.sh builds it: SRC to
# OBJ, with FLAGS... added.
bench_nvcc() {
    local src=$1 obj=$2
    shift 2
    "$CUDA_HOME/bin/nvcc" -O2 -std=c++17 -arch=sm_90 -ccbin "$(command -v mpicxx)" \
        -isystem "${PART_UCX_UCX_PREFIX:-$PREFIX}/include" "$@" -c -o "$obj" "$src"
}

check_bench_compile() {
    [ "$part_ucx_use_cuda" = yes ] || { echo "CUDA not in this build (skip)"; return 0; }
    [ "$have_nvcc" = yes ] || { echo "no nvcc"; return 1; }
    local src failed=() log=$BUILD/bench-compile.log
    : > "$log"
    for src in "$PART_UCX_SRC"/bench/*.cu; do
        bench_nvcc "$src" "$BUILD/bench.o" >> "$log" 2>&1 || failed+=("$(basename "$src")")
    done
    rm -f "$BUILD/bench.o"
    [ ${#failed[@]} -eq 0 ] || { echo "did not compile: ${failed[*]} (see $log)"; return 1; }
}

# A kernel calling MPIX_Pready must stay within 32 registers a thread: past
# that an SM holds one block of 1024 threads instead of two, which doubled
# the benchmarks' kernel times (bench/results/h200x1-mps/registers.txt).
check_device_registers() {
    [ "$part_ucx_use_cuda" = yes ] || { echo "CUDA not in this build (skip)"; return 0; }
    [ "$have_nvcc" = yes ] || { echo "no nvcc"; return 1; }
    local src=$BUILD/regs.cu out level regs
    cat > "$src" <<'CU'
#include <mpix_part_device.h>
__global__ void k_auto(float *x, int bpp, struct mpix_prequest_s *preq)
{ long i = blockIdx.x * (long) blockDim.x + threadIdx.x; x[i] = (float) i; MPIX_Pready(blockIdx.x / bpp, preq); }
__global__ void k_block(float *x, int bpp, struct mpix_prequest_s *preq)
{ long i = blockIdx.x * (long) blockDim.x + threadIdx.x; x[i] = (float) i; MPIX_Pready_block(blockIdx.x / bpp, preq); }
__global__ void k_warp(float *x, int bpp, struct mpix_prequest_s *preq)
{ long i = blockIdx.x * (long) blockDim.x + threadIdx.x; x[i] = (float) i; MPIX_Pready_warp(blockIdx.x / bpp, preq); }
__global__ void k_thread(float *x, int bpp, struct mpix_prequest_s *preq)
{ long i = blockIdx.x * (long) blockDim.x + threadIdx.x; x[i] = (float) i; MPIX_Pready_thread(blockIdx.x / bpp, preq); }
CU
    out=$("$CUDA_HOME/bin/nvcc" -O2 -arch=sm_90 -I"$PREFIX/include" -Xptxas -v -c -o /dev/null \
          "$src" 2>&1) || { echo "$out"; return 1; }
    for level in auto block warp thread; do
        regs=$(awk -v f="k_${level}P" '/Compiling entry function/ { cur = index($0, f) > 0 }
            cur && match($0, /Used [0-9]+ registers/) { print substr($0, RSTART + 5, RLENGTH - 15); exit }' <<<"$out")
        [ -n "$regs" ] || { echo "no register count for MPIX_Pready ($level)"; return 1; }
        [ "$regs" -le 32 ] || { echo "MPIX_Pready ($level): $regs registers a thread (> 32)"; return 1; }
    done
}

check_ompi_info() {
    local out
    out=$(ompi_info --param part ucx --level 9) || return 1
    for v in part_ucx_priority part_ucx_transfer part_ucx_num_workers \
             part_ucx_parrived_progress_interval; do
        grep -q "$v" <<<"$out" || { echo "ompi_info lacks $v"; return 1; }
    done
    ompi_info | grep -q "MCA part: persist" || { echo "part/persist missing"; return 1; }
}

# Levels 1-5 of part/ucx's parameters are what users tune: anything else
# (developers' switches and thresholds) stays at level 9. Help strings say
# what a parameter does, without measurements ("10 us", "191 GB/s", "2x ").
mca_part_ucx_user_params=" part_ucx_priority part_ucx_tls part_ucx_devices
    part_ucx_opal_mem_hooks part_ucx_transfer part_ucx_rtr part_ucx_num_workers
    part_ucx_join_bytes part_ucx_parrived_progress_interval part_ucx_allreduce_algorithm
    part_ucx_coll_transport_bytes part_ucx_device_copy part_ucx_pready_aggregate
    part_ucx_device_group_bytes part_ucx_coll_gpu_engine part_ucx_stream_graph_start part_ucx_stream_graph_join "
check_ompi_info_levels() {
    local level out name bad n=0
    for level in 3 5; do
        out=$(ompi_info --param part ucx --level $level --parsable 2>/dev/null) || return 1
        for name in $(sed -n 's/^mca:part:ucx:param:\([^:]*\):level:.*/\1/p' <<<"$out"); do
            [[ "$mca_part_ucx_user_params" == *[[:space:]]$name[[:space:]]* ]] ||
                { echo "level $level shows $name, not in the user-level list"; return 1; }
            n=$((n + 1))
        done
    done
    [ $n -gt 0 ] || { echo "ompi_info shows no part/ucx parameters"; return 1; }
    out=$(ompi_info --param part ucx --level 9 --parsable 2>/dev/null) || return 1
    bad=$(grep -E '^mca:part:ucx:(param|pvar):[^:]*:help:' <<<"$out" |
          grep -E '[0-9] ?([mun]s|[KMG]i?B/s|%)([^[:alnum:]]|$)|[0-9]x( |$)')
    [ -z "$bad" ] || { echo "measurement in a help string: $bad"; return 1; }
    for name in parts_put parts_am parts_host_copy parts_kernel_copy bytes_sent parts_held \
                rtr_riding rtr_alone setup_unexpected coll_gpu_epochs coll_gpu_twoshot_epochs \
                coll_gpu_push_epochs; do
        grep -q "^mca:part:ucx:pvar:part_ucx_$name:class:counter$" <<<"$out" ||
            { echo "ompi_info --level 9 lacks the counter part_ucx_$name"; return 1; }
    done
}

check_libmpi_deps() {
    # libmpi and everything it loads (UCX's libraries included) without CUDA
    ! ldd "$PREFIX/lib/libmpi.so" | grep -E 'cudart|libcuda' ||
        { echo "libmpi needs the CUDA runtime or driver"; return 1; }
    # The MPI extension part: PMPIX_ defined, MPIX_ defined or a weak alias.
    local f syms
    syms=$(nm -D "$PREFIX/lib/libmpi.so")
    for f in MPIX_Pbuf_prepare MPIX_Pbuf_prepareall MPIX_Prequest_create_layout \
             MPIX_Prequest_free MPIX_Pallreduce_init MPIX_Preduce_init MPIX_Pbcast_init \
             MPIX_Pallgather_init MPIX_Palltoall_init MPIX_Info_set_hex MPIX_Stream_create \
             MPIX_Stream_free MPIX_Stream_comm_create MPIX_Start_enqueue MPIX_Startall_enqueue \
             MPIX_Wait_enqueue MPIX_Waitall_enqueue; do
        [ "$(grep -c " [TW] $f\$" <<<"$syms")" = 1 ] || { echo "$f not exported by libmpi"; return 1; }
        [ "$(grep -c " T P$f\$" <<<"$syms")" = 1 ] || { echo "P$f not exported by libmpi"; return 1; }
    done
    grep -q "^#define OMPI_HAVE_MPI_EXT_PART 1" "$PREFIX/include/mpi-ext.h" ||
        { echo "mpi-ext.h does not declare the MPI extension part"; return 1; }
    [ -e "$PREFIX/include/mpix_part_device.h" ] || { echo "mpix_part_device.h not installed"; return 1; }
}

# Every MPIX_ function of part/ucx that libmpi exports (those its headers
# declare: Open MPI's own MPIX_ functions have their own pages or none), the
# device functions, and every page in docs/ are rendered into the prefix,
# and man finds them there.
check_man_pages() {
    local man=$PREFIX/share/man ours names name page src sec
    # tools/bundle.sh leaves share/man behind, where setup's install has Open MPI's
    [ -d "$man" ] || { echo "no $man: a bundle (skip)"; return 0; }
    ours=$(grep -rhoE --include='*.h' --exclude-dir=tests --exclude-dir=bench \
               --exclude-dir=examples --exclude-dir=.git '\bMPIX_[A-Za-z_]+' "$PART_UCX_SRC" | sort -u)
    names=$(nm -D "$PREFIX/lib/libmpi.so" | awk '$2 ~ /^[TW]$/ && $3 ~ /^MPIX_/ { print $3 }' |
            grep -xF "$ours")
    names+=" $(grep -hoE '__device__ static inline int MPIX_[A-Za-z_]+' \
                   "$PREFIX/include/mpix_part_device.h" | awk '{ print $5 }')"
    for name in MPIX_Pbuf_prepare MPIX_Pready MPIX_Parrived; do
        grep -qw "$name" <<<"$names" || { echo "$name: not exported nor in mpix_part_device.h"; return 1; }
    done
    for name in $names; do
        page=$(MANPATH=$man man -w "$name" 2>&1) || { echo "man -w $name: $page"; return 1; }
        [[ "$page" == "$man"/man3/* ]] || { echo "man -w $name: $page, not under $man"; return 1; }
    done
    for src in "$PART_UCX_SRC"/docs/*.rst; do
        name=$(basename "$src" .rst)
        sec=${name##*.}
        [ -s "$man/man$sec/$name" ] || { echo "docs/$name.rst not rendered into $man/man$sec"; return 1; }
    done
}

# The component compiles without warnings (its Makefile.am does not force
# -Werror on users): its sources are compiled again with -Werror in a copy
# of its build directory, beside it so that the Makefile's relative paths
# hold; the build tree and the install stay as setup left them. A clean
# result is remembered for the sources' content.
check_component_warnings() {
    local dir=$PART_UCX_WORK/openmpi-$OMPI_VERSION/ompi/mca/part/ucx copy sum cflags
    [ -e "$dir/Makefile" ] || { echo "no component build tree at $dir (skip)"; return 0; }
    copy=$(dirname "$dir")/.ucx-werror
    sum=$(cat "$dir"/Makefile "$dir"/*.[ch] "$dir"/*.cu 2>/dev/null | sha256sum | cut -c1-16)
    [ "$(cat "$copy.ok" 2>/dev/null)" = "$sum" ] && return 0
    rm -rf "$copy" "$copy.ok" && cp -a "$dir" "$copy" &&
        rm -rf "$copy"/*.lo "$copy"/*.o "$copy"/*.la "$copy"/.libs "$copy"/part_ucx_device.so "$copy"/part_ucx_device.flags || return 1
    cflags="$(sed -n 's/^CFLAGS = //p' "$copy/Makefile") -Werror"
    if ! make -C "$copy" -s -j"$(nproc)" CFLAGS="$cflags" \
            PART_UCX_NVCC_FLAGS="-O3 -std=c++17 -arch=sm_90 -Werror all-warnings" \
            >"$copy.log" 2>&1; then
        grep -m 3 -E 'warning|error' "$copy.log"
        echo "full log: $copy.log"
        return 1
    fi
    echo "$sum" > "$copy.ok"
    rm -rf "$copy" "$copy.log"
}

# The GPU engine's trace (part_ucx_device_trace.h, bench/trace/), which no
# install builds, still compiles without warnings, and so does the
# benchmark's side of it (b_coll_gpu.cu -DBENCH_TRACE), so that a trace on
# a GPU node finds them compiling.
check_device_trace() {
    [ "$part_ucx_use_cuda" = yes ] || { echo "CUDA not in this build (skip)"; return 0; }
    [ "$have_nvcc" = yes ] || { echo "no nvcc"; return 1; }
    local out flag
    for flag in -DPART_UCX_GCOLL_TRACE -DPART_UCX_STREAM_TRACE; do
        out=$("$CUDA_HOME/bin/nvcc" -O3 -std=c++17 -arch=sm_90 -Werror all-warnings -shared \
                  -Xcompiler -fPIC,-Wall,-Wextra $flag -I"$PART_UCX_SRC" \
                  -o "$BUILD/traced.so" "$PART_UCX_SRC/part_ucx_device.cu" 2>&1) ||
            { echo "$out"; return 1; }
    done
    out=$(bench_nvcc "$PART_UCX_SRC/bench/b_coll_gpu.cu" "$BUILD/traced.o" \
                  -Werror all-warnings -DBENCH_TRACE 2>&1) || { echo "$out"; return 1; }
    rm -f "$BUILD/traced.so" "$BUILD/traced.o"
}

# The layers of the component call only downward (tools/check-layers.sh
# lists them), read from the objects of the component as built.
check_layers() {
    local archive=$PART_UCX_WORK/openmpi-$OMPI_VERSION/ompi/mca/part/ucx/.libs/libmca_part_ucx.a
    [ -e "$archive" ] || { echo "no component archive at $archive"; return 1; }
    "$PART_UCX_SRC/tools/check-layers.sh" "$archive"
}

if [ "$suite" = cpu ]; then
    run_check build:tests-compile check_compiled
    run_check build:patches-applied check_patches
    run_check build:cuda-objects check_cuda_objects
    run_check build:bench-compile check_bench_compile
    run_check build:ompi_info-params check_ompi_info
    run_check build:ompi_info-levels check_ompi_info_levels
    run_check build:device-registers check_device_registers
    run_check build:libmpi-exports-mpix check_libmpi_deps
    run_check build:man-pages check_man_pages
    run_check build:component-warnings check_component_warnings
    run_check build:device-trace check_device_trace
    run_check build:layers check_layers
fi

# --- MPI tests ------------------------------------------------------------------
list=${TEST_LIST:-$PART_UCX_SRC/tests/$suite.list}
if [ "$suite" = gpu ] && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP  GPU suite: no GPU on this machine (nvidia-smi -L failed)"
    echo "$passed passed, $failed failed"
    exit 0
fi

export OMPI_MCA_mca_base_component_show_load_errors=0
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe

while read -r name np rest; do
    [ -z "$name" ] || [[ "$name" == \#* ]] && continue
    selected "$name" || continue
    rest=" $rest"
    mpiopts=${rest%% -- *}
    prog=${rest#* -- }
    exe=$BUILD/${prog%% *}
    args=${prog#"${prog%% *}"}
    log=$BUILD/$name.np$np.log
    part="--mca part ucx"
    [[ "$mpiopts" == *"--mca part "* ]] && part=
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    timeout -k 10 "$timeout_s" mpirun --oversubscribe -np "$np" $part $mpiopts \
        $wrapper "$exe" $args >"$log" 2>&1 </dev/null
    rc=$?
    dt=$(awk "BEGIN {print $(date +%s.%N) - $t0}")
    if [ $rc -eq 0 ]; then
        report "$name" "$np" PASS "$dt"
    else
        why="exit $rc"; [ $rc -eq 124 ] && why="timeout after ${timeout_s}s"
        report "$name" "$np" FAIL "$dt" "$why; log: $log"
        tail -n 8 "$log" | sed 's/^/      | /'
    fi
done < "$list"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
