#!/bin/sh
# Call 3 (H200): the retuned library (wisdom of 2026-11-27T00:03Z compiled in).
# build + gpu_check --small; then fusegen-bench over the 25 cases, tuned (t),
# untuned (u, FUSEGEN_WISDOM_DEVICE="(untuned)") and with the H100's rows
# (o), alternating, twice; then the peers in the same call and compare.py on t1.
: ${FG_COMMIT:?}
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
OUT=$OUT RUN_LIMIT=200 STEPS="build smoke" sh bench/run-gpu.sh > $OUT/run.log 2>&1
cp $OUT/summary.txt $OUT/summary-build.txt
B=/tmp/fg-build/bench/fusegen-bench
for i in ${PASSES:-1 2}; do
  timeout `left 420` $B --cases bench/cases.tsv --out $OUT/t$i.jsonl 2>> $OUT/bench.txt
  FUSEGEN_WISDOM_DEVICE="(untuned)" timeout `left 420` $B --cases bench/cases.tsv --out $OUT/u$i.jsonl 2>> $OUT/bench.txt
  FUSEGEN_WISDOM_DEVICE="${OTHER:-NVIDIA H100 80GB HBM3}" timeout `left 420` $B --cases bench/cases.tsv --out $OUT/o$i.jsonl 2>> $OUT/bench.txt
  echo "pass $i done at $(( `date +%s` - T0 )) s" >> $OUT/bench.txt
done
cp $OUT/t1.jsonl $OUT/fusegen.jsonl
OUT=$OUT RUN_LIMIT=`left 560` STEPS="peers compare" PEERS_FLEX_ONLY=alibi-pf-8k,softcap-pf-8k,window-pf-8k,window-pf-32k sh bench/run-gpu.sh >> $OUT/run.log 2>&1
cat $OUT/summary-build.txt $OUT/summary.txt
cd $OUT && tar czf call3.tgz *.jsonl *.txt *.log && ls
