#!/bin/sh
# bench/dry-run-check.sh - `make check` for fusegen-bench without a GPU: its
# --dry-run output (case -> plan, params, FLOPs, K+V bytes) on the shipped
# bench/cases.tsv and on bench/dry-run-cases.tsv, against values this script
# computes on its own with awk (visible pairs as the shared peers.py counts
# them); the rows no plan matches, with their notes; --only; a located
# error for a malformed cases file; --seconds's values.
srcdir=${srcdir-.}
bench=./bench/fusegen-bench
test -x "$bench" || { echo "dry-run-check: $bench is not built"; exit 99; }

tmp=${TMPDIR:-/tmp}/fg-bench-dry.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

# The expected line of every valid row: id plan flops kv_bytes|params
expected() {
  awk -F'\t' '
    /^#/ || NF < 12 { next }
    {
      id = $1; v = $2; b = $3; hq = $4; hkv = $5; sq = $6; sk = $7; d = $8
      causal = $9; w = $10; cap = $11; alibi = $12
      plan = v; if (id ~ /-dc-/) plan = v "_decode"
      ok = (v == "global" || v == "causal" || v == "gqa" || v == "alibi" || v == "softcap" || v == "window")
      ok = ok && (causal == (v != "global")) && ((w > 0) == (v == "window"))
      ok = ok && ((cap > 0) == (v == "softcap" || v == "window")) && ((alibi > 0) == (v == "alibi"))
      grouped = (v == "gqa" || v == "softcap" || v == "window")
      ok = ok && (hq == hkv || grouped) && !(id ~ /-dc-/ && v == "window")
      if (!ok) next
      pairs = 0
      for (i = 0; i < sq; i++) {
        pos = i + sk - sq
        hi = sk - 1; if (causal && pos < hi) hi = pos
        lo = 0; if (w > 0 && pos - w + 1 > 0) lo = pos - w + 1
        if (hi >= lo) pairs += hi - lo + 1
      }
      params = sprintf("scale=%.9g", 1 / sqrt(d))
      if (w > 0) params = params sprintf(" W=%d", w)
      if (cap > 0) params = params sprintf(" cap=%.9g", cap)
      if (grouped) params = params sprintf(" G=%d", hq / hkv)
      printf "%s %s %.0f %.0f|%s\n", id, plan, 4 * d * b * hq * pairs, 2 * b * hkv * sk * d * 2, params
    }' "$1"
}

# The same fields out of the program's JSON lines (rows with a plan).
got() {
  sed -n 's/^{"case": "\([^"]*\)", "plan": "\([^"]*\)", "flops": \([0-9]*\), "kv_bytes": \([0-9]*\), "params": "\([^"]*\)", "note": ""}$/\1 \2 \3 \4|\5/p' "$1"
}

for cases in "$srcdir/bench/cases.tsv" "$srcdir/bench/dry-run-cases.tsv"; do
  name=`basename "$cases"`
  if ! "$bench" --dry-run --cases "$cases" --out "$tmp/$name.out"; then
    echo "FAIL: fusegen-bench --dry-run --cases $cases exited non-zero"; fail=1; continue
  fi
  expected "$cases" > "$tmp/$name.exp"
  got "$tmp/$name.out" > "$tmp/$name.got"
  rows=`grep -c '^[^#]' "$cases"`
  lines=`wc -l < "$tmp/$name.out"`
  if test "$rows" -ne "$lines"; then
    echo "FAIL: $name: $rows cases, $lines output lines"; fail=1
  fi
  if test ! -s "$tmp/$name.exp" || ! diff "$tmp/$name.exp" "$tmp/$name.got"; then
    echo "FAIL: $name: plans, FLOPs, bytes or params differ (expected <, got >)"; fail=1
  else
    echo "ok: $name: `wc -l < "$tmp/$name.exp"` cases mapped, FLOPs and bytes as recomputed"
  fi
done

# Every row of bench/cases.tsv has a plan.
if grep -v '"note": ""' "$tmp/cases.tsv.out"; then
  echo "FAIL: a shipped case has no plan (above)"; fail=1
fi

# The rows of dry-run-cases.tsv that no plan matches, with their notes.
cat > "$tmp/notes.exp" <<'EOF'
global-gqa|no plan matches: hq != hkv, plan does not group heads (global)
causal-window|no plan matches: row has a window, plan has no param W (causal)
softcap-nocap|no plan matches: plan soft-caps, row does not (softcap)
global-causal|no plan matches: causal row, plan without a mask (global)
gqa-full|no plan matches: non-causal row, causal plan (gqa)
alibi-off|no plan matches: plan adds ALiBi, row does not (alibi)
window-dc-1k|no plan window_decode
rope-pf-1k|no plan rope
EOF
sed -n 's/^{"case": "\([^"]*\)", "plan": "", .*"note": "\([^"]*\)"}$/\1|\2/p' \
  "$tmp/dry-run-cases.tsv.out" > "$tmp/notes.got"
if diff "$tmp/notes.exp" "$tmp/notes.got"; then
  echo "ok: 8 rows without a plan, each with its reason"
else
  echo "FAIL: rows without a plan (expected <, got >)"; fail=1
fi

# --only keeps the named cases, in file order.
"$bench" --dry-run --cases "$srcdir/bench/cases.tsv" --only gqa-dc-32k,causal-pf-2k > "$tmp/only.out"
if test "`sed 's/^{"case": "\([^"]*\)".*/\1/' "$tmp/only.out" | tr '\n' ' '`" = "causal-pf-2k gqa-dc-32k "; then
  echo "ok: --only"
else
  echo "FAIL: --only gqa-dc-32k,causal-pf-2k gave:"; cat "$tmp/only.out"; fail=1
fi

# A malformed row: exit 2, the file and line named.
printf '# id\tvariant\tb\thq\thkv\tsq\tsk\td\tcausal\twindow\tsoftcap\talibi\nx\tcausal\t1\t2\tz\t8\t8\t64\t1\t0\t0\t0\n' > "$tmp/bad.tsv"
"$bench" --dry-run --cases "$tmp/bad.tsv" > /dev/null 2> "$tmp/bad.err"
rc=$?
if test $rc -eq 2 && grep -q "^$tmp/bad.tsv:2: error: hkv = 'z' is not a valid value$" "$tmp/bad.err"; then
  echo "ok: a malformed row is a located error"
else
  echo "FAIL: malformed row: exit $rc, stderr:"; cat "$tmp/bad.err"; fail=1
fi

# --seconds (steady state): a number of seconds is taken, anything else is a
# usage error that names the option
"$bench" --dry-run --seconds 2.5 --cases "$srcdir/bench/cases.tsv" --only causal-pf-2k > "$tmp/sec.out" ||
  { echo "FAIL: --seconds 2.5 refused"; fail=1; }
for bad in x -1 1e9 2s; do
  "$bench" --dry-run --seconds "$bad" --cases "$srcdir/bench/cases.tsv" > /dev/null 2> "$tmp/sec.err"
  rc=$?
  if test $rc -ne 2 || ! grep -q -- '--seconds must be a number of seconds' "$tmp/sec.err"; then
    echo "FAIL: --seconds $bad: exit $rc, stderr:"; cat "$tmp/sec.err"; fail=1
  fi
done
test $fail = 0 && echo "ok: --seconds takes seconds and refuses the rest"

exit $fail
