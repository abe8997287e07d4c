#!/bin/sh
# Call 3 (twenty-second session): the decode cases at fixed split counts
# (fusegen-bench --splits), to see how near the probe's ceiling the split kernels
# come with more or fewer splits than the default rules give them.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
echo "build done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
C=causal-dc-8k,causal-dc-32k,gqa-dc-8k,gqa-dc-32k,softcap-dc-32k
for r in 1 2; do for s in 0 4 8 16 32 64 128 256; do
  timeout `left 540` $B/bench/fusegen-bench --cases bench/cases.tsv --only $C --splits $s --out $W/dc-s$s-$r.jsonl 2> $W/dc-s$s-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cat $W/checks.txt
for r in 1 2; do for s in 0 4 8 16 32 64 128 256; do grep -E "dc-" $W/dc-s$s-$r.txt | awk -v s=$s -v r=$r '{print "run " r " splits " s ": " $1, $3, $5}'; done; done
cd $W && tar czf $OUT/call3.tgz . && ls $OUT
