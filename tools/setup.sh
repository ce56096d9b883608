#!/usr/bin/env bash
# Fetch Open MPI's sources with apt-get source and UCX as PyPI's libucx-cu13
# wheel (or use the site's UCX named by PART_UCX_UCX_PREFIX), build Open MPI
# with this repository as ompi/mca/part/ucx, install both into one prefix. Stages are cached (see tools/common.sh for the key); a stage is
# complete only once its stamp exists, so an interrupted run resumes.
#
#   tools/setup.sh            build what is missing, then the component
#   tools/setup.sh --prefix   print the install prefix and exit
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" = "--prefix" ]; then echo "$PART_UCX_PREFIX"; exit 0; fi

JOBS=${JOBS:-$(nproc)}
LOG=$PART_UCX_WORK/logs
mkdir -p "$LOG"

die() { echo "setup: $*" >&2; exit 1; }
t0=$(date +%s)
phase() { echo "setup: [$(( $(date +%s) - t0 ))s] $*"; }

# Run a build step quietly, keeping its output in a log shown on failure.
step() {
    local name=$1; shift
    if ! "$@" >"$LOG/$name.log" 2>&1; then
        tail -n 40 "$LOG/$name.log" >&2
        die "$name failed; full log: $LOG/$name.log"
    fi
}

stamp() { [ -e "$PART_UCX_WORK/$1.done" ]; }
mark() { echo "${2:-done}" > "$PART_UCX_WORK/$1.done"; }

check_host() {
    local avail
    avail=$(df -Pk "$PART_UCX_CACHE" | awk 'NR==2 {print $4}')
    [ "$avail" -ge $((6 * 1024 * 1024)) ] ||
        die "less than 6 GiB free under $PART_UCX_CACHE; free some space or set PART_UCX_CACHE."
    if [ "$PART_UCX_CUDA" = yes ] && [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
        die "CUDA was requested (PART_UCX_CUDA=yes) but $CUDA_HOME/bin/nvcc is missing."
    fi
    local missing=()
    for tool in autoconf automake libtoolize flex make gcc g++ perl patch xz curl unzip patchelf; do
        command -v "$tool" >/dev/null || missing+=("$tool")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        command -v apt-get >/dev/null && [ "$(id -u)" = 0 ] ||
            die "missing build tools (${missing[*]}); install autoconf automake libtool flex curl unzip patchelf."
        phase "installing build tools: ${missing[*]}"
        step apt-install bash -c 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \
            autoconf automake libtool flex make gcc g++ perl patch xz-utils pkg-config \
            curl ca-certificates unzip patchelf'
    fi
}

# rst2man renders the man pages (docs/); man-db reads them. Both come from
# Debian's packages where apt-get can install them.
check_doc_tools() {
    local pkgs=()
    command -v rst2man >/dev/null || pkgs+=(python3-docutils)
    command -v man >/dev/null || pkgs+=(man-db)
    [ ${#pkgs[@]} -eq 0 ] && return 0
    if ! command -v apt-get >/dev/null || [ "$(id -u)" != 0 ]; then
        command -v rst2man >/dev/null ||
            die "rst2man is missing (it renders the man pages in docs/); install python3-docutils."
        echo "setup: man is missing: the man pages are installed, install man-db to read them."
        return 0
    fi
    phase "installing ${pkgs[*]}"
    step apt-install-docs bash -c "apt-get update && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends ${pkgs[*]}"
}

# --- dependency stages ---

# A private apt configuration: the machine's own sources and state are left
# untouched.
fetch_sources() {
    local dl=$PART_UCX_CACHE/sources apt=$PART_UCX_CACHE/apt
    local tarball=openmpi_$OMPI_VERSION.orig.tar.xz
    [ -s "$dl/verified" ] && [ -s "$dl/$tarball" ] && return 0
    mkdir -p "$dl" "$apt/lists/partial" "$apt/archives/partial"
    cat > "$apt/sources.list" <<EOF
deb-src http://deb.debian.org/debian $OMPI_SUITE main
EOF
    local o=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
             -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt"
             -o APT::Sandbox::User=root -q)
    phase "fetching sources with apt-get source"
    apt-get "${o[@]}" update >"$LOG/apt-update.log" 2>&1 ||
        die "apt-get update failed for the deb-src entries (see $LOG/apt-update.log)."
    (cd "$dl" && apt-get "${o[@]}" source --download-only "openmpi=$OMPI_DEBIAN_VERSION") \
        >"$LOG/apt-source.log" 2>&1 ||
        die "apt-get source could not fetch openmpi $OMPI_DEBIAN_VERSION ($OMPI_SUITE) (see $LOG/apt-source.log)."
    [ -s "$dl/$tarball" ] || die "apt-get source did not deliver $tarball: wrong version in the archive?"
    local v
    v=$(tar -xOf "$dl/$tarball" "openmpi-$OMPI_VERSION/VERSION" |
        awk -F= '/^(major|minor|release)=/ {printf "%s.", $2}')
    [ "${v%.}" = "$OMPI_VERSION" ] || die "got Open MPI ${v%.}, expected $OMPI_VERSION."
    echo "openmpi $OMPI_DEBIAN_VERSION" > "$dl/verified"
}

# UCX comes built: the libucx-cu13 wheel from PyPI, checked against its
# pinned hash, or the site's own UCX (PART_UCX_UCX_PREFIX).
fetch_ucx() {
    if [ -n "$PART_UCX_UCX_PREFIX" ]; then
        local v
        v=$(ucx_version_at "$PART_UCX_UCX_PREFIX")
        [ -n "$v" ] || die "PART_UCX_UCX_PREFIX=$PART_UCX_UCX_PREFIX has no include/ucp/api/ucp_version.h."
        printf '%s\n%s\n' "$UCX_MIN_VERSION" "$v" | sort -V -C ||
            die "the UCX in $PART_UCX_UCX_PREFIX is $v; part/ucx needs UCX >= $UCX_MIN_VERSION."
        return 0
    fi
    [ -n "$UCX_WHEEL" ] ||
        die "no libucx-cu13 wheel for $(uname -m); name a UCX >= $UCX_MIN_VERSION in PART_UCX_UCX_PREFIX."
    local whl=$PART_UCX_CACHE/sources/$UCX_WHEEL
    echo "$UCX_WHEEL_SHA256  $whl" | sha256sum -c --status 2>/dev/null && return 0
    mkdir -p "$(dirname "$whl")"
    phase "downloading UCX $UCX_VERSION (PyPI wheel libucx-cu13)"
    curl -fsSL --retry 3 -o "$whl.part" "$UCX_WHEEL_URL" 2>"$LOG/ucx-download.log" ||
        die "could not download $UCX_WHEEL_URL (see $LOG/ucx-download.log)."
    echo "$UCX_WHEEL_SHA256  $whl.part" | sha256sum -c --status ||
        die "$UCX_WHEEL does not have the pinned sha256 $UCX_WHEEL_SHA256."
    mv "$whl.part" "$whl"
}

# The wheel's libucx/ tree goes into the prefix as a UCX built there would:
# libraries in lib/, transport modules in lib/ucx/ (UCX looks for them next
# to libucs). Only what Open MPI and a run need: no static archives, no
# perftest, and no CUDA modules in a build without CUDA. The wheel names its
# build directory in its .pc and .la files and in the libraries'
# RPATH/RUNPATH; those become the prefix and $ORIGIN-relative paths, so the
# install also works once moved (tools/bundle.sh). libucm_cuda needs the
# wheel's own CUDA runtime (renamed by auditwheel), kept next to it; libucp,
# libucs, libuct and libucm need no CUDA library, so libmpi loads where
# there is none, and UCX skips its CUDA modules there.
install_ucx() {
    [ -n "$PART_UCX_UCX_PREFIX" ] && return 0
    stamp ucx && return 0
    local w=$PART_UCX_WORK/ucx-wheel p=$PART_UCX_PREFIX built lib f
    rm -rf "$w"
    phase "installing UCX $UCX_VERSION from the wheel into the prefix"
    step ucx-unzip unzip -q "$PART_UCX_CACHE/sources/$UCX_WHEEL" -d "$w"
    built=$(sed -n 's/^prefix *= *//p' "$w/libucx/lib/pkgconfig/ucx.pc")
    [ -n "$built" ] || die "the UCX wheel names no prefix in lib/pkgconfig/ucx.pc."
    mkdir -p "$p/lib/ucx" "$p/lib/pkgconfig" "$p/include" "$p/bin" "$p/etc/ucx" "$p/share/ucx"
    cp -R "$w/libucx/include/." "$p/include/"
    cp "$w"/libucx/lib/pkgconfig/ucx*.pc "$p/lib/pkgconfig/"
    cp "$w/libucx/etc/ucx/ucx.conf" "$p/etc/ucx/"
    cp "$w"/libucx_cu13-*.dist-info/licenses/LICENSE "$p/share/ucx/LICENSE"
    cp "$w/libucx/bin/ucx_info" "$p/bin/"
    patchelf --set-rpath '$ORIGIN/../lib' "$p/bin/ucx_info"
    # A zip has no links: the wheel holds each library three times.
    for lib in libucm libucs libucs_signal libuct libucp; do
        cp "$w/libucx/lib/$lib.so.0.0.0" "$w/libucx/lib/$lib.la" "$p/lib/"
        ln -sf "$lib.so.0.0.0" "$p/lib/$lib.so.0"
        ln -sf "$lib.so.0.0.0" "$p/lib/$lib.so"
        patchelf --set-rpath '$ORIGIN' "$p/lib/$lib.so.0.0.0"
    done
    local mods=libuct_cma
    [ "$part_ucx_use_cuda" = yes ] && mods="libuct_cma libuct_cuda libucm_cuda"
    for lib in $mods; do
        cp "$w/libucx/lib/ucx/$lib.so.0.0.0" "$p/lib/ucx/"
        ln -sf "$lib.so.0.0.0" "$p/lib/ucx/$lib.so.0"
        ln -sf "$lib.so.0.0.0" "$p/lib/ucx/$lib.so"
        patchelf --set-rpath '$ORIGIN:$ORIGIN/..' "$p/lib/ucx/$lib.so.0.0.0"
    done
    if [ "$part_ucx_use_cuda" = yes ]; then cp "$w"/libucx_cu13.libs/libcudart-*.so.* "$p/lib/ucx/"; fi
    for f in "$p"/lib/pkgconfig/ucx*.pc "$p"/lib/libuc*.la; do
        sed -i "s|$built|$p|g" "$f"
    done
    ! grep -l -F "$built" "$p"/lib/pkgconfig/ucx*.pc "$p"/lib/libuc*.la ||
        die "the UCX wheel's build paths are left in the files above."
    mark ucx
}

unpack_ompi() {
    stamp ompi-unpack && return 0
    rm -rf "$PART_UCX_WORK/openmpi-$OMPI_VERSION"
    phase "unpacking Open MPI $OMPI_VERSION"
    tar -C "$PART_UCX_WORK" -xf "$PART_UCX_CACHE/sources/openmpi_$OMPI_VERSION.orig.tar.xz"
    local p
    for p in "$PART_UCX_SRC"/ompi-patches/*.patch; do
        [ -e "$p" ] || continue
        patch -d "$PART_UCX_WORK/openmpi-$OMPI_VERSION" -p1 --forward --batch <"$p" \
            >"$LOG/patch-$(basename "$p").log" 2>&1 ||
            die "Open MPI patch $(basename "$p") does not apply (see $LOG/patch-$(basename "$p").log)."
    done
    # The tarball ships the generated build systems of its 3rd-party
    # packages (PMIx, PRRTE, ROMIO), which part/ucx does not change:
    # autogen.pl, run to add the component, would spend most of its time
    # regenerating them. Their autogen scripts become no-ops (autogen.pl
    # still checks that their configure exists) and ROMIO, disabled, is
    # not visited.
    local d
    for d in openpmix prrte; do
        printf '#!/bin/sh\nexit 0\n' > "$PART_UCX_WORK/openmpi-$OMPI_VERSION/3rd-party/$d/autogen.pl"
    done
    : > "$PART_UCX_WORK/openmpi-$OMPI_VERSION/3rd-party/autogen.subdirs"
    mark ompi-unpack
}

# --- end dependency stages ---

OMPI_TREE=$PART_UCX_WORK/openmpi-$OMPI_VERSION
COMPONENT_DIR=$OMPI_TREE/ompi/mca/part/ucx
# The MPI extension of the MPIX_ bindings (mpiext/part of this repository).
MPIEXT_DIR=$OMPI_TREE/ompi/mpiext/part

# Copy the component and the MPI extension into the Open MPI tree; only
# files whose content changed get a new time stamp, so make rebuilds just
# those.
sync_component() {
    mkdir -p "$COMPONENT_DIR"
    local f rel
    for f in "$PART_UCX_SRC"/configure.m4 "$PART_UCX_SRC"/Makefile.am \
             "$PART_UCX_SRC"/*.[ch] "$PART_UCX_SRC"/*.cu "$PART_UCX_SRC"/*.txt; do
        [ -e "$f" ] || continue
        cmp -s "$f" "$COMPONENT_DIR/$(basename "$f")" || cp "$f" "$COMPONENT_DIR/"
    done
    (cd "$PART_UCX_SRC/mpiext/part" && find . -type f) | while read -r rel; do
        mkdir -p "$(dirname "$MPIEXT_DIR/$rel")"
        cmp -s "$PART_UCX_SRC/mpiext/part/$rel" "$MPIEXT_DIR/$rel" ||
            cp "$PART_UCX_SRC/mpiext/part/$rel" "$MPIEXT_DIR/$rel"
    done
}

# autogen + configure depend on the configure.m4 files only (the
# component's and the extension's): Makefile.am edits are picked up by
# automake's own rebuild rules.
configure_ompi() {
    local want
    want=$(cat "$PART_UCX_SRC/configure.m4" "$PART_UCX_SRC/mpiext/part/configure.m4" |
           sha256sum | cut -c1-16)
    [ "$(cat "$PART_UCX_WORK/ompi-configure.done" 2>/dev/null)" = "$want" ] && return 0
    rm -f "$PART_UCX_WORK/ompi-configure.done" "$PART_UCX_WORK/ompi-install.done"
    phase "Open MPI autogen.pl (finds ompi/mca/part/ucx)"
    local exclude
    exclude=$(ompi_autogen_excludes)
    step ompi-autogen bash -c "cd '$OMPI_TREE' && ./autogen.pl --force -j $JOBS \
        ${exclude:+--exclude=$exclude}"
    phase "configuring Open MPI"
    step ompi-configure bash -c "cd '$OMPI_TREE' && ./configure --prefix='$PART_UCX_PREFIX' \
        --with-ucx='${PART_UCX_UCX_PREFIX:-$PART_UCX_PREFIX}' $(ompi_configure_flags | xargs)"
    grep -q "part:ucx" "$OMPI_TREE/config.log" ||
        die "Open MPI's configure did not pick up the part/ucx component (see $LOG/ompi-configure.log)."
    grep -q "OMPI_HAVE_MPI_EXT_PART 1" "$OMPI_TREE/ompi/include/mpi-ext.h" ||
        die "Open MPI's configure did not pick up the MPI extension part (see $LOG/ompi-configure.log)."
    mark ompi-configure "$want"
}

# The device plugin needs nothing from Open MPI's configure: nvcc compiles
# it while autogen.pl and configure (one core, mostly) run, with the
# command and flags its Makefile.am has; the flags file it writes first is
# the one make compares, so that make finds the plugin up to date. Where
# the two differ, or the compile fails, make builds it as before.
plugin_pid=
prebuild_device_plugin() {
    [ "$part_ucx_use_cuda" = yes ] && [ -x "$CUDA_HOME/bin/nvcc" ] || return 0
    stamp ompi-install && return 0
    local cmd="$CUDA_HOME/bin/nvcc -O3 -std=c++17 -arch=${PART_UCX_CUDA_ARCH:-all-major}"
    "$CUDA_HOME/bin/nvcc" --threads 0 --version >/dev/null 2>&1 && cmd="$cmd --threads 0"
    (cd "$COMPONENT_DIR" && rm -f part_ucx_device.so part_ucx_device.flags &&
        echo "$cmd" > part_ucx_device.flags &&
        { $cmd -shared -Xcompiler -fPIC,-Wall,-Wextra -I. -o part_ucx_device.so part_ucx_device.cu ||
          { rm -f part_ucx_device.so part_ucx_device.flags; exit 1; }; }
    ) >"$LOG/device-plugin-early.log" 2>&1 &
    plugin_pid=$!
}

build_ompi() {
    stamp ompi-install && return 0
    if [ -n "$plugin_pid" ]; then wait "$plugin_pid" || true; fi
    phase "building Open MPI (make -j$JOBS)"
    step ompi-make make -C "$OMPI_TREE" -j"$JOBS"
    phase "installing Open MPI (make -j$JOBS install)"
    step ompi-install make -C "$OMPI_TREE" -j"$JOBS" install
    mark ompi-install
}

# Rebuild only the component and the extension, relink libmpi (both live
# in it) and reinstall them.
build_component() {
    phase "building part/ucx"
    step component-make bash -c "make -C '$COMPONENT_DIR' -j'$JOBS' &&
        make -C '$MPIEXT_DIR/c' -j'$JOBS'"
    # shown, not fatal: tools/test.sh's build:component-warnings fails on them
    grep 'warning:' "$LOG/component-make.log" | sed 's/^/setup: /' >&2 || true
    step component-libmpi make -C "$OMPI_TREE/ompi" -j"$JOBS" libmpi.la
    step component-install bash -c "make -C '$COMPONENT_DIR' install &&
        make -C '$MPIEXT_DIR/c' install && make -C '$OMPI_TREE/ompi' install-libLTLIBRARIES"
}

# Render docs/NAME.S.rst into the prefix's manS/NAME.S with rst2man. A page
# is rendered again only when its source changed since the last rendering
# (a copy of each source rendered is kept in the build tree); pages whose
# source is gone are removed. Any warning of rst2man fails the setup.
# ".. man-alias: NAME ..." in a source installs NAME.S as a link to it.
install_man_pages() {
    local kept=$PART_UCX_WORK/man-sources src base sec page out alias
    local list=$kept/installed.list new=()
    mkdir -p "$kept"
    for src in "$PART_UCX_SRC"/docs/*.[1-9].rst; do
        [ -e "$src" ] || continue
        base=$(basename "$src" .rst)
        sec=${base##*.}
        page=$PART_UCX_PREFIX/share/man/man$sec/$base
        new+=("man$sec/$base")
        for alias in $(sed -n 's/^\.\. man-alias: *//p' "$src"); do
            new+=("man$sec/$alias.$sec")
        done
        [ -e "$page" ] && cmp -s "$src" "$kept/$base.rst" && continue
        mkdir -p "$(dirname "$page")"
        out=$(rst2man --halt=warning --exit-status=warning "$src" "$page.tmp" 2>&1) &&
            [ -z "$out" ] || { rm -f "$page.tmp"; die "rst2man: docs/$base.rst: $out"; }
        mv "$page.tmp" "$page"
        for alias in $(sed -n 's/^\.\. man-alias: *//p' "$src"); do
            echo ".so man$sec/$base" > "$(dirname "$page")/$alias.$sec"
        done
        cp "$src" "$kept/$base.rst"
        phase "man page $base rendered"
    done
    if [ -e "$list" ]; then
        while read -r page; do
            [[ " ${new[*]} " == *" $page "* ]] || rm -f "$PART_UCX_PREFIX/share/man/$page"
        done < "$list"
    fi
    printf '%s\n' "${new[@]}" > "$list"
}

write_env() {
    # Which patches the Open MPI in this prefix was built with, from patch's logs.
    local p sums=$PART_UCX_PREFIX/share/part-ucx/patches.sha256
    mkdir -p "$(dirname "$sums")"
    : > "$sums"
    for p in "$PART_UCX_SRC"/ompi-patches/*.patch; do
        [ -e "$p" ] || continue
        grep -q '^patching file' "$LOG/patch-$(basename "$p").log" 2>/dev/null &&
            echo "$(sha256sum < "$p" | cut -d' ' -f1)  $(basename "$p")" >> "$sums"
    done
    # One install serves CPU and GPU nodes: on a node without a CUDA driver
    # Open MPI's CUDA components cannot load (no libcuda.so.1), which is
    # expected there and would otherwise print three warnings at every
    # MPI_Init. Load failures of every other component are still shown.
    local conf=$PART_UCX_PREFIX/etc/openmpi-mca-params.conf
    grep -q '^mca_base_component_show_load_errors' "$conf" 2>/dev/null ||
        echo "mca_base_component_show_load_errors = ^accelerator/cuda,rcache/gpusm,rcache/rgpusm" \
            >> "$conf"
    cat > "$PART_UCX_PREFIX/part-ucx-env.sh" <<EOF
# Source this file: the part/ucx install's mpicc, mpirun and ompi_info first.
export PATH="$PART_UCX_PREFIX/bin:\$PATH"
export LD_LIBRARY_PATH="$PART_UCX_PREFIX/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export MANPATH="$PART_UCX_PREFIX/share/man\${MANPATH:+:\$MANPATH}"
EOF
}

# Everything runs from main(), so that editing this file while a build is
# running cannot change what the running shell reads next.
main() {
    mkdir -p "$PART_UCX_CACHE"
    check_host
    check_doc_tools
    fetch_sources
    fetch_ucx
    install_ucx
    unpack_ompi
    sync_component
    prebuild_device_plugin
    configure_ompi
    build_ompi
    build_component
    install_man_pages
    write_env
    phase "done: prefix $PART_UCX_PREFIX"
    echo "setup: use it with: . tools/env.sh   (then mpicc, mpirun, ompi_info are this install's)"
}
main "$@"
