#!/bin/sh
# kernel-golden.sh - the kernel model of every plan (fusegen --dump=kernel)
# against its golden file, tests/golden/kernel/NAME.txt: the family, the
# resolved schedule, the running values with their derived corrections,
# the masked-row rules, the mask's key ranges and tile classes, the
# attention roles with the score in the exp2 domain and its hoisted
# constants, and the GPU fit (or the located reason it does not fit).
# FG_UPDATE_GOLDEN=1 rewrites the goldens.
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
fusegen=$(cd "$top_builddir" && pwd)/fusegen
golden=$srcdir/tests/golden/kernel
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fg-kernel.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' 0 1 2 15
total=0
failed=0
for fp in "$srcdir"/plans/*.fp "$srcdir"/tests/plans/*.fp; do
    test -f "$fp" || continue
    name=$(basename "$fp" .fp)
    total=$((total + 1))
    if ! (cd "$(dirname "$fp")" && "$fusegen" --dump=kernel "$name.fp") >"$tmp/out" 2>"$tmp/err"; then
        echo "FAIL: $name: fusegen --dump=kernel failed"
        cat "$tmp/err"
        failed=$((failed + 1))
        continue
    fi
    if test "${FG_UPDATE_GOLDEN-}" = 1; then
        mkdir -p "$golden" && cp "$tmp/out" "$golden/$name.txt"
    fi
    if ! cmp -s "$tmp/out" "$golden/$name.txt"; then
        echo "FAIL: $name: --dump=kernel differs from tests/golden/kernel/$name.txt"
        diff "$golden/$name.txt" "$tmp/out" | head -40
        failed=$((failed + 1))
    fi
done
echo "kernel-golden.sh: $total plans, $failed failed"
test "$failed" -eq 0
