#!/bin/sh
# Call 3 (twenty-fourth session): call 2 with the time of each step of the key-tile loop  The working tree's
# docmask source with %globaltimer stamps (T128: the committed shape fh_cfg<128, 128, 128,
# 3>; T64: fh_cfg<128, 64, 64, 2>, two CTAs a SM), patched by the session's trace script
# (entry, after the key range's scan, Q landed, the first K tile landed, the last tile's
# products done, the epilogue's stores done; the SM and the tile count), one consumer thread
# of every 37th CTA (and, summed over the loop, the class, the K and V waits, the wait for S, the softmax, the wait for P V), 80 records of a later launch, printed at exit.  Timing only: the stamps
# are not in the repository's sources.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
R=`pwd`
CUDA_ARCH=90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
for V in T128 T64; do
  cp .carry/gen$V/docmask_cuda.cu generated/
  make -C $B -j16 bench/fusegen-bench > $W/build-$V.log 2>&1; echo "$V build rc $?" >> $W/checks.txt
  mkdir -p /tmp/bin$V && cp $B/bench/fusegen-bench /tmp/bin$V/
done
echo "builds done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
for c in docmask-pf-8k docmask-pf-32k; do
  (grep '^#' $R/bench/variants.tsv; grep -E "^$c\s" $R/bench/variants.tsv) > /tmp/$c.tsv
  for V in T128 T64; do
    timeout `left 500` /tmp/bin$V/fusegen-bench --cases /tmp/$c.tsv --out $W/$V-$c.jsonl > $W/$V-$c.txt 2>&1
  done
done
cd /tmp/binT128
for c in docmask-pf-8k causal-pf-8k; do
  (grep '^#' $R/bench/variants.tsv; grep -E "^$c\s" $R/bench/variants.tsv) > /tmp/n-$c.tsv
  timeout `left 560` ncu --kernel-name regex:fh_attn --launch-skip 3 --launch-count 1 --metrics regex:smsp__warp_issue_stalled_.*_per_warp_active.pct,smsp__inst_executed.sum,sm__cycles_elapsed.avg,smsp__warps_active.avg.per_cycle_active ./fusegen-bench --cases /tmp/n-$c.tsv --out /tmp/n.jsonl > $W/ncu-$c.txt 2>&1
  echo "ncu $c rc $?" >> $W/checks.txt
done
cd $R
cat $W/checks.txt
for c in docmask-pf-8k causal-pf-8k; do echo "== ncu $c"; grep -E "smsp__|sm__" $W/ncu-$c.txt | awk '$NF+0 > 0.5 || /inst_executed|cycles|warps_active/' | sed 's/  */ /g'; done
for f in $W/T*-docmask*.txt; do
  echo "== $f"; grep -v TRACE $f | cut -c1-60 | grep pf-
  grep TRACE $f | awk '{ n++; for (i = 10; i <= NF; i += 2) if (i != 12) m[i] += $(i + 1) }
    END { if (n) { printf "means of %d:", n; for (i = 10; i <= NF; i += 2) if (i != 12) printf " %s %.0f", $i, m[i] / n; printf "\n" } }'
  grep TRACE $f | head -6
done
cd $W && tar czf $OUT/call3.tgz . && ls $OUT
