#!/bin/sh
# Call 7 (twenty-fourth session): docmask and causal beside FlexAttention in one call, the
# committed sources (6abde3d: H128D, the scan without a second read).  Flex first
# (bench/variants_flex.py), then the library built for sm_90a alone and fusegen-bench three
# times, then Flex again.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
(grep '^#' bench/variants.tsv; grep -E '^(docmask|causal)-pf-(8k|32k)' bench/variants.tsv) > /tmp/c.tsv
PYTHONUNBUFFERED=1 timeout `left 90` python3 bench/variants_flex.py --cases /tmp/c.tsv --out $W/flex-1.jsonl > $W/flex-1.txt 2>&1
echo "flex 1 rc $? at $(( `date +%s` - T0 )) s" >> $W/checks.txt
CUDA_ARCH=90a OUT=$W RUN_LIMIT=200 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
echo "build done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
for r in 1 2 3; do
  timeout `left 215` $B/bench/fusegen-bench --cases /tmp/c.tsv --out $W/fg-$r.jsonl 2> $W/fg-$r.txt
done
PYTHONUNBUFFERED=1 timeout `left 230` python3 bench/variants_flex.py --cases /tmp/c.tsv --out $W/flex-2.jsonl > $W/flex-2.txt 2>&1
echo "flex 2 rc $? at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cat $W/checks.txt; for f in $W/flex-1.txt $W/fg-1.txt $W/fg-2.txt $W/fg-3.txt $W/flex-2.txt; do echo "== $f"; grep -E "pf-" $f | cut -c1-90; done
cd $W && tar czf $OUT/call7.tgz . && ls $OUT
