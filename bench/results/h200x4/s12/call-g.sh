#!/usr/bin/env bash
# Session 13, call G (four GPUs), bundle of 7165fb2: the kinds at 256 KiB-
# 2 MiB, where NCCL leads by 1.08-1.32x. Two-shot (pulled) instead of the
# default kind: np 4 from 512 KiB (768 KiB is one-shot pulled by default),
# np 3 from 512 KiB with the bulk push only up to 1 MiB of copies (768 KiB
# and 1 MiB are the flagged bulk push by default), np 2 from 256 KiB with
# no bulk push (256 KiB is the bulk push in lines, 768 KiB-1 MiB flagged).
# Graph and stream rows, two rounds.
set -u
. bench/call-common.sh .bundle/part-ucx.tar.xz || exit 1
export BENCH_NO_TRADITIONAL=1
for r in 1 2; do
  run 4 -base-r$r 192,256,512 >> $OUT/x-kinds.csv
  run 4 -two-r$r 192,256,512 --mca part_ucx_coll_gpu_twoshot_bytes 524288 >> $OUT/x-kinds.csv
  run 3 -base-r$r 192,256,512 >> $OUT/x-kinds.csv
  run 3 -two-r$r 192,256,512 --mca part_ucx_coll_gpu_twoshot_bytes 524288 --mca part_ucx_coll_gpu_bulk_bytes 1048576 >> $OUT/x-kinds.csv
  run 2 -base-r$r 64,192,256 >> $OUT/x-kinds.csv
  run 2 -two-r$r 64,192,256 --mca part_ucx_coll_gpu_twoshot_bytes 262144 --mca part_ucx_coll_gpu_bulk_bytes 0 >> $OUT/x-kinds.csv
  echo "round $r at $(el) s"
done
# run: O=$OUT; export OUT=/tmp/o; rm -rf $OUT; mkdir -p $OUT; cp .bundle/exp/s13d.sh $OUT/call.sh; bash .bundle/exp/s13d.sh 2>&1 | tail; tar -cJf $O/g.tar.xz -C /tmp o
