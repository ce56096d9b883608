#!/usr/bin/env bash
# Pack the installed prefix (UCX from the wheel included), plus the shared
# libraries it needs that a GPU node without a package registry may lack,
# into one tarball:
#   tools/bundle.sh [OUT.tar.xz]
# On the node: mkdir -p DIR && tar -xJf OUT.tar.xz -C DIR && . DIR/part-ucx/env.sh
# (env.sh sets OPAL_PREFIX, so DIR may be anywhere).
set -euo pipefail
. "$(dirname "$0")/common.sh"

out=${1:-$PART_UCX_CACHE/part-ucx-bundle-$PART_UCX_KEY.tar.xz}
out=$(realpath -m "$out")
[ -x "$PART_UCX_PREFIX/bin/mpicc" ] || { echo "bundle: run tools/setup.sh first" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dest=$stage/part-ucx
mkdir -p "$dest"
# Documentation and man pages stay behind; everything else travels.
tar -C "$PART_UCX_PREFIX" --exclude=./share/doc --exclude=./share/man -cf - . | tar -C "$dest" -xf -
# A site's UCX (PART_UCX_UCX_PREFIX) travels too: its libraries, and its
# transport modules in lib/ucx/, where UCX looks for them next to libucs.
if [ -n "$PART_UCX_UCX_PREFIX" ]; then
    mkdir -p "$dest/lib/ucx"
    cp -a "$PART_UCX_UCX_PREFIX"/lib/libuc[mpst]*.so* "$dest/lib/"
    if [ -d "$PART_UCX_UCX_PREFIX/lib/ucx" ]; then
        cp -a "$PART_UCX_UCX_PREFIX/lib/ucx/." "$dest/lib/ucx/"
    fi
fi

# Libraries every glibc-based distribution has (Ubuntu 24.04 included), or
# the node's driver brings. libxml2 (hwloc's XML export) comes with its ICU
# there; shipping Debian's would drag 30 MB of ICU along.
system='^(libc|libm|libdl|libpthread|librt|libutil|libgcc_s|libstdc\+\+|ld-linux-x86-64|libz|libcuda|libnvidia-ml|libxml2|libicu[a-z]*|liblzma|libtinfo)\.so'
find "$dest" -type f \( -name '*.so*' -o -perm -u+x \) | while read -r f; do
    file -b "$f" | grep -q ELF || continue
    ldd "$f" 2>/dev/null | awk '/=> \// {print $1, $3}'
done | sort -u | while read -r name path; do
    [[ "$path" == "$PART_UCX_PREFIX"/* || "$path" == "$dest"/* ]] && continue
    [[ "$name" =~ $system ]] && continue
    [[ "$path" == /usr/local/cuda* ]] && continue
    [ -e "$dest/lib/$name" ] || cp -L "$path" "$dest/lib/$name"
    echo "bundle: added $name (from $path)"
done

find "$dest" -type f \( -name '*.so*' -o -path '*/bin/*' \) -exec sh -c \
    'file -b "$1" | grep -q ELF && strip --strip-debug "$1"' _ {} \; 2>/dev/null || true

cat > "$dest/env.sh" <<ENV
# Source on the target node: this relocated install first in PATH.
__d=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=\$__d PRTE_PREFIX=\$__d PMIX_PREFIX=\$__d
export PATH="\$__d/bin:\$PATH"
export LD_LIBRARY_PATH="\$__d/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0
unset __d
ENV

mkdir -p "$(dirname "$out")"
tar -C "$stage" -cf - part-ucx | xz -9 -T0 > "$out"
echo "bundle: $out ($(du -h "$out" | cut -f1))"
