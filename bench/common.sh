# Sourced by the bench/run* scripts.

# bench_machine OUTDIR: what the numbers were taken on.
bench_machine() {
    {
        echo "machine: $(hostname -s), $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
        echo "gpus: $(nvidia-smi -L 2>/dev/null | tr '\n' ';')"
        echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
        echo "open mpi: $(ompi_info --parsable | sed -n 's/^ompi:version:full://p'), ucx: $(ucx_info -v | sed -n 's/^# \(Library version:\|Version\) \([^ ]*\).*/\2/p' | head -n 1)"
        if [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ]; then
            echo "cuda mps: on (tools/device-run.sh DEVICE_MPS=1)"
        fi
    } > "$1/machine.txt"
}

# bench_cuda_build SRC.cu BIN [NVCC FLAGS...] [-- LINK FLAGS...]: a CUDA
# benchmark compiled with the mpicxx first in PATH as host compiler (so
# with that install's mpi.h and mpix_part_device.h) and linked with CUDA's
# runtime; BIN.o is left beside BIN.
bench_cuda_build() {
    local src=$1 bin=$2 cuda=${CUDA_HOME:-/usr/local/cuda} nvccflags=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        nvccflags+=("$1")
        shift
    done
    [ $# -gt 0 ] && shift
    "$cuda/bin/nvcc" -O2 -std=c++17 -arch=sm_90 -ccbin "$(command -v mpicxx)" \
        "${nvccflags[@]}" -c -o "$bin.o" "$src" &&
        mpicxx -o "$bin" "$bin.o" -L"$cuda/lib64" -lcudart "$@"
}

# bench_nccl: $nccl (nvcc flag) and $ncclibs (link flags) for the
# benchmarks' NCCL rows where NCCL is found, with the toolkit or from the
# distribution (the lent nodes: /usr/include); empty otherwise.
bench_nccl() {
    local cuda=${CUDA_HOME:-/usr/local/cuda}
    nccl=; ncclibs=
    if [ -e "$cuda/include/nccl.h" ] || [ -e /usr/include/nccl.h ]; then
        nccl=-DHAVE_NCCL; ncclibs="-L$cuda/lib -lnccl"
    fi
}

# bench_variants_begin: what bench_variant needs, for the scripts that run
# each variant as its own mpirun over the same grids (BENCH_QUICK: fewer;
# BENCH_GRIDS=1,4,...: these); $limit (BENCH_TIMEOUT, default 120 s) bounds
# each run.
bench_variants_begin() {
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_mca_base_component_show_load_errors=0
    if [ -n "${BENCH_QUICK:-}" ]; then
        grids=1,16,256,4096,65536
    else
        grids=1,4,16,64,256,1024,4096,16384,65536,131072
    fi
    grids=${BENCH_GRIDS:-$grids}
    limit=${BENCH_TIMEOUT:-120}
    failures=0
}

# bench_variant NAME ROWS ERRORS COMMAND...: one variant of a benchmark
# that runs each variant as its own mpirun (bench/run-stream.sh,
# bench/run-ucx-device.sh), limited to $limit seconds. Its rows (lines
# starting with ROWS) go to $csv, its output and stderr to
# $out/logs/NAME.out and .log; a run that fails or runs past the limit is
# recorded in $out/errors.txt with the first lines of its log that match
# the extended regex ERRORS, and counted in $failures (the rows it printed
# before stay).
bench_variant() {
    local name=$1 rows=$2 errors=$3 rc msg why
    shift 3
    echo "bench: $name" >&2
    timeout -k 10 "$limit" "$@" 2> "$out/logs/$name.log" | tr -d '\000' |
        tee "$out/logs/$name.out" | grep -a "^$rows" | tee -a "$csv"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ]; then
        why="exit $rc"
        [ "$rc" -eq 124 ] && why="ran past ${limit}s"
        msg=$(grep -m 2 -E "$errors" "$out/logs/$name.log" || tail -n 2 "$out/logs/$name.log")
        echo "bench: $name failed ($why): $(tr '\n' ' ' <<<"$msg")" |
            tee -a "$out/errors.txt" >&2
        failures=$((failures + 1))
    fi
}

# bench_python: a python3 with matplotlib, or nothing. A GPU node may lack
# it; the distribution's python3-matplotlib may sit behind another python3.
bench_python() {
    local c
    for c in python3 /usr/bin/python3; do
        if "$c" -c 'import matplotlib' 2>/dev/null; then echo "$c"; return; fi
    done
}

# bench_plot CSV OUTDIR [TABLES]: PNGs and tables (into TABLES, default
# OUTDIR/tables.txt, and on stdout), or how to make them elsewhere.
bench_plot() {
    local py
    py=$(bench_python)
    if [ -n "$py" ]; then
        "$py" "$here/bench/plot.py" "$1" "$2" | tee "${3:-$2/tables.txt}"
    else
        echo "bench: matplotlib missing; plot with: bench/plot.py $1 $2"
    fi
}

# bench_probe SRC OUTDIR ROWS TITLE [ARGS...]: a design probe without MPI
# (bench/b_lines.cu, bench/b_links.cu): built with nvcc alone, run once
# with ARGS (BENCH_TIMEOUT, default 300 s); its rows (lines starting with
# "ROWS,") go to OUTDIR/results.csv, its output to raw.txt, stderr (wrong
# data) to errors.txt, the GPUs and links to machine.txt, the rows a label
# a column (bench/label_table.py) under TITLE to tables.txt, its plots
# (bench/plot.py) beside them. Returns the probe's exit status.
bench_probe() {
    local src=$1 out=$2 rows=$3 title=$4 build rc
    shift 4
    mkdir -p "$out"
    build=$(mktemp -d)
    "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -O3 -std=c++17 -arch=sm_90 -o "$build/probe" \
        "$src" || { rm -rf "$build"; return 1; }
    { nvidia-smi -L; nvidia-smi topo -m; } > "$out/machine.txt" 2>&1
    echo "bench,component,param1,param2,value,unit" > "$out/results.csv"
    timeout "${BENCH_TIMEOUT:-300}" "$build/probe" "$@" 2> "$out/errors.txt" |
        tee "$out/raw.txt" | grep -a "^$rows," >> "$out/results.csv"
    rc=${PIPESTATUS[0]}
    rm -rf "$build"
    { echo "$title"; python3 "$here/bench/label_table.py" "$out/results.csv"; } > "$out/tables.txt"
    bench_plot "$out/results.csv" "$out" /dev/null # the probes' tables are label_table.py's
    cat "$out/tables.txt" "$out/errors.txt"
    return "$rc"
}
