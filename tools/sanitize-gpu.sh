#!/usr/bin/env bash
# CUDA compute-sanitizer over the device paths, on a GPU node:
#   tools/sanitize-gpu.sh [OUTFILE [tools/test.sh options, e.g. -k san-stream]]
# Runs tests/sanitize.list under each of synccheck, racecheck and memcheck
# (SANITIZE_TOOLS overrides), every MPI process wrapped; any report fails
# its test. memcheck leaves out API errors: at MPI_Init Open MPI's
# btl/smcuda gets CUDA_ERROR_INVALID_VALUE from cuMemHostRegister (its call).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/dev/null}
shift $(($# > 0))
rc=0
{
    echo "# compute-sanitizer over tests/sanitize.list, $(date -u +%FT%TZ), commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
    nvidia-smi -L 2>/dev/null | sed 's/^/# /'
} | tee "$out"
for tool in ${SANITIZE_TOOLS:-synccheck racecheck memcheck}; do
    opts="--tool $tool --error-exitcode 9"
    [ "$tool" = memcheck ] && opts="$opts --report-api-errors no"
    TEST_LIST=$here/tests/sanitize.list TEST_REUSE_BUILD=${first_done:-${TEST_REUSE_BUILD:-}} TEST_WRAPPER="compute-sanitizer $opts" \
        "$here/tools/test.sh" --gpu "$@" 2>&1 | sed "s/^/$tool: /" | tee -a "$out"
    [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
    first_done=1
done
exit $rc
