#!/bin/sh
# Call 2 (twenty-fourth session): where a docmask CTA's time goes.  The working tree's
# docmask source with %globaltimer stamps (T128: the committed shape fh_cfg<128, 128, 128,
# 3>; T64: fh_cfg<128, 64, 64, 2>, two CTAs a SM), patched by the session's trace script
# (entry, after the key range's scan, Q landed, the first K tile landed, the last tile's
# products done, the epilogue's stores done; the SM and the tile count), one consumer thread
# of every 37th CTA, 80 records of a later launch, printed at exit.  Timing only: the stamps
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
  grep TRACE $f | awk '{ n++; s += $14; q += $16; k += $18; l += $20; e += $22; t += $10 }
    END { if (n) printf "n %d tiles %.1f scan %.0f q %.0f k0 %.0f loop %.0f end %.0f ns (means)\n", n, t/n, s/n, q/n, k/n, l/n, e/n }'
  grep TRACE $f | head -12
done
cd $W && tar czf $OUT/call2.tgz . && ls $OUT
