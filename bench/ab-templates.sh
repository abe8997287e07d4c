#!/bin/sh
# bench/ab-templates.sh - one device call's A/B of skeleton changes: the
# committed sources (A) against variant trees whose CUDA sources
# bench/ab-gen.sh generated here (B...), built side by side, timed
# alternately over bench/cases.tsv, with the peers in the same call.
#
# usage (on the GPU machine, from the repository root):
#   VARIANTS="B1 B2" sh bench/ab-templates.sh
# Before the call, on this machine, for each variant V (templates edited
# as V wants, fusegen built): sh bench/ab-gen.sh .carry/genV; then name
# .carry in the run tool's carry list, with the shared bench's peers.py,
# compare.py and cases.tsv in .carry/ (as for bench/run-gpu.sh).
# Environment: OUT (default ./gpu-out), VARIANTS (default B),
#   RUNS (alternations, default 2), BENCH_ONLY (case ids), CHECK_PLANS
#   (plans for a full gpu_check of each variant after its --small one;
#   default none), PEERS (1: peers.py in the same call, default 1),
#   PEERS_FLEX_ONLY (as run-gpu.sh).
# Writes OUT/ab.tgz (every table, JSON line, check log and the SASS of
# causal's first 176-key bf16 kernel per tree) and prints one table:
# TFLOP/s (GB/s for decode) per case, the trees side by side per run.
set -u
OUT=${OUT:-$PWD/gpu-out}
VARIANTS=${VARIANTS:-B}
RUNS=${RUNS:-2}
W=$OUT/ab
mkdir -p "$W"
./autogen.sh > "$W/autogen.txt" 2>&1
for V in $VARIANTS; do
  test -d ".carry/gen$V" || { echo "ab-templates: no .carry/gen$V (bench/ab-gen.sh .carry/gen$V)"; exit 2; }
  rm -rf "/tmp/src$V" && cp -a . "/tmp/src$V" && cp ".carry/gen$V"/*.cu "/tmp/src$V/generated/" &&
    touch "/tmp/src$V/generated/stamp"
  ( cd "/tmp/src$V" && mkdir -p b && cd b && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
    make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench tests/gpu_check >> build.log 2>&1
    echo "$V build rc $?" ) > "$W/build-$V.txt" 2>&1 &
done
# A is the committed generated/: with the variants' templates in the tree,
# make would regenerate it (templates newer than generated/stamp) while
# nvcc compiles it, and A would mix both (2026-11-27, call 1)
touch generated/stamp
RUN_LIMIT=400 STEPS=build OUT="$W" sh bench/run-gpu.sh > "$W/run-A.txt" 2>&1
make -C /tmp/fg-build -j16 tests/gpu_check > /dev/null 2>&1
wait
cat "$W"/build-*.txt
tree() { if test "$1" = A; then echo /tmp/fg-build; else echo "/tmp/src$1/b"; fi; }
K='fh_attn_fwd_kernelI13__nv_bfloat16NS_6fh_cfgILi128ELi176ELi2ELb0'
for V in A $VARIANTS; do
  o=`find "\`tree $V\`" -name 'causal_cuda*.o' | head -1`
  f=`cuobjdump -sass "$o" 2> /dev/null | sed -n "s/.*Function : \(.*$K.*\)/\1/p" | head -1`
  test -n "$f" && cuobjdump -sass -fun "$f" "$o" > "$W/sass-$V-causal.txt" 2>&1
done
only=
test -n "${BENCH_ONLY:-}" && only="--only $BENCH_ONLY"
r=1
while test $r -le $RUNS; do
  for V in A $VARIANTS; do
    "`tree $V`/bench/fusegen-bench" --cases bench/cases.tsv $only --out "$W/$V-$r.jsonl" 2> "$W/$V-$r.txt"
  done
  r=$((r + 1))
done
if test "${PEERS:-1}" = 1; then
  PEERS_ONLY=${BENCH_ONLY:-} RUN_LIMIT=200 STEPS=peers OUT="$W" sh bench/run-gpu.sh > "$W/run-peers.txt" 2>&1
  for V in A $VARIANTS; do
    python3 .carry/compare.py "$W/$V-1.jsonl" "$W/peers.jsonl" > "$W/compare-$V.txt" 2>&1
  done
fi
for V in $VARIANTS; do
  (cd "`tree $V`" && timeout 60 ./tests/gpu_check --small) > "$W/check-$V-small.txt" 2>&1
  echo "gpu_check --small $V rc $?: `grep -E 'passed, .* failed' "$W/check-$V-small.txt"`"
  if test -n "${CHECK_PLANS:-}"; then
    (cd "`tree $V`" && timeout 200 ./tests/gpu_check --plans "$CHECK_PLANS") > "$W/check-$V.txt" 2>&1
    echo "gpu_check $V ($CHECK_PLANS) rc $?: `grep -E 'passed, .* failed' "$W/check-$V.txt"`," \
      "`grep -c '^PASS' "$W/check-$V.txt"` PASS lines, `grep -c '^FAIL' "$W/check-$V.txt"` FAIL lines"
  fi
done
(cd "$OUT" && tar czf ab.tgz ab)
echo "== TFLOP/s (GB/s for decode), per run: A $VARIANTS"
for c in `awk '!/^#/ { print $1 }' bench/cases.tsv`; do
  line=`printf "%-16s" $c`
  r=1
  while test $r -le $RUNS; do
    for V in A $VARIANTS; do
      v=`awk -v c=$c '$1 == c { print ($0 ~ /-dc-/) ? $5 : $4 }' "$W/$V-$r.txt" 2> /dev/null`
      line="$line `printf "%7s" "${v:--}"`"
    done
    line="$line |"
    r=$((r + 1))
  done
  echo "$line"
done
