# Source this file: puts the part/ucx install's mpicc, mpirun and ompi_info
# first in PATH, so that no other MPI on the machine is picked by accident.
#   . tools/env.sh
__part_ucx_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$__part_ucx_dir/common.sh"
export PATH="$PART_UCX_PREFIX/bin:$PATH"
export LD_LIBRARY_PATH="$PART_UCX_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PART_UCX_PREFIX
unset __part_ucx_dir
