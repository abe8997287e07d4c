#!/bin/sh
# Call 1 (twenty-eighth session).  B (.carry/genB: softcap and window's
# sm_90a kernels hold the max at a fixed offset where the score is bounded,
# FIXM) against A (the committed kernels, 51f1e93): fusegen-bench on the
# softcap and window prefill cases and causal-pf-8k (unchanged code, the
# control) alternating A and B three times; gpu_check on B: softcap and
# window in full (with the new cap cases) and --small on every plan;
# compute-sanitizer memcheck on softcap --small; SASS of B's window kernels.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
grep -E '^#|softcap-pf|window-pf|causal-pf-8k' bench/cases.tsv > /tmp/sc.tsv
OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] && [ -x $B/tests/gpu_check ] || { echo "A build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call1.tgz .; exit 1; }
echo "A built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binA/
cp .carry/genB/*_cuda.cu generated/ && cp .carry/genB/gpu_check.c tests/
make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-B.log 2>&1; rc=$?
echo "B build rc $rc at $(( `date +%s` - T0 )) s" >> $W/checks.txt
[ $rc -ne 0 ] && { tail -30 $W/build-B.log; cd $W && tar czf $OUT/call1.tgz .; exit 1; }
mkdir -p /tmp/binB && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binB/
cmp -s /tmp/binA/fusegen-bench /tmp/binB/fusegen-bench && { echo "A and B identical: stop"; exit 1; }
grep -A2 'window.*fh_attn_fwd_kernel.*bf16\|Compiling.*attn_window.*fh_attn' $W/build-B.log | grep -c spill >> $W/checks.txt
for r in 1 2 3; do for V in A B; do
  timeout `left 330` /tmp/bin$V/fusegen-bench --cases /tmp/sc.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cuobjdump -sass $B/libfusegen_cuda.a 2>/dev/null | awk '/Function : .*attn_window.*fh_attn/{f=1} /Function : /{if($0 !~ /attn_window.*fh_attn/) f=0} f' > $W/window-sass.txt
echo "window sm90 SASS: HGMMA `grep -c HGMMA $W/window-sass.txt` UTMALDG `grep -c UTMALDG $W/window-sass.txt` LDL `grep -c 'LDL' $W/window-sass.txt` STL `grep -c 'STL' $W/window-sass.txt`" >> $W/checks.txt
cd /tmp/binB
timeout `left 440` ./gpu_check --plans softcap,window > $W/check-B.txt 2>&1
echo "B gpu_check softcap,window rc $?: `grep -E 'passed, .* failed' $W/check-B.txt`" >> $W/checks.txt
timeout `left 500` ./gpu_check --small > $W/check-B-small.txt 2>&1
echo "B gpu_check --small rc $?: `grep -E 'passed, .* failed' $W/check-B-small.txt`" >> $W/checks.txt
timeout `left 560` compute-sanitizer --tool memcheck ./gpu_check --small --plans softcap,window > $W/memcheck-B.txt 2>&1
echo "B memcheck rc $?: `grep -E 'ERROR SUMMARY' $W/memcheck-B.txt`" >> $W/checks.txt
cd $SRC
cat $W/checks.txt
grep -E 'FAIL' $W/check-B*.txt | head -20
for f in A-1 B-1 A-2 B-2 A-3 B-3; do echo "== $f"; grep -E "pf-" $W/$f.txt | cut -c1-100; done
cd $W && tar czf $OUT/call1.tgz . && ls $OUT
