#!/bin/sh
# call 3 (2026-11-26): A (HEAD) against B3 (descriptors in uniform registers, one add a k-step); SASS; gpu_check of B3
set -u
export OUT=${OUT:-/tmp/out}
mkdir -p $OUT/x
SRC=$PWD
./autogen.sh > $OUT/x/autogen.txt 2>&1
for V in B3; do
  rm -rf /tmp/src$V && cp -a . /tmp/src$V && cp .carry/gen$V/*.cu /tmp/src$V/generated/ && touch /tmp/src$V/generated/stamp
  ( cd /tmp/src$V && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror >/dev/null && make -j16 >build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >>build.log 2>&1; echo "$V build rc $?" ) > $OUT/x/build-$V.txt 2>&1 &
done
FG_COMMIT=${FG_COMMIT:-?} RUN_LIMIT=400 STEPS="build" sh bench/run-gpu.sh > $OUT/x/runA.txt 2>&1
make -C /tmp/fg-build -j16 tests/gpu_check > /dev/null 2>&1
wait; cat $OUT/x/build-B3.txt
K='_ZN11attn_causal18fh_attn_fwd_kernelI13__nv_bfloat16NS_6fh_cfgILi128ELi176ELi2ELb0EEEEEvNS_7fh_argsE'
for V in A B3; do
  d=/tmp/fg-build; test $V = A || d=/tmp/src$V/b
  o=`find $d -name '*causal_cuda*.o' | grep -v decode | head -1`
  cuobjdump -sass -fun $K $o > $OUT/x/sass-$V-causal.txt 2>&1
  echo "== $V $o: `grep -cE '^\s+/\*[0-9a-f]{4,5}\*/' $OUT/x/sass-$V-causal.txt` instructions"
  grep -oE '^\s+/\*[0-9a-f]{4,5}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+' $OUT/x/sass-$V-causal.txt | awk '{print $NF}' | sort | uniq -c | sort -rn | head -25 | paste - - - - -
done
PF=global-pf-2k,global-pf-8k,global-pf-32k,causal-pf-2k,causal-pf-8k,causal-pf-32k,gqa-pf-2k,gqa-pf-8k,gqa-pf-32k,alibi-pf-2k,alibi-pf-8k,alibi-pf-32k,softcap-pf-2k,softcap-pf-8k,softcap-pf-32k,window-pf-8k,window-pf-32k
for r in 1 2; do
  for V in A B3; do
    d=/tmp/fg-build; test $V = A || d=/tmp/src$V/b
    $d/bench/fusegen-bench --cases bench/cases.tsv --only $PF --out $OUT/x/$V-$r.jsonl 2> $OUT/x/$V-$r.txt
  done
done
(cd /tmp/srcB3/b && timeout 60 ./tests/gpu_check --small) > $OUT/x/check-B3-small.txt 2>&1
echo "gpu_check --small B3 rc $?: `grep -E 'passed, .* failed' $OUT/x/check-B3-small.txt`"; grep -m5 FAIL $OUT/x/check-B3-small.txt
(cd /tmp/srcB3/b && timeout 200 ./tests/gpu_check --plans causal,softcap,alibi,docmask,relbias,diffattn,fa1,sigmoid) > $OUT/x/check-B3.txt 2>&1
echo "gpu_check B3 rc $?: `grep -E 'passed, .* failed' $OUT/x/check-B3.txt`"; grep -m5 FAIL $OUT/x/check-B3.txt
cd $OUT && tar czf x.tgz x
echo "== TFLOP/s: A B3 (run 1) | A B3 (run 2)"
for c in `echo $PF | tr ',' ' '`; do
  printf "%-16s" $c; for r in 1 2; do for V in A B3; do printf " %7s" `awk -v c=$c '$1==c{print $4}' $OUT/x/$V-$r.txt`; done; printf "  |"; done; echo
done
