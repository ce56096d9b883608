# Shared by tools/*.sh: versions, configure flags and the cache key.
# Sourced, not run.

PART_UCX_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

OMPI_VERSION=5.0.7
OMPI_DEBIAN_VERSION=5.0.7-1
OMPI_SUITE=trixie
UCX_VERSION=1.13.1
UCX_DEBIAN_VERSION=1.13.1-1
UCX_SUITE=bookworm

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
# PART_UCX_CUDA: auto (use CUDA when $CUDA_HOME exists), yes (required), no.
PART_UCX_CUDA=${PART_UCX_CUDA:-auto}
case "$PART_UCX_CUDA" in
    auto) if [ -x "$CUDA_HOME/bin/nvcc" ]; then part_ucx_use_cuda=yes; else part_ucx_use_cuda=no; fi ;;
    yes|no) part_ucx_use_cuda=$PART_UCX_CUDA ;;
    *) echo "PART_UCX_CUDA must be auto, yes or no" >&2; exit 2 ;;
esac

PART_UCX_CACHE=${PART_UCX_CACHE:-$HOME/.cache/part-ucx}

ucx_configure_flags() {
    echo --enable-mt --disable-static --enable-shared --without-go --without-java \
         --disable-doxygen-doc --without-rocm --without-knem --without-xpmem --without-gdrcopy --without-fuse3
    if [ "$part_ucx_use_cuda" = yes ]; then echo --with-cuda="$CUDA_HOME"; else echo --without-cuda; fi
}

ompi_configure_flags() {
    echo --disable-mpi-fortran --disable-oshmem --disable-io-romio \
         --with-pmix=internal --with-prrte=internal --with-hwloc=internal \
         --with-libevent=internal --disable-sphinx --without-ofi --without-psm2
    if [ "$part_ucx_use_cuda" = yes ]; then
        echo --with-cuda="$CUDA_HOME" --with-cuda-libdir="$CUDA_HOME/lib64/stubs"
    else
        echo --without-cuda
    fi
}

# The key names everything the dependency build depends on: versions,
# patches, flags. The component's configure.m4 is keyed separately (stamp of
# the Open MPI autogen stage), so editing it does not rebuild UCX.
part_ucx_deps_key() {
    {
        echo "ompi $OMPI_DEBIAN_VERSION $OMPI_SUITE ucx $UCX_DEBIAN_VERSION $UCX_SUITE"
        ucx_configure_flags
        ompi_configure_flags
        cat "$PART_UCX_SRC"/ucx-patches/*.patch "$PART_UCX_SRC"/ompi-patches/*.patch 2>/dev/null
        sed -n '/^# --- dependency stages ---$/,/^# --- end dependency stages ---$/p' "$PART_UCX_SRC/tools/setup.sh"
    } | sha256sum | cut -c1-16
}

PART_UCX_KEY=$(part_ucx_deps_key)
PART_UCX_WORK=$PART_UCX_CACHE/build-$PART_UCX_KEY
PART_UCX_PREFIX=${PART_UCX_PREFIX:-$PART_UCX_CACHE/prefix-$PART_UCX_KEY}
