#!/bin/sh
# ad-hoc A/B timing of docmask variants (not part of the project): the
# working tree is built once (run-gpu.sh build), then generated/docmask_cuda.cu
# is edited, the library rebuilt and fusegen-bench run on docmask/relbias/causal.
B=/tmp/fg-build
SRC=$(pwd)
cp generated/docmask_cuda.cu /tmp/docmask.orig
cp generated/relbias_cuda.cu /tmp/relbias.orig
run() {
  make -C $B -j16 bench/fusegen-bench > $OUT/make-$1.log 2>&1 || { echo "$1: build failed"; tail -5 $OUT/make-$1.log; return; }
  $B/bench/fusegen-bench --cases bench/variants.tsv --reps 30 > $OUT/v-$1.txt 2>&1
  echo "== $1"; grep -E "^(causal|relbias|docmask)-" $OUT/v-$1.txt
}
run base
# partial docmask tiles run unmasked (wrong output): what the masked path costs
sed 's/if constexpr (plan_nspans > 0) cls = cls_early;/if constexpr (plan_nspans > 0) cls = cls_early == 1 ? 2 : cls_early;/' /tmp/docmask.orig > generated/docmask_cuda.cu
grep -c "cls_early == 1 ? 2" generated/docmask_cuda.cu
# relbias: its non-affine tiles take the affine path with the tile's first bias (wrong output)
python3 - <<'PY'
s=open('/tmp/relbias.orig').read()
s=s.replace("  if (!(true && lo12 == hi12))\n    return false;\n","")
open('generated/relbias_cuda.cu','w').write(s)
PY
grep -c "lo12 == hi12" generated/relbias_cuda.cu
run nomask
cp /tmp/relbias.orig generated/relbias_cuda.cu
# the narrowing scan twice: what one scan costs
python3 - <<'PY'
s=open('/tmp/docmask.orig').read()
old="  if constexpr (plan_nspans > 0) plan_span_narrow<C::NT>(m0, m1, h, p, &nbeg, &nend);  // the whole CTA\n"
assert old in s
s=s.replace(old,"  if constexpr (plan_nspans > 0) { int b2 = nbeg, e2 = nend; plan_span_narrow<C::NT>(m0, m1, h, p, &b2, &e2); __syncthreads(); nbeg += (b2 == -12345); }\n"+old)
open('generated/docmask_cuda.cu','w').write(s)
PY
run scan2
cp /tmp/docmask.orig generated/docmask_cuda.cu
