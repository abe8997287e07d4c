#!/bin/sh
# bench/ab-sed.sh - an A/B of one change to the generated kernels, in the
# same device call as bench/run-gpu.sh: copies the tree, applies a sed
# expression to generated/*_cuda.cu, builds that copy (configure
# --with-cuda-arch=90a) and runs fusegen-bench over bench/cases.tsv.
#
# usage (on the GPU machine, from the repository root, after run-gpu.sh):
#   sh bench/ab-sed.sh NAME 'SED-EXPRESSION'
# writes $OUT/bench-NAME.txt and $OUT/fusegen-NAME.jsonl; BENCH_ONLY as in
# run-gpu.sh.  AB_CHECK=1 also runs that build's tests/gpu_check (its
# output to $OUT/check-NAME.txt) before timing it.
# Example (the Hopper variants with ping-pong, without it):
#   sh bench/ab-sed.sh nopp 's/fh_cfg<\([0-9]*\), \([0-9]*\), \([0-9]*\), true>/fh_cfg<\1, \2, \3, false>/'
name=$1
expr=$2
test -n "$name" && test -n "$expr" || { echo "usage: $0 NAME SED-EXPRESSION"; exit 2; }
OUT=${OUT:-$PWD/gpu-out}
src=/tmp/fg-ab-$name
rm -rf "$src" && mkdir -p "$src" && cp -a . "$src/" || exit 1
sed -i "$expr" "$src"/generated/*_cuda.cu || exit 1
# an expression that matched nothing would time the same build twice
if diff -rq generated "$src/generated" > /dev/null; then
  echo "ab-sed.sh: '$expr' changed no generated source"; exit 1
fi
(cd "$src" && mkdir -p build && cd build && ../configure --with-cuda-arch=90a --disable-werror > /dev/null &&
  make -j16 > build.log 2>&1 && make -j16 bench/fusegen-bench >> build.log 2>&1) || {
  echo "ab-sed.sh: the $name build failed"; tail -20 "$src/build/build.log"; exit 1; }
if test "${AB_CHECK:-0}" = 1; then
  (cd "$src/build" && make -j16 tests/gpu_check > /dev/null 2>&1 && ./tests/gpu_check) > "$OUT/check-$name.txt" 2>&1
  echo "ab-sed.sh: $name gpu_check exit $?: `grep -E 'passed, .* failed' "$OUT/check-$name.txt"`"
fi
only=
test -n "${BENCH_ONLY:-}" && only="--only $BENCH_ONLY"
"$src/build/bench/fusegen-bench" --cases bench/cases.tsv $only --out "$OUT/fusegen-$name.jsonl" \
  2> "$OUT/bench-$name.txt"
rc=$?
cat "$OUT/bench-$name.txt"
exit $rc
