#!/bin/sh
# freshness.sh - regenerate every bundled plan with the built ./fusegen and
# the source templates into a temporary folder, and fail on any difference
# from the committed $srcdir/generated.  Skips (77) without ./fusegen.
srcdir=${srcdir:-.}
builddir=${top_builddir:-.}
prog="$builddir/fusegen"
if test ! -x "$prog"; then
  echo "freshness: $prog is not built: skipped"
  exit 77
fi
prog=`cd "$builddir" && pwd`/fusegen
tmp=`mktemp -d "${TMPDIR:-/tmp}/fg-fresh.XXXXXX"` || exit 1
trap 'rm -rf "$tmp"' 0 1 2 15
# From the source tree, so that the recorded command has its relative paths.
(cd "$srcdir" && "$prog" --templates=templates --m4="${M4:-m4}" -o "$tmp" plans/*.fp) || {
  echo "freshness: fusegen failed"
  exit 1
}
if diff -r -x local.mk -x stamp -x "*.o" -x .deps -x .dirstamp "$srcdir/generated" "$tmp"; then
  echo "freshness: generated/ is up to date"
  exit 0
fi
echo "freshness: generated/ differs from what the plans and templates give:"
echo "  regenerate with: fusegen --templates=templates -o generated plans/*.fp"
exit 1
