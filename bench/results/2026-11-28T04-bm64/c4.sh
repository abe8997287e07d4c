#!/bin/sh
# Call 4 (twenty-fourth session): call 3 with the softmax's time by tile class (unmasked,
# partial, spans known, other) and the scan's steps (the rows' range, the chunks, the two
# sides, the barrier); no ncu  The working tree's
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
cat $W/checks.txt
for f in $W/T*-docmask*.txt; do
  echo "== $f"; grep -v TRACE $f | cut -c1-60 | grep pf-
  grep TRACE $f | awk '{ n++; for (i = 10; i <= NF; i += 2) if (i != 12) m[i] += $(i + 1) }
    END { if (n) { printf "means of %d:", n; for (i = 10; i <= NF; i += 2) if (i != 12) printf " %s %.0f", $i, m[i] / n; printf "\n" } }'
  grep TRACE $f | head -6
done
cd $W && tar czf $OUT/call4.tgz . && ls $OUT
