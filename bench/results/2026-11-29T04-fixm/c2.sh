#!/bin/sh
# Call 2 (twenty-eighth session).  C (.carry/genC: B of call 1, FIXM, with
# the consumers' loop instantiated for FIXM and without it and chosen once,
# instead of a run-time test inside the softmax; causal_cuda.cu of the same
# templates, the control) against A (the committed kernels, 51f1e93): fusegen-bench on the
# softcap and window prefill cases and causal-pf-8k (the
# control) alternating A and C five times; gpu_check on C: softcap and
# window in full (with the new cap cases) and --small on every plan;
# compute-sanitizer memcheck on softcap --small; SASS of C's window kernels.
T0=`date +%s`
left() { echo $(( $1 - (`date +%s` - T0) )); }
SRC=`pwd`; B=/tmp/fg-build; W=$OUT/w; mkdir -p $W
grep -E '^#|softcap-pf|window-pf|causal-pf-8k' bench/cases.tsv > /tmp/sc.tsv
OUT=$W RUN_LIMIT=300 STEPS="build" sh bench/run-gpu.sh > $W/run.log 2>&1
[ -x $B/bench/fusegen-bench ] && [ -x $B/tests/gpu_check ] || { echo "A build failed"; tail -30 $W/run.log; cd $W && tar czf $OUT/call2.tgz .; exit 1; }
echo "A built at $(( `date +%s` - T0 )) s" >> $W/checks.txt
mkdir -p /tmp/binA && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binA/
cp .carry/genC/*_cuda.cu generated/ && cp .carry/genC/gpu_check.c tests/
make -C $B -j16 bench/fusegen-bench tests/gpu_check > $W/build-C.log 2>&1; rc=$?
echo "C build rc $rc at $(( `date +%s` - T0 )) s" >> $W/checks.txt
[ $rc -ne 0 ] && { tail -30 $W/build-C.log; cd $W && tar czf $OUT/call2.tgz .; exit 1; }
mkdir -p /tmp/binC && cp $B/bench/fusegen-bench $B/tests/gpu_check /tmp/binC/
cmp -s /tmp/binA/fusegen-bench /tmp/binC/fusegen-bench && { echo "A and C identical: stop"; exit 1; }
for r in 1 2 3 4 5; do for V in A C; do
  timeout `left 330` /tmp/bin$V/fusegen-bench --cases /tmp/sc.tsv --out $W/$V-$r.jsonl 2> $W/$V-$r.txt
done; done
echo "bench done at $(( `date +%s` - T0 )) s" >> $W/checks.txt
cuobjdump -sass $B/libfusegen_cuda.a 2>/dev/null | awk '/Function : .*attn_window.*fh_attn/{f=1} /Function : /{if($0 !~ /attn_window.*fh_attn/) f=0} f' > $W/window-sass.txt
echo "window sm90 SASS: HGMMA `grep -c HGMMA $W/window-sass.txt` UTMALDG `grep -c UTMALDG $W/window-sass.txt` LDL `grep -c 'LDL' $W/window-sass.txt` STL `grep -c 'STL' $W/window-sass.txt`" >> $W/checks.txt
cd /tmp/binC
timeout `left 440` ./gpu_check --plans softcap,window > $W/check-C.txt 2>&1
echo "C gpu_check softcap,window rc $?: `grep -E 'passed, .* failed' $W/check-C.txt`" >> $W/checks.txt
timeout `left 500` ./gpu_check --small > $W/check-C-small.txt 2>&1
echo "C gpu_check --small rc $?: `grep -E 'passed, .* failed' $W/check-C-small.txt`" >> $W/checks.txt
timeout `left 560` compute-sanitizer --tool memcheck ./gpu_check --small --plans softcap,window > $W/memcheck-C.txt 2>&1
echo "C memcheck rc $?: `grep -E 'ERROR SUMMARY' $W/memcheck-C.txt`" >> $W/checks.txt
cd $SRC
cat $W/checks.txt
grep -E 'FAIL' $W/check-C*.txt | head -20
for f in A-1 C-1 A-2 C-2 A-3 C-3 A-4 C-4 A-5 C-5; do echo "== $f"; grep -E "pf-" $W/$f.txt | cut -c1-100; done
cd $W && tar czf $OUT/call2.tgz . && ls $OUT
