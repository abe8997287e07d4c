#!/bin/sh
# cuda-refuse.sh - golden diagnostics of the CUDA backend.  For every
# tests/cuda-bad/NAME.fp (plans the tensor-core attention kernels cannot
# express), run inside tests/cuda-bad:
#   fusegen --target=cuda NAME.fp  -> exit 1, nothing on stdout, exactly
#                                     NAME.err on stderr, no files written;
#   fusegen NAME.fp                -> exit 0 (cuda came from the plan's
#                                     targets), exactly NAME.warn on stderr,
#                                     no NAME_cuda.cu written.
# Environment: srcdir and top_builddir (set by `make check`), FUSEGEN,
# FG_UPDATE_GOLDEN=1 to rewrite the goldens from the current output.
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
fusegen=${FUSEGEN:-$top_builddir/fusegen}
case $fusegen in
/*) ;;
*) fusegen=$(pwd)/$fusegen ;;
esac
if test ! -x "$fusegen"; then
    echo "cuda-refuse.sh: $fusegen is not built: skipped"
    exit 77
fi
templates=$(cd "$srcdir/templates" && pwd)
bad=$srcdir/tests/cuda-bad
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cuda-refuse.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

total=0
failed=0
fail() {
    failed=$((failed + 1))
    echo "FAIL: $1"
}
for fp in "$bad"/*.fp; do
    test -f "$fp" || continue
    name=$(basename "$fp" .fp)
    total=$((total + 1))
    rm -rf "$tmp/out"
    (cd "$bad" && "$fusegen" --templates="$templates" --target=cuda -o "$tmp/out" "$name.fp") \
        >"$tmp/stdout" 2>"$tmp/stderr"
    status=$?
    if test "${FG_UPDATE_GOLDEN-}" = 1; then
        cp "$tmp/stderr" "$bad/$name.err"
    fi
    if test "$status" -ne 1; then
        fail "$name: --target=cuda exit status $status, expected 1"
    elif test -s "$tmp/stdout"; then
        fail "$name: --target=cuda printed on stdout"
    elif ! cmp -s "$tmp/stderr" "$bad/$name.err"; then
        fail "$name: --target=cuda stderr differs from $name.err"
        diff "$bad/$name.err" "$tmp/stderr"
    elif test -e "$tmp/out"; then
        fail "$name: --target=cuda failed but wrote files"
    fi

    rm -rf "$tmp/out"
    (cd "$bad" && "$fusegen" --templates="$templates" -o "$tmp/out" "$name.fp") \
        >"$tmp/stdout" 2>"$tmp/stderr"
    status=$?
    if test "${FG_UPDATE_GOLDEN-}" = 1; then
        cp "$tmp/stderr" "$bad/$name.warn"
    fi
    if test "$status" -ne 0; then
        fail "$name: default targets: exit status $status, expected 0"
        cat "$tmp/stderr"
    elif ! cmp -s "$tmp/stderr" "$bad/$name.warn"; then
        fail "$name: default targets: stderr differs from $name.warn"
        diff "$bad/$name.warn" "$tmp/stderr"
    elif test -e "$tmp/out/${name}_cuda.cu"; then
        fail "$name: default targets: ${name}_cuda.cu was written"
    elif ! test -e "$tmp/out/fusegen_$name.h"; then
        fail "$name: default targets: fusegen_$name.h was not written"
    fi
done
if test "$total" -eq 0; then
    echo "cuda-refuse.sh: no plans in $bad"
    exit 99
fi
echo "cuda-refuse.sh: $total plans, $failed failed"
test "$failed" -eq 0
