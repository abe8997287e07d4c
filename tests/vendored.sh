#!/bin/sh
# vendored.sh - examples/vendored/, a project that copies generated/ and
# runtime/ files and builds them with a plain Makefile (no generator), is
# copied out of the tree, vendors the files of this tree, and is built with
# -Wall -Wextra -Werror and run, with gcc and with clang.  A missing
# compiler is reported; the test then skips (77) after the other's check,
# which still fails it.
srcdir=${srcdir:-.}
src=`cd "$srcdir" && pwd`
MAKE_PROG=${MAKE_PROG:-make}
# the vendoring project's own make: nothing of the make running the tests
unset MAKEFLAGS MFLAGS MAKELEVEL
tmp=`mktemp -d "${TMPDIR:-/tmp}/fg-vendored.XXXXXX"` || exit 1
trap 'rm -rf "$tmp"' 0 1 2 15
cp "$src/examples/vendored/Makefile" "$src/examples/vendored/main.c" "$tmp/" || exit 1
cd "$tmp" || exit 1
$MAKE_PROG -s vendor FUSEGEN="$src" || { echo "vendored: make vendor failed"; exit 1; }
missing=
fail=0
for cc in gcc clang; do
  if ! command -v $cc >/dev/null 2>&1; then
    echo "vendored: $cc is not installed: not built with it"
    missing="$missing $cc"
    continue
  fi
  $MAKE_PROG -s clean
  if $MAKE_PROG CC=$cc && ./app; then
    echo "vendored: built with $cc -Wall -Wextra -Werror, and ran"
  else
    echo "vendored: FAIL with $cc"
    fail=1
  fi
done
test $fail = 0 || exit 1
if test -n "$missing"; then
  echo "vendored: skipped: no$missing"
  exit 77
fi
exit 0
