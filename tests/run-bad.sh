#!/bin/sh
# run-bad.sh - golden diagnostics.  For every tests/bad/NAME.fp, run
# `fusegen --check NAME.fp` inside tests/bad (so messages name the file
# alone); it must exit with status 1, print nothing on stdout, and print
# exactly tests/bad/NAME.err on stderr.  Syntax errors (syn-*), the
# checker's (sem-*) and fusion's (fuse-*) all go through here.
#
# Environment: srcdir and top_builddir (set by `make check`), FUSEGEN (the
# program, default $top_builddir/fusegen), FG_UPDATE_GOLDEN=1 to rewrite
# the .err files from the current output.

srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
fusegen=${FUSEGEN:-$top_builddir/fusegen}
case $fusegen in
/*) ;;
*) fusegen=$(pwd)/$fusegen ;;
esac
if test ! -x "$fusegen"; then
    echo "run-bad.sh: $fusegen is not built: skipped"
    exit 77
fi

bad=$srcdir/tests/bad
tmp=$(mktemp -d "${TMPDIR:-/tmp}/run-bad.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

total=0
failed=0
for fp in "$bad"/*.fp; do
    test -f "$fp" || continue
    name=$(basename "$fp" .fp)
    total=$((total + 1))
    (cd "$bad" && "$fusegen" --check "$name.fp") >"$tmp/out" 2>"$tmp/err"
    status=$?
    if test "${FG_UPDATE_GOLDEN-}" = 1; then
        cp "$tmp/err" "$bad/$name.err"
    fi
    problem=
    if test ! -f "$bad/$name.err"; then
        problem="no $name.err beside $name.fp"
    elif test "$status" -ne 1; then
        problem="exit status $status, expected 1"
    elif test -s "$tmp/out"; then
        problem="unexpected output on stdout"
    elif ! cmp -s "$tmp/err" "$bad/$name.err"; then
        problem="stderr differs from $name.err"
    fi
    if test -n "$problem"; then
        failed=$((failed + 1))
        echo "FAIL: $name: $problem"
        if test -f "$bad/$name.err"; then
            diff -u "$bad/$name.err" "$tmp/err" | sed 's/^/    /'
        fi
        sed 's/^/    stdout: /' "$tmp/out"
    else
        echo "PASS: $name"
    fi
done

if test "$total" -eq 0; then
    echo "run-bad.sh: no plans in $bad"
    exit 1
fi
echo "run-bad.sh: $total plans, $failed failed"
test "$failed" -eq 0
