#!/bin/sh
# tune/merge-wisdom-test.sh - tune/merge-wisdom.sh on small files (no GPU):
# a row of the same bucket replaced in place, a new bucket appended after
# the comment line, a file of another device or templates refused with the
# target left as it was.
set -eu
srcdir=${srcdir:-.}
merge="$srcdir/tune/merge-wisdom.sh"
d=$(mktemp -d "${TMPDIR:-/tmp}/fg-merge.XXXXXX")
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
head() {
  printf 'fusegen-wisdom 1\nfusegen 0.1.0\ntemplates %s\nnvcc 13.0\ndriver 13000\ndevice %s\ncc 9.0\nsms 132\nmemclock 3201000\ndate %s\n' "$1" "$2" "$3"
}
{ head aaaa 'NVIDIA H200' 2026-11-27T09:31Z
  echo 'row causal 1111 bf16 128 13 18 T128_128_2 0.9224 default 0.93 0.010'
  echo 'row causal 1111 bf16 128 15 19 default 6.2534 T128_128_2P 6.70 0.020'
  echo '# a comment that stays'
  echo 'row window 2222 bf16 128 13 18 T128_128_2P 3.2561 T128_128_2 3.29 0.006'; } > "$d/file"
{ head aaaa 'NVIDIA H200' 2026-11-30T00:57Z
  echo 'row causal 1111 bf16 128 13 18 T128_128_2P 0.8190 T128_128_3P 0.82 0.010'
  echo 'row causal 1111 bf16 128 10 20 T128_128_3P 0.7313 T128_128_2P 0.73 0.006'; } > "$d/new"
cp "$d/file" "$d/orig"
MERGE_NOTE='a test' sh "$merge" "$d/new" "$d/file" || fail "merge of a matching file failed"
sed -n 11p "$d/file" | grep -q '^row causal 1111 bf16 128 13 18 T128_128_2P 0.8190 ' ||
  { cat "$d/file"; fail "the row of bucket (13, 18) was not replaced in place"; }
grep -q '^row causal 1111 bf16 128 15 19 default 6.2534 ' "$d/file" || fail "a row NEW lacks was lost"
grep -q '^row window 2222 bf16 128 13 18 T128_128_2P 3.2561 ' "$d/file" || fail "another plan's row of the same bucket changed"
grep -q '^# a comment that stays$' "$d/file" || fail "a comment was lost"
[ "$(grep -c '^row ' "$d/file")" = 4 ] || { cat "$d/file"; fail "expected 4 rows"; }
tail -2 "$d/file" | sed 1q | grep -q '^# 1 rows replaced in place and 1 appended from new (tuned 2026-11-30T00:57Z, tune/merge-wisdom.sh): a test$' ||
  { cat "$d/file"; fail "no comment line before the appended row"; }
tail -1 "$d/file" | grep -q '^row causal 1111 bf16 128 10 20 T128_128_3P ' || fail "the new bucket was not appended last"
# refusals: another device, other templates; the target unchanged
cp "$d/file" "$d/merged"
sed 's/^device .*/device NVIDIA H100 80GB HBM3/' "$d/new" > "$d/other-device"
if sh "$merge" "$d/other-device" "$d/file" 2> "$d/err"; then fail "a file of another device was merged"; fi
grep -q "device 'NVIDIA H100 80GB HBM3', but .* has 'NVIDIA H200'" "$d/err" || { cat "$d/err"; fail "the refusal does not name the devices"; }
sed 's/^templates .*/templates bbbb/' "$d/new" > "$d/other-templates"
if sh "$merge" "$d/other-templates" "$d/file" 2> "$d/err"; then fail "a file of other templates was merged"; fi
grep -q "templates 'bbbb', but .* has 'aaaa'" "$d/err" || { cat "$d/err"; fail "the refusal does not name the hashes"; }
cmp -s "$d/file" "$d/merged" || fail "a refused merge changed the target"
ls "$d" | grep -q '^file\.merge\.' && fail "a temporary file was left beside the target"
echo "PASS: merge-wisdom"
