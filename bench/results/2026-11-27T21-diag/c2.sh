#!/bin/sh
# Call 2 (twenty-second session), the committed tree: build; the decode probe
# (bench/probe/decode_probe.cu) at the four decode shapes; fusegen-bench's decode
# cases and causal/relbias prefill twice; gpu_check --small; SASS counts.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
B=/tmp/fg-build
W=$OUT/w; mkdir -p $W
CUDA_ARCH=80,90a OUT=$W RUN_LIMIT=300 STEPS="build sass" sh bench/run-gpu.sh > $W/run.log 2>&1
echo "build done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
nvcc -O3 -arch=sm_90a -Xptxas -v -o /tmp/decode_probe bench/probe/decode_probe.cu > $W/probe-build.txt 2>&1
for s in "16 32 8192" "1 32 32768" "16 8 8192" "1 8 32768"; do
  timeout `left 400` /tmp/decode_probe $s >> $W/probe.txt 2>&1; echo "probe $s rc $?" >> $W/checks.txt
done
C=causal-dc-8k,causal-dc-32k,gqa-dc-8k,gqa-dc-32k,alibi-dc-8k,alibi-dc-32k,softcap-dc-8k,softcap-dc-32k
for r in 1 2; do
  timeout `left 450` $B/bench/fusegen-bench --cases bench/cases.tsv --only $C --out $W/dc-$r.jsonl 2> $W/dc-$r.txt
  timeout `left 460` $B/bench/fusegen-bench --cases bench/variants.tsv --only causal-pf-8k,relbias-pf-8k,causal-pf-32k,relbias-pf-32k --out $W/pf-$r.jsonl 2> $W/pf-$r.txt
done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
(cd $B && timeout `left 560` ./tests/gpu_check --small > $W/check-small.txt 2>&1; echo "check --small rc $?: `grep -E 'passed, .* failed' $W/check-small.txt`" >> $W/checks.txt)
cat $W/checks.txt; grep -E "^best|spill" $W/probe.txt $W/probe-build.txt
for r in 1 2; do echo "== run $r"; cut -c1-90 $W/dc-$r.txt | grep -E "dc-"; cut -c1-90 $W/pf-$r.txt | grep -E "pf-"; done
cd $W && tar czf $OUT/call2.tgz . && ls $OUT
