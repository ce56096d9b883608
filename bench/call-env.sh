# Sourced by the script of a device call, from the checkout's root:
#   . bench/call-env.sh BUNDLE.tar.xz
# Unpacks the bundle (tools/bundle.sh) into /tmp/pb and takes its
# environment (mpirun, the install for tools/test.sh: PART_UCX_PREFIX),
# allows mpirun as root, keeps NCCL_NVLS_ENABLE=0 (NVLink multicast stays
# off on the lent nodes), writes $OUT/node.txt (the GPUs and their links)
# and defines `el`, the seconds since it was sourced, and `out_pack NAME`.
# At most 8 files come back from $OUT (files beyond that are left out,
# whole: session 24 lost two traces so): a script that writes more keeps
# them in a folder and packs it with out_pack at its end.
call_start=$(date +%s)
el() { echo $(( $(date +%s) - call_start )); }
# out_pack NAME DIR: DIR (all of it) as $OUT/NAME.tar.xz
out_pack() { tar -cJf "$OUT/$1.tar.xz" -C "$(dirname "$2")" "$(basename "$2")"; }
export OMPI_MCA_mca_base_component_show_load_errors=0 NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
call_dir=/tmp/pb
rm -rf "$call_dir" && mkdir -p "$call_dir" && tar -xJf "${1:?bundle}" -C "$call_dir" ||
    { echo "call-env: cannot unpack $1" >&2; return 1; }
. "$call_dir/part-ucx/env.sh"
export PART_UCX_PREFIX=$call_dir/part-ucx PART_UCX_CACHE=/tmp/part-ucx-cache-call
{ nvidia-smi -L; nvidia-smi topo -m; } > "$OUT/node.txt" 2>&1
