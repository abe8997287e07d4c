#!/bin/sh
# Call 4 (twenty-eighth session): the library of a4f1490 (FIXM and
# LAZY) built and checked: the SASS counts, gpu_check in full on the sm_90a
# plans call 3 checked with --small only (docmask, relbias, global, base2,
# prefixlm, sinkwindow) and on softcap and window, then every prefill case
# and bench/variants.tsv once.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
grep -E '^#|-pf-' bench/cases.tsv > /tmp/pf.tsv
OUT=$W RUN_LIMIT=300 STEPS="build sass" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] && [ -x $B/tests/gpu_check ] || { echo "build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' .; exit 1; }
echo "built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
grep -iE 'HGMMA|UTMALDG|LDL|STL|HMMA' $W/summary.txt >> $W/checks.txt 2>/dev/null
cd $B/tests
timeout `left 380` ./gpu_check --plans docmask,relbias,global,base2,prefixlm,sinkwindow,softcap,window > $W/check.txt 2>&1
echo "gpu_check rc $?: `grep -E 'passed, .* failed' $W/check.txt` (`grep -c '^PASS' $W/check.txt` PASS lines, last: `grep '^PASS' $W/check.txt | tail -1 | cut -c1-60`)" >> $W/checks.txt
cd $SRC
timeout `left 440` $B/bench/fusegen-bench --cases /tmp/pf.tsv --out $W/F.jsonl 2> $W/F.txt
timeout `left 470` $B/bench/fusegen-bench --cases bench/variants.tsv --out $W/F-v.jsonl 2> $W/F-v.txt
cat $W/checks.txt
grep -E '^FAIL' $W/check.txt | head
grep -hE -- '-pf-' $W/F.txt $W/F-v.txt | cut -c1-60
cd $W && tar czf $OUT/call4.tgz --exclude='build*.log' . && ls $OUT
