#!/bin/sh
# generated-warnings.sh - the generated C compiles cleanly under
# -Wall -Wextra -Werror with clang and with gcc (vendored builds use -Werror,
# and clang warns where gcc does not: an unused static inline function of
# the main file, -Wunused-function).  Every generated/*_cpu.c and the
# registry, with each compiler that is installed; skips (77) without clang,
# the stricter one (after gcc's check, which still fails the test).
srcdir=${srcdir:-.}
gen="$srcdir/generated"
tmp=`mktemp -d "${TMPDIR:-/tmp}/fg-warn.XXXXXX"` || exit 1
trap 'rm -rf "$tmp"' 0 1 2 15
noclang=0
fail=0
for cc in clang gcc; do
  if ! command -v "$cc" >/dev/null 2>&1; then
    echo "generated-warnings: $cc is not installed: not checked with it"
    test $cc = clang && noclang=1
    continue
  fi
  for f in "$gen"/*_cpu.c "$gen"/fusegen_plans.c; do
    test -f "$f" || continue
    if ! "$cc" -Wall -Wextra -Werror -std=c11 -I "$gen" -I "$srcdir/runtime" \
         -c "$f" -o "$tmp/x.o"; then
      echo "generated-warnings: $cc -Wall -Wextra -Werror fails on $f"
      fail=1
    fi
  done
done
test $fail = 0 || exit 1
if test $noclang = 1; then
  echo "generated-warnings: clang is not installed: skipped"
  exit 77
fi
echo "generated-warnings: the generated C compiles without a warning"
exit 0
