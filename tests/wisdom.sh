#!/bin/sh
# tests/wisdom.sh - fusegen with wisdom files (docs/tuning.md): a stale,
# foreign or malformed file is reported (FILE:LINE:COL for a fault in it)
# and generation falls back to the default rules, exit 0, the output the
# same as --wisdom=none's; the system wisdom of wisdom/ makes the tuned
# dispatch, named by its path in the source tree; --tuning and --wisdom
# exclude each other; a user file overrides the system file of its device
# for the plans it has rows for, and only those.
set -u
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
fg=$top_builddir/fusegen
tmp=${TMPDIR:-/tmp}/fg-wisdom.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
gen() { # gen OUTDIR ARGS... : the CUDA source of plan global
  out=$1; shift
  "$fg" --templates="$srcdir/templates" --target=cuda "$@" -o "$tmp/$out" "$srcdir/plans/global.fp" \
    > "$tmp/$out.err" 2>&1
}

gen none --wisdom=none || { cat "$tmp/none.err"; fail "--wisdom=none failed"; }
grep -q 'plan_tuned' "$tmp/none/global_cuda.cu" && fail "--wisdom=none has a tuned dispatch"

# the system wisdom (wisdom/*.wisdom of the source tree): rows for global
ls "$srcdir"/wisdom/*.wisdom > /dev/null 2>&1 || { echo "SKIP: no wisdom/*.wisdom"; exit 77; }
gen sys || { cat "$tmp/sys.err"; fail "generation with the system wisdom failed"; }
grep -q 'static int plan_tuned' "$tmp/sys/global_cuda.cu" || fail "no tuned dispatch from wisdom/"
grep -q '^// wisdom/nvidia-h200.wisdom: NVIDIA H200' "$tmp/sys/global_cuda.cu" ||
  fail "the tuned table does not name wisdom/nvidia-h200.wisdom"
grep -q "$srcdir/wisdom\|$(cd "$srcdir" && pwd)/wisdom" "$tmp/sys/global_cuda.cu" &&
  fail "the generated source names the wisdom by an absolute path"
test -s "$tmp/sys.err" && { cat "$tmp/sys.err"; fail "the system wisdom gave messages"; }

# stale: tuned on other templates
w=`ls "$srcdir"/wisdom/*.wisdom | head -1`
sed 's/^templates .*/templates 0000000000000000/' "$w" > "$tmp/stale.wisdom"
FUSEGEN_WISDOM= gen stale --wisdom="$tmp/stale.wisdom" || fail "a stale file stopped generation"
grep -q "stale.wisdom:[0-9]*:11: warning: tuned on other templates (hash 0000000000000000; these are [0-9a-f]*): stale" \
  "$tmp/stale.err" || { cat "$tmp/stale.err"; fail "no located stale warning"; }
grep -q "warning: wisdom file '$tmp/stale.wisdom' is not used" "$tmp/stale.err" || fail "no fallback warning"
# the stale file is not used, the system wisdom still is
cmp -s "$tmp/stale/global_cuda.cu" "$tmp/sys/global_cuda.cu" || fail "a stale file changed the output"

# what the hash covers: the hooks printed into the kernels (gpu/hooks.m4)
# make the wisdom stale; the row-reduction hooks (gpu/rows_hooks.m4), which
# no tuned kernel reads, do not
for part in gpu/hooks.m4:stale gpu/rows_hooks.m4:fresh; do
  f=${part%:*} want=${part#*:}
  rm -rf "$tmp/tpl" && cp -r "$srcdir/templates" "$tmp/tpl" && chmod -R u+w "$tmp/tpl" &&
    printf 'dnl a change\n' >> "$tmp/tpl/$f" || fail "cannot copy the templates"
  "$fg" --templates="$tmp/tpl" --target=cuda -o "$tmp/tpl-out" "$srcdir/plans/global.fp" \
    > "$tmp/tpl.err" 2>&1 || { cat "$tmp/tpl.err"; fail "generation with $f changed failed"; }
  if grep -q "tuned on other templates" "$tmp/tpl.err"; then got=stale; else got=fresh; fi
  [ "$got" = "$want" ] || { cat "$tmp/tpl.err"; fail "a change of $f leaves the wisdom $got, not $want"; }
done

# foreign: not a wisdom file at all, and a malformed row
printf 'device H200\nrow global x\n' > "$tmp/foreign.wisdom"
gen foreign --wisdom=none --wisdom="$tmp/foreign.wisdom" 2> /dev/null
gen foreign --wisdom="$tmp/foreign.wisdom" || fail "a foreign file stopped generation"
grep -q "foreign.wisdom:1:1: error: not a fusegen wisdom file: its first line must be 'fusegen-wisdom 1'" \
  "$tmp/foreign.err" || { cat "$tmp/foreign.err"; fail "no located error for a foreign file"; }
cmp -s "$tmp/foreign/global_cuda.cu" "$tmp/sys/global_cuda.cu" || fail "a foreign file changed the output"
{ sed -n '1,/^date/p' "$w"; echo 'row global 0123456789abcdef bf16 128 13 18 T128_176_2P 1 -'; } > "$tmp/bad.wisdom"
gen bad --wisdom="$tmp/bad.wisdom" || fail "a malformed file stopped generation"
grep -q "bad.wisdom:[0-9]*:1: error: a row has 11 fields" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "no located row error"; }

# a user file overrides the system file of the same device, plan by plan:
# for a plan it has rows for, it serves the plan and the system file's rows
# for that plan are reported unused
sed 's/T128_176_2P/T128_128_3/' "$w" > "$tmp/user.wisdom"
gen user --wisdom="$tmp/user.wisdom" || fail "a user file failed"
grep -q "warning: wisdom file 'wisdom/`basename "$w"`': its [0-9]* rows for plan 'global' are not used: '$tmp/user.wisdom' serves that plan on " \
  "$tmp/user.err" || { cat "$tmp/user.err"; fail "no override warning"; }
grep -q "^// $tmp/user.wisdom: " "$tmp/user/global_cuda.cu" || fail "the user file does not serve global"
grep -q "^// wisdom/`basename "$w"`: " "$tmp/user/global_cuda.cu" && fail "two files serve global on one device"
# for a plan it has no rows for, the system file still serves it: a user
# file of its own plan's rows (here another plan's, causal's) leaves global
# as with the system wisdom alone, without a message
{ sed -n '1,/^date/p' "$w"; grep '^row causal ' "$w"; } > "$tmp/other.wisdom"
grep -q '^row causal ' "$tmp/other.wisdom" || fail "no causal rows in $w"
gen other --wisdom="$tmp/other.wisdom" || fail "a user file of another plan failed"
cmp -s "$tmp/other/global_cuda.cu" "$tmp/sys/global_cuda.cu" ||
  fail "a user file without rows for global changed global's dispatch"
test -s "$tmp/other.err" && { cat "$tmp/other.err"; fail "a user file of another plan gave messages"; }

# --tuning and --wisdom
"$fg" --tuning --wisdom=none -o "$tmp/x" "$srcdir/plans/global.fp" 2> "$tmp/both.err" &&
  fail "--tuning with --wisdom was accepted"
grep -q "options '--tuning' and '--wisdom' cannot be used together" "$tmp/both.err" || fail "no conflict message"
echo "PASS: wisdom files in fusegen runs"
