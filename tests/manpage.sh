#!/bin/sh
# manpage.sh - docs/fusegen.1 documents exactly the options of
# `fusegen --help` (each option with its argument, as the help writes it:
# "-o DIR", "--target=LIST", "--check"), no more and no fewer, and names
# the version `fusegen --version` prints.
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
fusegen=$top_builddir/fusegen
man=$srcdir/docs/fusegen.1
if test ! -x "$fusegen"; then
  echo "manpage: $fusegen is not built: skipped"
  exit 77
fi
tmp=`mktemp -d "${TMPDIR:-/tmp}/fg-man.XXXXXX"` || exit 1
trap 'rm -rf "$tmp"' 0 1 2 15

# the help's option lines: two spaces, the option and its argument, then
# two or more spaces and the description
"$fusegen" --help > "$tmp/help" || exit 1
sed -n 's/^  \(-[^ ]*\( [A-Z][A-Z]*\)\{0,1\}\)  .*/\1/p' "$tmp/help" | sort > "$tmp/help.opts"

# the man page's: the tag line after each .TP of the OPTIONS section, with
# .B/.BI/.IR set as they print (arguments joined, quotes and \- resolved)
awk '
  /^\.SH/ { in_opts = ($2 == "OPTIONS"); next }
  !in_opts { next }
  /^\.TP/ { tag = 1; next }
  tag {
    tag = 0
    line = $0
    macro = line; sub(/ .*/, "", macro)
    sub(/^\.[A-Z]+ /, "", line)
    out = ""
    while (length(line) > 0) {
      if (substr(line, 1, 1) == "\"") {
        line = substr(line, 2); i = index(line, "\"")
        arg = substr(line, 1, i - 1); line = substr(line, i + 1)
      } else {
        i = index(line, " ")
        if (i == 0) { arg = line; line = "" } else { arg = substr(line, 1, i - 1); line = substr(line, i) }
      }
      sub(/^ +/, "", line)
      out = out arg
      if (macro == ".B") out = out " "
    }
    gsub(/\\-/, "-", out); gsub(/\\f[BIRP]/, "", out); sub(/ +$/, "", out)
    print out
  }
' "$man" | sort > "$tmp/man.opts"

fail=0
if ! cmp -s "$tmp/help.opts" "$tmp/man.opts"; then
  echo "manpage: the options of fusegen --help (<) and of $man (>) differ:"
  diff "$tmp/help.opts" "$tmp/man.opts"
  fail=1
fi
n=`wc -l < "$tmp/help.opts"`
test "$n" -ge 8 || { echo "manpage: only $n options read from --help"; fail=1; }
version=`"$fusegen" --version | sed -n '1s/.* //p'`
grep -q "^\.TH FUSEGEN 1 .*\"fusegen $version\"" "$man" ||
  { echo "manpage: $man does not name fusegen $version in .TH"; fail=1; }
test $fail = 0 && echo "manpage: the $n options of --help, and version $version:" `cat "$tmp/help.opts"`
exit $fail
