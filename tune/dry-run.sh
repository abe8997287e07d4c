#!/bin/sh
# tune/dry-run.sh - fusegen-tune --dry-run (no GPU): the candidates of the
# bundled plans' tune blocks and the buckets of the default sweep, counted
# against what the tune blocks and docs/tuning.md say.
set -eu
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
tune=$top_builddir/fusegen-tune
out=${TMPDIR:-/tmp}/fg-tune-dry.$$
trap 'rm -f "$out" "$out.sweep"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$tune" --dry-run --srcdir="$srcdir" --plans=global,gqa,gqa_decode >"$out" 2>&1 ||
  { cat "$out"; fail "fusegen-tune --dry-run failed"; }
# global: tile m {64, 128} x n {32, 64, 128, 176} x stages {2, 3} x pingpong
# {0, 1} for the head dims 64 and 128 of the sweep; 32 keys is not an sm_90a
# tile, 176 keys with 3 stages at D 128 is over the shared memory, and 64
# rows (two CTAs a SM: half the shared memory each) take no ping-pong:
# 128 rows 12 + 10, 64 rows 5 at D 64 (176 keys with 3 stages over half)
# and 1 at D 128 (64 keys, 2 stages) = 28
grep -q '^plan global (rolling form: sm_90a variants, hash [0-9a-f]*): 28 candidates, 15 buckets$' "$out" ||
  { cat "$out"; fail "global: expected 28 candidates and 15 buckets"; }
grep -q '^  candidate T128_176_2P$' "$out" || fail "global: no candidate T128_176_2P"
grep -q '^  candidate T128_176_3' "$out" && fail "global: T128_176_3 is over the shared memory"
grep -q '^  candidate T64_32' "$out" && fail "global: 32-key tiles are not sm_90a tiles"
grep -q '^  candidate T128_64_2M64$' "$out" || fail "global: no 64-row candidate T128_64_2M64"
grep -q '^  candidate T128_64_3M64$' "$out" && fail "global: T128_64_3M64 is over half the shared memory"
grep -q '^  candidate T[0-9_]*PM64$' "$out" && fail "global: a 64-row candidate with ping-pong"
# gqa: the same candidates; groups 1, 2, 4, 8 share buckets (the bucket is
# keys and batch x query heads x rows), so still 15 buckets of 4 shapes
grep -q '^plan gqa (rolling form: sm_90a variants, hash [0-9a-f]*): 28 candidates, 15 buckets$' "$out" ||
  fail "gqa: expected 28 candidates and 15 buckets"
grep -q '^  bucket gqa bf16 128 15 19: 4 shapes x 12 configurations$' "$out" ||
  fail "gqa: bucket (15, 19) should hold the four groups, with the default and its 11 D 128 candidates"
# gqa_decode: its split counts are launch arguments
grep -q '^plan gqa_decode (split form: split counts, hash [0-9a-f]*): 7 candidates, ' "$out" ||
  fail "gqa_decode: expected the 7 split counts of its tune block"
grep -q '^  candidate splits=64 (a launch argument)$' "$out" || fail "gqa_decode: no splits=64"
# a bad sweep: a located error
printf 'dims 64\ndtypes bf16\nprefill 1 0\n' >"$out.sweep"
if "$tune" --dry-run --srcdir="$srcdir" --plans=global --sweep="$out.sweep" >"$out" 2>&1; then
  fail "a sweep with length 0 was accepted"
fi
grep -q "$out.sweep:3: error: bad length '0'" "$out" || { cat "$out"; fail "no located sweep error"; }
echo "PASS: fusegen-tune --dry-run"
