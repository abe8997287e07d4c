#!/bin/sh
# defs-used.sh - every m4 definition the generator writes is read by some
# template and listed in templates/README.md, so that no definition is
# computed for nothing and the README is the whole interface.  Names built
# at run time (has_BACKEND, mk_BACKEND_sources) are not seen here.
srcdir=${srcdir:-.}
defs=$(grep -ho 'fg_def_[a-z]*([a-z]*, "[a-z0-9_]*"' "$srcdir"/generator/*.c "$srcdir"/generator/*/*.c "$srcdir"/generator/*/*/*.c 2>/dev/null |
       sed 's/.*"\(.*\)"/\1/' | sort -u)
test -n "$defs" || { echo "FAIL: found no fg_def_* calls under generator/"; exit 1; }
failed=0
total=0
for n in $defs; do
    total=$((total + 1))
    if ! grep -rqE "fg_${n}(_if)?([^a-zA-Z0-9_]|\$)" "$srcdir"/templates --include='*.m4' --include='*.cuh' --include='*.hpp'; then
        echo "FAIL: fg_$n is defined by the generator and read by no template"
        failed=$((failed + 1))
    fi
    if ! grep -q "\`fg_$n\`" "$srcdir"/templates/README.md; then
        echo "FAIL: fg_$n is not listed in templates/README.md"
        failed=$((failed + 1))
    fi
done
echo "defs-used.sh: $total definitions, $failed problems"
test "$failed" -eq 0
