#!/bin/sh
# tune/merge-wisdom-test.sh - tune/merge-wisdom.sh on small files (no GPU):
# a row of the same bucket replaced in place (also where the plan's hash
# differs) under a comment line, a row of another dtype or head dim in the
# same bucket kept, a new bucket appended after the comment line, a note
# with a newline kept on one comment line, a file name with '=' in it; and
# refused with the target left as it was: a file of another device or
# templates, two rows of one bucket in NEW, a symbolic link, a file that
# cannot be written (when not run as root).
set -eu
srcdir=${srcdir:-.}
merge="$(cd "$srcdir" && pwd)/tune/merge-wisdom.sh"
d=$(mktemp -d "${TMPDIR:-/tmp}/fg-merge.XXXXXX")
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
header() {
  printf 'fusegen-wisdom 1\nfusegen 0.1.0\ntemplates %s\nnvcc 13.0\ndriver 13000\ndevice %s\ncc 9.0\nsms 132\nmemclock 3201000\ndate %s\n' "$1" "$2" "$3"
}
{ header aaaa 'NVIDIA H200' 2026-11-27T09:31Z
  echo 'row causal 1111 bf16 128 13 18 T128_128_2 0.9224 default 0.93 0.010'
  echo 'row causal 1111 bf16 128 15 19 default 6.2534 T128_128_2P 6.70 0.020'
  echo 'row causal 1111 fp16 128 13 18 T128_128_3 0.9500 default 0.96 0.010'
  echo 'row causal 1111 bf16 64 13 18 T64_128_2 0.6000 default 0.61 0.010'
  echo '# a comment that stays'
  echo 'row window 2222 bf16 128 13 18 T128_128_2P 3.2561 T128_128_2 3.29 0.006'
  echo 'row window 2222 bf16 128 15 19 default 8.0498 T128_128_2P 8.14 0.011'; } > "$d/file"
# NEW: causal (13, 18) retuned, window's two rows with another plan hash, a
# new bucket
{ header aaaa 'NVIDIA H200' 2026-11-30T00:57Z
  echo 'row causal 1111 bf16 128 13 18 T128_128_2P 0.8190 T128_128_3P 0.82 0.010'
  echo 'row window 3333 bf16 128 13 18 default 3.0785 T128_128_2 3.07 0.009'
  echo 'row window 3333 bf16 128 15 19 default 7.4437 T128_64_2 7.69 0.021'
  echo 'row causal 1111 bf16 128 10 20 T128_128_3P 0.7313 T128_128_2P 0.73 0.006'; } > "$d/new"
cp "$d/file" "$d/x=1.w"
MERGE_NOTE='a test
of a note' sh "$merge" "$d/new" "$d/file" || fail "merge of a matching file failed"
expect() {  # expect LINE TEXT: line LINE of the merged file starts with TEXT
  sed -n "$1p" "$d/file" | grep -q "^$2" || { cat "$d/file"; fail "line $1 is not '$2...'"; }
}
expect 11 '# 1 row below replaced from new (tuned 2026-11-30T00:57Z, tune/merge-wisdom.sh)$'
expect 12 'row causal 1111 bf16 128 13 18 T128_128_2P 0.8190 '
expect 13 'row causal 1111 bf16 128 15 19 default 6.2534 '
expect 14 'row causal 1111 fp16 128 13 18 T128_128_3 0.9500 '
expect 15 'row causal 1111 bf16 64 13 18 T64_128_2 0.6000 '
expect 16 '# a comment that stays$'
expect 17 '# 2 rows below replaced from new '
expect 18 'row window 3333 bf16 128 13 18 default 3.0785 '
expect 19 'row window 3333 bf16 128 15 19 default 7.4437 '
expect 20 '# 3 rows replaced in place and 1 appended from new (tuned 2026-11-30T00:57Z, tune/merge-wisdom.sh): a test of a note$'
expect 21 'row causal 1111 bf16 128 10 20 T128_128_3P '
[ "$(wc -l < "$d/file")" -eq 21 ] || { cat "$d/file"; fail "expected 21 lines"; }
# a name awk would otherwise read as an assignment
(cd "$d" && sh "$merge" new 'x=1.w') || fail "merge into 'x=1.w' failed"
grep -q '^device NVIDIA H200$' "$d/x=1.w" && grep -q '^row causal 1111 bf16 128 13 18 T128_128_2P ' "$d/x=1.w" ||
  { cat "$d/x=1.w"; fail "'x=1.w' lost its header or its row was not replaced"; }
[ "$(grep -c '^row ' "$d/x=1.w")" -eq 7 ] || fail "'x=1.w' should hold 7 rows"

# refusals, each leaving the target as it was and no temporary file
cp "$d/file" "$d/merged"
refused() {  # refused WHY PATTERN NEW [FILE]
  if sh "$merge" "$3" "${4:-$d/file}" 2> "$d/err"; then fail "$1: merged"; fi
  grep -q "$2" "$d/err" || { cat "$d/err"; fail "$1: the message does not say '$2'"; }
  cmp -s "$d/file" "$d/merged" || fail "$1: the target changed"
  ! ls -A "$d" | grep -q '\.merge\.' || fail "$1: a temporary file was left"
}
sed 's/^device .*/device NVIDIA H100 80GB HBM3/' "$d/new" > "$d/other-device"
refused "another device" "device 'NVIDIA H100 80GB HBM3', but .* has 'NVIDIA H200'" "$d/other-device"
sed 's/^templates .*/templates bbbb/' "$d/new" > "$d/other-templates"
refused "other templates" "templates 'bbbb', but .* has 'aaaa'" "$d/other-templates"
{ cat "$d/new"; echo 'row causal 1111 bf16 128 13 18 T128_128_3 0.8200 default 0.83 0.010'; } > "$d/twice"
refused "two rows of a bucket" "twice:15: a second row of bucket causal bf16 128 13 18" "$d/twice"
ln -s file "$d/link"
refused "a symbolic link" "a symbolic link" "$d/new" "$d/link"
if [ "$(id -u)" != 0 ]; then
  chmod a-w "$d/file"
  refused "a file that cannot be written" "not writable" "$d/new"
  chmod u+w "$d/file"
else
  echo "note: run as root, which may write any file: the unwritable target is not checked"
fi
echo "PASS: merge-wisdom"
