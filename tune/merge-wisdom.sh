#!/bin/sh
# tune/merge-wisdom.sh NEW FILE - put the rows of a partial retune into a
# wisdom file.
#
# fusegen-tune skips the buckets already in the file it appends to (that is
# how a stopped run resumes), so retuning some plans or buckets of a file
# (--plans, --only, --sweep) means tuning into a file of its own, NEW, and
# then merging it here: each row of NEW replaces FILE's row of the same
# plan, dtype, head dim and bucket where there is one, in place, under a
# comment line that says so (the comments above it may describe the row it
# replaced), and the others are appended after a comment line.  A last
# comment line says how many rows came from which file and when NEW was
# tuned, with MERGE_NOTE='...' added where it is set.  NEW and FILE must
# name the same device and the same templates hash (a file of other
# templates is stale: tune/carry-wisdom.sh or a full retune first), and NEW
# may not hold two rows of one bucket.  FILE is rewritten through a copy
# beside it (its mode kept) and renamed, so that a failure leaves it as it
# was; a FILE that is a symbolic link or not writable is refused.  Needs
# awk; no GPU.
set -eu
me=merge-wisdom
usage="usage: tune/merge-wisdom.sh NEW FILE"
[ $# -eq 2 ] || { echo "$me: $usage" >&2; exit 2; }
# operands for sed, grep and awk: a name with '=' or a leading '-' is a file
# there only with a directory in front of it
case $1 in /*) new=$1 ;; *) new=./$1 ;; esac
case $2 in /*) file=$2 ;; *) file=./$2 ;; esac
for f in "$new" "$file"; do
  [ -f "$f" ] && [ -r "$f" ] || { echo "$me: $f: not a readable file" >&2; exit 1; }
done
[ ! -L "$file" ] || { echo "$me: $file: a symbolic link: name the file it points to" >&2; exit 1; }
[ -w "$file" ] || { echo "$me: $file: not writable" >&2; exit 1; }
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

tmp="$(dirname "$file")/.$(basename "$file").merge.$$"
trap 'rm -f "$tmp"' EXIT
trap 'exit 1' INT TERM
cp -p "$file" "$tmp"
# Strings through the environment (awk's -v would read escapes in them);
# FILE is read twice: first to find the runs of rows NEW replaces.  A row's
# key: plan (2), dtype (4), head dim (5), keys (6), work (7); the plan's
# hash (3) may differ (a plan changed since FILE was tuned).
FG_MW_NEW=$(basename "$new") FG_MW_WHEN=$(field date "$new") FG_MW_NOTE=${MERGE_NOTE:-} awk '
  function key() { return $2 " " $4 " " $5 " " $6 " " $7 }
  BEGIN {
    newname = ENVIRON["FG_MW_NEW"]; when = ENVIRON["FG_MW_WHEN"]; note = ENVIRON["FG_MW_NOTE"]
    if (when == "") when = "at a date it does not give"
    gsub(/[\r\n]+/, " ", note)
    from = "from " newname " (tuned " when ", tune/merge-wisdom.sh)"
    replaced = 0
  }
  FNR == 1 { pass++ }
  pass == 1 {
    if ($1 == "row") {
      k = key()
      if (k in row) {
        printf "merge-wisdom: %s:%d: a second row of bucket %s\n", newname, FNR, k > "/dev/stderr"
        bad = 1; exit 2
      }
      order[n++] = k; row[k] = $0
    }
    next
  }
  pass == 2 {  # the length of each run of rows that NEW replaces, by its first line
    if ($1 == "row" && (key() in row)) { if (!inrun) { start = FNR; inrun = 1 } runlen[start]++ }
    else inrun = 0
    next
  }
  FNR in runlen { print "# " runlen[FNR] " row" (runlen[FNR] > 1 ? "s" : "") " below replaced " from }
  $1 == "row" && (key() in row) { k = key(); print row[k]; done[k] = 1; replaced++; next }
  { print }
  END {
    if (bad) exit 2
    added = 0
    for (i = 0; i < n; i++) if (!(order[i] in done)) added++
    line = "# " replaced " rows replaced in place and " added " appended " from
    if (note != "") line = line ": " note
    print line
    for (i = 0; i < n; i++) if (!(order[i] in done)) print row[order[i]]
  }' "$new" "$file" "$file" > "$tmp"
# the header came through
[ "$(field device "$tmp")" = "$(field device "$file")" ] &&
  [ "$(field templates "$tmp")" = "$(field templates "$file")" ] ||
  { echo "$me: the merged file lost its header; $file left as it was" >&2; exit 1; }
mv -f "$tmp" "$file"
