#!/usr/bin/env bash
# Session 25, calls C1 and C2 (one H200, one process, no MPS): what one mark
# a block costs a short producer (markcost.cu; C1 ran its first ten
# variants, three rounds: c/markcost.txt; C2 all of them, two rounds:
# c/markcost2.txt). No bundle needed.
set -eu
nvcc -O3 -arch=sm_90 -o /tmp/markcost bench/results/h200x1-coll/s26/markcost.cu  # (as run: s25/markcost.cu, since merged into s26's, whose session-25 variants are unchanged but ldgstrg, which now stores)
/tmp/markcost | tee $OUT/markcost2.txt
# run: bash bench/results/h200x1-coll/s25/call-c.sh
