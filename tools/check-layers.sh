#!/usr/bin/env bash
# The component's layers call only downward: an object file may reference
# symbols defined in files listed before it, never in one listed after it
# (nor in itself through a circle). Reads the component's archive
# (libmca_part_ucx.a, one object per source file) with nm:
#   tools/check-layers.sh path/to/libmca_part_ucx.a
# Prints every upward reference and fails if there is one.
set -euo pipefail

# Bottom to top, as in the README's layout table.
layers=(
    part_ucx_context     # UCX plumbing: module state, UCP context, workers
    part_ucx_info        #   info keys of the init calls
    part_ucx_pvar        #   MPI_T performance variables
    part_ucx_device_plugin #   the CUDA plugin, loaded on first use
    part_ucx_mem         #   registered memory, GPU memory
    part_ucx_ctrl        #   peers, control messages, setup and matching
    part_ucx_request     # requests: the common base and its operations
    part_ucx_recvreq     #   point-to-point receive
    part_ucx_sendreq     #   point-to-point send
    part_ucx_devreq      # device requests (MPIX_Prequest_create)
    part_ucx_stream      # stream-ordered epochs (MPIX_Start_enqueue, MPIX_Wait_enqueue)
    part_ucx_coll_gpu    # collectives: the GPU engine (one kernel an epoch, within a node)
    part_ucx_coll        # collectives: the schedule engine
    part_ucx_schedule    #   the schedule builders
    part_ucx_coll_mpix   #   MPIX_P*_init of the module (the bindings: ompi/mpiext/part)
    part_ucx             # the module: lifecycle, progress, framework entries
    part_ucx_component   # the MCA component: parameters, open, init
)

archive=${1:?usage: check-layers.sh libmca_part_ucx.a}
declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done

defs=$(mktemp) refs=$(mktemp)
trap 'rm -f "$defs" "$refs"' EXIT
# "object symbol" for every global definition and every undefined reference
nm -A --defined-only "$archive" 2>/dev/null |
    awk '$2 ~ /^[TDBRCVW]$/ {split($1, a, ":"); print a[2], $3}' > "$defs"
nm -A --undefined-only "$archive" 2>/dev/null |
    awk '{split($1, a, ":"); print a[2], $NF}' > "$refs"

bad=0 unknown=0
for obj in $(cut -d' ' -f1 "$defs" "$refs" | sort -u); do
    [ -n "${rank[${obj%.o}]+x}" ] || { echo "layers: ${obj%.o} is in no layer (add it to tools/check-layers.sh)"; unknown=1; }
done
while read -r from to sym; do
    f=${rank[${from%.o}]:-} t=${rank[${to%.o}]:-}
    [ -n "$f" ] && [ -n "$t" ] || continue
    if [ "$t" -gt "$f" ]; then
        echo "layers: ${from%.o} (layer $f) uses $sym of ${to%.o} (layer $t)"
        bad=1
    fi
done < <(awk 'NR == FNR {def[$2] = $1; next} ($2 in def) && def[$2] != $1 {print $1, def[$2], $2}' "$defs" "$refs" | sort -u)

[ "$bad$unknown" = 00 ] && echo "layers: ${#layers[@]} files, every reference downward"
[ "$bad$unknown" = 00 ]
