#!/bin/sh
# plot-check.sh - bench/plot on a small made-up run: it writes an SVG that
# names every case and every implementation, in the panel of its kind, and
# leaves out the bar of a peer with no number.  Skips (77) without gnuplot.
srcdir=${srcdir:-.}
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plot-check: gnuplot is not installed (Debian: gnuplot-nox): skipped"
  exit 77
fi
tmp=`mktemp -d "${TMPDIR:-/tmp}/fg-plot-check.XXXXXX"` || exit 1
trap 'rm -rf "$tmp"' 0 1 2 15
mkdir "$tmp/run"
cat > "$tmp/run/fusegen.jsonl" <<'EOJ'
{"device": "Test GPU", "fusegen": "0.1.0"}
{"case": "causal-pf-8k", "peer": "fusegen", "ms": 1.0, "tflops": 300.5, "kv_gbs": 40.0, "note": "", "plan": "causal"}
{"case": "alibi-pf-8k", "peer": "fusegen", "ms": 1.0, "tflops": 250.0, "kv_gbs": 40.0, "note": "", "plan": "alibi"}
{"case": "gqa-dc-8k", "peer": "fusegen", "ms": 0.1, "tflops": 3.0, "kv_gbs": 3800.0, "note": "", "plan": "gqa_decode"}
EOJ
cat > "$tmp/run/peers.jsonl" <<'EOJ'
{"device": "Test GPU", "torch": "0"}
{"case": "causal-pf-8k", "peer": "sdpa-flash", "ms": 1.0, "tflops": 350.0, "kv_gbs": 45.0, "note": ""}
{"case": "alibi-pf-8k", "peer": "sdpa-flash", "ms": null, "tflops": null, "kv_gbs": null, "note": "variant not expressible"}
{"case": "gqa-dc-8k", "peer": "sdpa-flash", "ms": 0.2, "tflops": 2.0, "kv_gbs": 3600.0, "note": ""}
EOJ
sh "$srcdir/bench/plot" "$tmp/run" "$tmp/out.svg" || { echo "plot-check: bench/plot failed"; exit 1; }
fail=0
grep -q '^<svg' "$tmp/out.svg" && grep -q '</svg>' "$tmp/out.svg" ||
  { echo "plot-check: not an SVG"; fail=1; }
for w in causal-pf-8k alibi-pf-8k gqa-dc-8k fusegen sdpa-flash "Test GPU" TFLOP/s "KV GB/s"; do
  grep -q "$w" "$tmp/out.svg" || { echo "plot-check: '$w' is not in the chart"; fail=1; }
done
# The bars as drawn: gnuplot's SVG polygons, less the key's samples (a few
# pixels tall), grouped by panel (their common bottom edge) and read left
# to right.  Their heights must stand as the numbers do (the y axes start
# at 0): prefill 300.5 (fusegen) and 350 (sdpa-flash) for causal, then 250
# for alibi alone (its peer has no number: no bar); decode 3800 and 3600.
awk '
  /<polygon/ {
    if (!match($0, /points = \x27[^\x27]*\x27/)) next
    pts = substr($0, RSTART + 10, RLENGTH - 11)
    n = split(pts, xy, /[ ,]+/)
    x0 = 1e9; y0 = 1e9; y1 = -1e9
    for (i = 1; i + 1 <= n; i += 2) {
      if (xy[i] == "") { i--; continue }
      if (xy[i] + 0 < x0) x0 = xy[i] + 0
      if (xy[i + 1] + 0 < y0) y0 = xy[i + 1] + 0
      if (xy[i + 1] + 0 > y1) y1 = xy[i + 1] + 0
    }
    if (y1 - y0 > 20) printf "%.2f %.2f %.2f\n", y1, x0, y1 - y0
  }' "$tmp/out.svg" | sort -k1,1n -k2,2n > "$tmp/bars"
awk '
  { if ($1 != base) { panel++; base = $1; k = 0 } h[panel, ++k] = $3; count[panel] = k }
  function near(a, b) { return a / b > 0.995 && a / b < 1.005 }
  END {
    bad = 0
    if (panel != 2 || count[1] != 3 || count[2] != 2) {
      printf "plot-check: %d panels, bars %d and %d (want 2 panels, 3 and 2)\n", panel, count[1], count[2]
      exit 1
    }
    if (!near(h[1, 1] / h[1, 2], 300.5 / 350)) { print "plot-check: causal bars not as 300.5 to 350"; bad = 1 }
    if (!near(h[1, 3] / h[1, 1], 250 / 300.5)) { print "plot-check: alibi bar not as 250 to 300.5"; bad = 1 }
    if (!near(h[2, 1] / h[2, 2], 3800 / 3600)) { print "plot-check: decode bars not as 3800 to 3600"; bad = 1 }
    exit bad
  }' "$tmp/bars" || { cat "$tmp/bars"; fail=1; }
test $fail = 0 && echo "plot-check: every case and implementation named, the bars as tall as the numbers"
exit $fail
