#!/bin/sh
# call 8 (2026-11-26, fifteenth session): A (HEAD, the fold) against P (the sm_90a rolling
# kernel persistent: one CTA per SM walking its work items, the next item's K/V loaded while
# the consumers finish the last; setmaxnreg split by the accumulators' weight). P is smoked
# first under a timeout (a barrier bug hangs); then alternating benches, peers, gpu_check,
# compute-sanitizer on P.
set -u
export OUT=${OUT:-/tmp/out}
W=$OUT/ab; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $W/gpu.txt 2>&1
./autogen.sh > $W/autogen.txt 2>&1
V=P
rm -rf /tmp/srcP && cp -a . /tmp/srcP && cp .carry/genP/*.cu /tmp/srcP/generated/ && touch /tmp/srcP/generated/stamp
( cd /tmp/srcP && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1
  echo "P build rc $?" ) > $W/build-P.txt 2>&1 &
FG_COMMIT=${FG_COMMIT:-?} RUN_LIMIT=400 STEPS=build OUT=$W sh bench/run-gpu.sh > $W/run-A.txt 2>&1
make -C /tmp/fg-build -j16 tests/gpu_check > /dev/null 2>&1
wait
cat $W/build-P.txt; tail -3 /tmp/srcP/b/build.log
(cd /tmp/srcP/b && timeout 45 ./tests/gpu_check --small --plans causal,window,gqa) > $W/smoke-P.txt 2>&1
rc=$?; echo "P smoke rc $rc: `grep -E 'passed, .* failed' $W/smoke-P.txt`"
if test $rc -eq 0; then
  for r in 1 2; do
    for T in A P; do
      d=/tmp/fg-build; test $T = A || d=/tmp/srcP/b
      timeout 100 $d/bench/fusegen-bench --cases bench/cases.tsv --out $W/$T-$r.jsonl 2> $W/$T-$r.txt
    done
  done
  PEERS_FLEX_ONLY=alibi-pf-8k,softcap-pf-8k,window-pf-8k,window-pf-32k RUN_LIMIT=150 STEPS=peers OUT=$W sh bench/run-gpu.sh > $W/run-peers.txt 2>&1
  for T in A P; do python3 .carry/compare.py $W/$T-1.jsonl $W/peers.jsonl > $W/compare-$T.txt 2>&1; done
  (cd /tmp/srcP/b && timeout 60 ./tests/gpu_check --small) > $W/check-P-small.txt 2>&1
  echo "gpu_check --small P rc $?: `grep -E 'passed, .* failed' $W/check-P-small.txt`"; grep -m5 FAIL $W/check-P-small.txt
  (cd /tmp/srcP/b && timeout 120 ./tests/gpu_check --plans causal,gqa,docmask,window) > $W/check-P.txt 2>&1
  echo "gpu_check P causal,gqa,docmask,window rc $?: `grep -E 'passed, .* failed' $W/check-P.txt`"; grep -m5 FAIL $W/check-P.txt
  for tool in racecheck synccheck memcheck; do
    (cd /tmp/srcP/b && timeout 50 compute-sanitizer --tool $tool --error-exitcode 3 ./tests/gpu_check --small --plans causal,window,docmask) > $W/san-$tool.txt 2>&1
    echo "compute-sanitizer $tool rc $?: `grep -E 'ERROR SUMMARY|passed, .* failed' $W/san-$tool.txt | tr '\n' ' '`"
  done
fi
cd $OUT && tar czf ab.tgz ab
echo "== TFLOP/s (GB/s for decode), per run: A P"
for c in `awk '!/^#/ { print $1 }' $OLDPWD/bench/cases.tsv`; do
  printf "%-16s" $c; for r in 1 2; do for T in A P; do printf " %7s" `awk -v c=$c '$1==c{print ($0 ~ /-dc-/) ? $5 : $4}' $W/$T-$r.txt 2>/dev/null`; done; printf "  |"; done; echo
done
tail -2 $W/compare-P.txt
