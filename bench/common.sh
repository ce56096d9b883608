# Sourced by the bench/run* scripts.

# bench_machine OUTDIR: what the numbers were taken on.
bench_machine() {
    {
        echo "machine: $(hostname -s), $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
        echo "gpus: $(nvidia-smi -L 2>/dev/null | tr '\n' ';')"
        echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
        echo "open mpi: $(ompi_info --parsable | sed -n 's/^ompi:version:full://p'), ucx: $(ucx_info -v | sed -n 's/^# Version \([^ ]*\).*/\1/p' | head -n 1)"
        if [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ]; then
            echo "cuda mps: on (tools/device-run.sh DEVICE_MPS=1)"
        fi
    } > "$1/machine.txt"
}

# bench_python: a python3 with matplotlib, or nothing. A GPU node may lack
# it; the distribution's python3-matplotlib may sit behind another python3.
bench_python() {
    local c
    for c in python3 /usr/bin/python3; do
        if "$c" -c 'import matplotlib' 2>/dev/null; then echo "$c"; return; fi
    done
}

# bench_plot CSV OUTDIR: PNGs and tables, or how to make them elsewhere.
bench_plot() {
    local py
    py=$(bench_python)
    if [ -n "$py" ]; then
        "$py" "$here/bench/plot.py" "$1" "$2" | tee "$2/tables.txt"
    else
        echo "bench: matplotlib missing; plot with: bench/plot.py $1 $2"
    fi
}
