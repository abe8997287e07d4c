#!/bin/sh
# call 4 (2026-11-26): A (HEAD) against B3 (descriptors: one per tile, uniform warpgroup) and
# B5 (B3 + the tile range broadcast, slots uniform); peers in the same call; gpu_check of B5 and B3
set -u
export OUT=${OUT:-/tmp/out}
mkdir -p $OUT/x
./autogen.sh > $OUT/x/autogen.txt 2>&1
for V in B3 B5; do
  rm -rf /tmp/src$V && cp -a . /tmp/src$V && cp .carry/gen$V/*.cu /tmp/src$V/generated/ && touch /tmp/src$V/generated/stamp
  ( cd /tmp/src$V && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror >/dev/null && make -j16 >build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >>build.log 2>&1; echo "$V build rc $?" ) > $OUT/x/build-$V.txt 2>&1 &
done
FG_COMMIT=${FG_COMMIT:-?} RUN_LIMIT=400 STEPS="build" sh bench/run-gpu.sh > $OUT/x/runA.txt 2>&1
wait; cat $OUT/x/build-B3.txt $OUT/x/build-B5.txt; tail -3 $OUT/x/runA.txt
K='_ZN11attn_causal18fh_attn_fwd_kernelI13__nv_bfloat16NS_6fh_cfgILi128ELi176ELi2ELb0EEEEEvNS_7fh_argsE'
o=`find /tmp/srcB5/b -name '*causal_cuda*.o' | grep -v decode | head -1`
cuobjdump -sass -fun $K $o > $OUT/x/sass-B5-causal.txt 2>&1
cuobjdump -sass /tmp/srcB5/b/libfusegen_cuda.a > /tmp/sassB5.txt 2>&1
for ins in HGMMA UTMALDG LDL STL; do echo "B5 sass $ins `grep -c "\b$ins\b" /tmp/sassB5.txt`"; done
PF=global-pf-2k,global-pf-8k,global-pf-32k,causal-pf-2k,causal-pf-8k,causal-pf-32k,gqa-pf-2k,gqa-pf-8k,gqa-pf-32k,alibi-pf-2k,alibi-pf-8k,alibi-pf-32k,softcap-pf-2k,softcap-pf-8k,softcap-pf-32k,window-pf-8k,window-pf-32k
for r in 1 2; do
  for V in A B3 B5; do
    d=/tmp/fg-build; test $V = A || d=/tmp/src$V/b
    $d/bench/fusegen-bench --cases bench/cases.tsv --out $OUT/x/$V-$r.jsonl 2> $OUT/x/$V-$r.txt
  done
done
FG_COMMIT=${FG_COMMIT:-?} RUN_LIMIT=150 STEPS="peers" PEERS_FLEX_ONLY=alibi-pf-8k,softcap-pf-8k,window-pf-8k,window-pf-32k OUT=$OUT/x sh bench/run-gpu.sh > $OUT/x/run-peers.txt 2>&1
for V in A B3 B5; do python3 .carry/compare.py $OUT/x/$V-1.jsonl $OUT/x/peers.jsonl > $OUT/x/compare-$V.txt 2>&1; done
for V in B5 B3; do
  (cd /tmp/src$V/b && timeout 40 ./tests/gpu_check --small) > $OUT/x/check-$V-small.txt 2>&1
  echo "gpu_check --small $V rc $?: `grep -E 'passed, .* failed' $OUT/x/check-$V-small.txt`"; grep -m5 FAIL $OUT/x/check-$V-small.txt
done
(cd /tmp/srcB5/b && timeout 100 ./tests/gpu_check --plans causal,softcap) > $OUT/x/check-B5.txt 2>&1
echo "gpu_check B5 causal,softcap rc $?: `grep -E 'passed, .* failed' $OUT/x/check-B5.txt`"; grep -m5 FAIL $OUT/x/check-B5.txt
cd $OUT && tar czf x.tgz x
echo "== TFLOP/s (GB/s for decode): A B3 B5 (run 1) | A B3 B5 (run 2)"
for c in `awk '!/^#/{print $1}' $OLDPWD/bench/cases.tsv`; do
  printf "%-16s" $c; for r in 1 2; do for V in A B3 B5; do printf " %7s" `awk -v c=$c '$1==c{print ($0 ~ /-dc-/) ? $6 : $4}' $OUT/x/$V-$r.txt`; done; printf "  |"; done; echo
done
tail -3 $OUT/x/compare-B5.txt
