# Shared by tools/*.sh: versions, configure flags and the cache key.
# Sourced, not run.

PART_UCX_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

OMPI_VERSION=5.0.7
OMPI_DEBIAN_VERSION=5.0.7-1
OMPI_SUITE=trixie
# UCX: PyPI's libucx-cu13 wheel (UCX built by NVIDIA with CUDA 13, with its
# headers, pkg-config files and device API headers), pinned by its hash; or
# the UCX >= 1.21 a site names in PART_UCX_UCX_PREFIX.
UCX_VERSION=1.22.0
UCX_MIN_VERSION=1.21
case "$(uname -m)" in
    x86_64)
        UCX_WHEEL=libucx_cu13-$UCX_VERSION-py3-none-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl
        UCX_WHEEL_URL=https://files.pythonhosted.org/packages/ad/09/515495d5eb74fe01d6395b3f4331c801964d2a68877f4e96343cdbe2edbf/$UCX_WHEEL
        UCX_WHEEL_SHA256=c6e0aaa82dc6e49dc3ddaac465b530e014f48b6c1c6b5ae74fbdd199d824351b ;;
    aarch64)
        UCX_WHEEL=libucx_cu13-$UCX_VERSION-py3-none-manylinux_2_24_aarch64.manylinux_2_28_aarch64.whl
        UCX_WHEEL_URL=https://files.pythonhosted.org/packages/ff/bb/ca204fc163fa172b9cdf960b50b51999eeadffee7b6a840ffd0b8c215b0c/$UCX_WHEEL
        UCX_WHEEL_SHA256=e9699f91804388ebc8b983c24e5bd8493eed769536fd6f93db523d2eb8f26f9a ;;
    *)  UCX_WHEEL= UCX_WHEEL_URL= UCX_WHEEL_SHA256= ;;
esac
PART_UCX_UCX_PREFIX=${PART_UCX_UCX_PREFIX:-}

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
# PART_UCX_CUDA: auto (use CUDA when $CUDA_HOME exists), yes (required), no.
PART_UCX_CUDA=${PART_UCX_CUDA:-auto}
case "$PART_UCX_CUDA" in
    auto) if [ -x "$CUDA_HOME/bin/nvcc" ]; then part_ucx_use_cuda=yes; else part_ucx_use_cuda=no; fi ;;
    yes|no) part_ucx_use_cuda=$PART_UCX_CUDA ;;
    *) echo "PART_UCX_CUDA must be auto, yes or no" >&2; exit 2 ;;
esac

PART_UCX_CACHE=${PART_UCX_CACHE:-$HOME/.cache/part-ucx}

ompi_configure_flags() {
    echo --disable-mpi-fortran --disable-oshmem --disable-io-romio \
         --with-pmix=internal --with-prrte=internal --with-hwloc=internal \
         --with-libevent=internal --disable-sphinx --without-ofi --without-psm2
    # Passed on to the internal packages' configures too: libevent without
    # its sample programs; PMIx without its tools (pmix_info, pattrs, ...)
    # and without the components that only talk to other PMIx versions
    # (bfrops v1.2-v3: PRRTE and the MPI processes use this one) or serve
    # Omni-Path and sensors.
    echo --disable-samples --disable-pmix-binaries \
         --enable-mca-no-build=bfrops-v12,bfrops-v20,bfrops-v21,bfrops-v3,pnet-opa,psensor-file,psensor-heartbeat
    if [ "$part_ucx_use_cuda" = yes ]; then
        echo --with-cuda="$CUDA_HOME" --with-cuda-libdir="$CUDA_HOME/lib64/stubs"
    else
        echo --without-cuda
    fi
}

# Open MPI components left out of the build when autogen.pl runs (its
# --exclude: no configure check, no Makefile, no compile): nothing part/ucx,
# its tests, benchmarks or examples use. MPI-IO (ompio and its fs, fbtl,
# fcoll, sharedfp components; ROMIO is disabled), the monitoring
# components, message logging (pml/v, vprotocol), treematch (topo/basic
# stays), pml/cm and the MTLs and networks this build has no library for
# (OFI, PSM2, Portals4, usNIC), and OpenSHMEM's frameworks
# (--disable-oshmem). Frameworks of MPI itself stay (their base), so that
# an MPI_File_open, say, fails cleanly. PART_UCX_OMPI_EXCLUDE replaces the
# list (empty: build every component).
ompi_autogen_excludes() {
    if [ -n "${PART_UCX_OMPI_EXCLUDE+set}" ]; then
        echo "$PART_UCX_OMPI_EXCLUDE" | tr ' ' ','
        return
    fi
    echo io-ompio io-romio341 common-ompio \
         fs-gpfs fs-ime fs-lustre fs-pvfs2 fs-ufs fbtl-ime fbtl-posix fbtl-pvfs2 \
         fcoll-dynamic fcoll-dynamic_gen2 fcoll-individual fcoll-vulcan \
         sharedfp-individual sharedfp-lockedfile sharedfp-sm \
         common-monitoring coll-monitoring osc-monitoring pml-monitoring \
         pml-v vprotocol-pessimist topo-treematch \
         pml-cm mtl-ofi mtl-portals4 mtl-psm2 btl-ofi btl-portals4 btl-usnic common-ofi \
         coll-portals4 osc-portals4 coll-hcoll coll-ucc \
         atomic memheap scoll spml sshmem | tr ' ' ','
}

# The version of the UCX whose headers are under $1/include, "" if none.
ucx_version_at() {
    local h=$1/include/ucp/api/ucp_version.h
    [ -r "$h" ] || return 0
    awk '/#define UCP_API_MAJOR/ {M=$3} /#define UCP_API_MINOR/ {m=$3}
        END {if (M != "") printf "%d.%d", M, m}' "$h"
}

# The key names everything the dependency build depends on: versions,
# the UCX used, patches, flags. The component's configure.m4 is keyed
# separately (stamp of the Open MPI autogen stage): editing it configures
# the same build tree again instead of starting a new one.
part_ucx_deps_key() {
    {
        echo "ompi $OMPI_DEBIAN_VERSION $OMPI_SUITE"
        if [ -n "$PART_UCX_UCX_PREFIX" ]; then
            echo "ucx at $PART_UCX_UCX_PREFIX $(ucx_version_at "$PART_UCX_UCX_PREFIX")"
        else
            echo "ucx wheel $UCX_WHEEL_SHA256"
        fi
        ompi_configure_flags
        ompi_autogen_excludes
        cat "$PART_UCX_SRC"/ompi-patches/*.patch 2>/dev/null
        sed -n '/^# --- dependency stages ---$/,/^# --- end dependency stages ---$/p' "$PART_UCX_SRC/tools/setup.sh"
    } | sha256sum | cut -c1-16
}

PART_UCX_KEY=$(part_ucx_deps_key)
PART_UCX_WORK=$PART_UCX_CACHE/build-$PART_UCX_KEY
PART_UCX_PREFIX=${PART_UCX_PREFIX:-$PART_UCX_CACHE/prefix-$PART_UCX_KEY}
