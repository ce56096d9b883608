# Sourced by bench/trace/run.sh and stream.sh, after `here` and `out`
# are set: trace_plugin FLAG builds the device plugin with -DFLAG (and
# $PART_UCX_TRACE_NVCC_FLAGS) into $out/traced.so and puts it in the
# install's place until the script exits, when the installed one goes
# back (the install: the mpicc on PATH, from tools/env.sh or a bundle).
trace_plugin() {
    local cuda=${CUDA_HOME:-/usr/local/cuda}
    plugin=$(dirname "$(dirname "$(command -v mpicc)")")/lib/openmpi/part_ucx_device.so
    [ -e "$plugin" ] || { echo "no device plugin at $plugin" >&2; exit 1; }
    # shellcheck disable=SC2086
    "$cuda/bin/nvcc" -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC -D"$1" \
        ${PART_UCX_TRACE_NVCC_FLAGS:-} -I"$here" -o "$out/traced.so" "$here/part_ucx_device.cu"
    cp "$plugin" "$out/installed.so"
    trap 'cp "$out/installed.so" "$plugin"' EXIT
    cp "$out/traced.so" "$plugin"
}
