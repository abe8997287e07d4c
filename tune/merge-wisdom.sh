#!/bin/sh
# tune/merge-wisdom.sh NEW FILE - put the rows of a partial retune into a
# wisdom file.
#
# fusegen-tune skips the buckets already in the file it appends to (that is
# how a stopped run resumes), so retuning some plans or buckets of a file
# (--plans, --only, --sweep) means tuning into a file of its own, NEW, and
# then merging it here: each row of NEW replaces FILE's row of the same
# plan, dtype, head dim and bucket where there is one, in place, and the
# others are appended after a comment line.  A comment line before them (or
# at the end, where every row was replaced) says how many rows came from
# which file and when NEW was tuned, with MERGE_NOTE='...' added where it
# is set.  NEW and FILE must name the same device and the same templates
# hash (a file of other templates is stale: tune/carry-wisdom.sh or a full
# retune first).  FILE is rewritten through a temporary file beside it and
# renamed, so that a failure leaves it as it was.  Needs awk; no GPU.
set -eu
me=merge-wisdom
new=${1:?usage: tune/merge-wisdom.sh NEW FILE}
file=${2:?usage: tune/merge-wisdom.sh NEW FILE}
for f in "$new" "$file"; do
  [ -r "$f" ] || { echo "$me: $f: cannot read it" >&2; exit 1; }
done
# a header field's value (the rest of its line), or nothing
field() { sed -n "s/^$1 //p" "$2" | sed 1q; }
for k in device templates; do
  a=$(field "$k" "$new")
  b=$(field "$k" "$file")
  [ -n "$a" ] || { echo "$me: $new: no '$k' line: not a wisdom file" >&2; exit 1; }
  [ "$a" = "$b" ] ||
    { echo "$me: $new: $k '$a', but $file has '$b': rows of one cannot go into the other" >&2; exit 1; }
done
grep -q '^row ' "$new" || { echo "$me: $new: no rows" >&2; exit 1; }

tmp="$file.merge.$$"
trap 'rm -f "$tmp"' EXIT INT TERM
# A row's key: plan (2), dtype (4), head dim (5), keys (6), work (7); the
# plan's hash (3) may differ (a plan changed since FILE was tuned)
awk -v newname="$(basename "$new")" -v when="$(field date "$new")" -v note="${MERGE_NOTE:-}" '
  BEGIN { replaced = 0 }
  FNR == NR {
    if ($1 == "row") { k = $2 " " $4 " " $5 " " $6 " " $7; if (!(k in row)) order[n++] = k; row[k] = $0 }
    next
  }
  $1 == "row" {
    k = $2 " " $4 " " $5 " " $6 " " $7
    if (k in row) { print row[k]; done[k] = 1; replaced++; next }
  }
  { print }
  END {
    added = 0
    for (i = 0; i < n; i++) if (!(order[i] in done)) added++
    line = "# " replaced " rows replaced in place and " added " appended from " newname " (tuned " when ", tune/merge-wisdom.sh)"
    if (note != "") line = line ": " note
    print line
    for (i = 0; i < n; i++) if (!(order[i] in done)) print row[order[i]]
  }' "$new" "$file" > "$tmp"
mv "$tmp" "$file"
trap - EXIT INT TERM
