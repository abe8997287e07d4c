#!/bin/sh
# Call 3 (thirty-fourth session): the final library (QR gated off for
# several chains and for a term per diagonal).  Build; SASS (HGMMA and
# UTMALDG present, LDL/STL in no sm_90a kernel); gpu_check --small; causal,
# gqa and window in full (fp16, every compiled head dim, GQA groups) for 150 s
# at most; racecheck and synccheck on --small of causal, softcap, gqa;
# then the call-2 cases once.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
W=$OUT/w; B=/tmp/fg-build; mkdir -p $W/b
export PATH=$PATH:/usr/local/cuda/bin
./autogen.sh > $W/autogen.txt 2>&1
touch generated/stamp
OUT=$W/b RUN_LIMIT=330 STEPS="build sass" sh bench/run-gpu.sh > $W/run-b.log 2>&1
[ -x $B/tests/gpu_check ] || { echo "build failed"; tail -30 $W/run-b.log; exit 1; }
echo "built at $(( `date +%s` - T0 )) s"; grep sass $W/b/summary.txt | grep sm90; echo "LDL/STL:"; cat $W/b/sass-sm90-ldl-stl.txt
(cd $B && timeout 100 ./tests/gpu_check --small) > $W/small.txt 2>&1; echo "--small rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed' $W/small.txt`"
(cd $B && timeout `left 420` ./tests/gpu_check --plans causal,gqa,window) > $W/full.txt 2>&1; echo "full causal,gqa,window rc $? at $(( `date +%s` - T0 )) s: `grep -c '^PASS' $W/full.txt` PASS lines, `grep -c '^FAIL' $W/full.txt` FAIL lines; `grep -E 'passed, .* failed' $W/full.txt`"
for tool in racecheck synccheck; do
  (cd $B && timeout 60 compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans causal,softcap,gqa) > $W/$tool.txt 2>&1
  echo "$tool rc $? at $(( `date +%s` - T0 )) s: `grep -E 'passed, .* failed|SUMMARY' $W/$tool.txt | tr '\n' ' '`"
done
[ `left 560` -gt 30 ] && timeout `left 580` $B/bench/fusegen-bench --cases .carry/qr.tsv --seconds 2 --out $W/B.jsonl > $W/B.txt 2>&1
grep -v '^#' $W/B.txt | cut -c1-75
cd $W && tar czf $OUT/call3.tgz --exclude='build*.log' . && ls -la $OUT
