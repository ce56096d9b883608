#!/usr/bin/env bash
# Run the test suite with part/ucx compiled under AddressSanitizer.
#   tools/asan.sh [tools/test.sh arguments]
# The component is recompiled with -fsanitize=address in the cached Open MPI
# build tree and a libmpi with it is linked into $PART_UCX_CACHE/asan-KEY/lib;
# the installed prefix is never touched, and the build tree is put back as
# it was afterwards. Every MPI process then runs with that libmpi first in
# LD_LIBRARY_PATH and libasan preloaded; a report fails the test (exit 1).
# Leak checking is off: Open MPI and PMIx keep memory until exit by design
# (valgrind runs cover leaks, see docs/developing.md).
set -euo pipefail
. "$(dirname "$0")/common.sh"

tree=$PART_UCX_WORK/openmpi-$OMPI_VERSION
comp=$tree/ompi/mca/part/ucx
asan_lib=$PART_UCX_CACHE/asan-$PART_UCX_KEY/lib
log=$PART_UCX_WORK/logs/asan-build.log
[ -f "$comp/Makefile" ] || { echo "asan: run tools/setup.sh first" >&2; exit 1; }

libasan=$(gcc -print-file-name=libasan.so)
[ -e "$libasan" ] || { echo "asan: libasan.so not found (install libasan of gcc)" >&2; exit 1; }

cflags=$(sed -n 's/^CFLAGS = //p' "$comp/Makefile")
rebuild() { # extra CFLAGS
    make -C "$comp" clean >> "$log" 2>&1
    make -C "$comp" CFLAGS="$cflags $1" >> "$log" 2>&1
    make -C "$tree/ompi" libmpi.la >> "$log" 2>&1
}
restore() { rebuild "" || echo "asan: restoring the build tree failed: see $log" >&2; }

: > "$log"
echo "asan: compiling part/ucx with -fsanitize=address (log: $log)"
trap restore EXIT
rebuild "-fsanitize=address -fno-omit-frame-pointer -g"
rm -rf "$asan_lib"
mkdir -p "$asan_lib"
cp -a "$tree"/ompi/.libs/libmpi.so* "$asan_lib/"
nm -D "$asan_lib"/libmpi.so | grep __asan_init > /dev/null ||
    { echo "asan: the rebuilt libmpi is not instrumented" >&2; exit 1; }
restore
trap - EXIT

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1:exitcode=1}
export TEST_WRAPPER="env LD_PRELOAD=$libasan LD_LIBRARY_PATH=$asan_lib:$PART_UCX_PREFIX/lib"
exec "$PART_UCX_SRC/tools/test.sh" "$@"
