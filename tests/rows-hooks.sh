#!/bin/sh
# rows-hooks.sh - the plan hooks and the host entry of every generated
# row-kernel source (templates/cuda/rowreduce.m4), run on the host against
# the plan's CPU entry (tests/rows_hooks_sim.cc): the generated running
# steps, corrections, merges and epilogues of the family, with the skeleton's
# walk emulated.  Needs a C++17 compiler ($CXX, default c++) and the built
# libfusegen_cpu.a, no GPU; skips (77) without them.
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
cxx=${CXX:-c++}
if ! $cxx --version >/dev/null 2>&1; then
    echo "rows-hooks.sh: no C++ compiler ($cxx): skipped"
    exit 77
fi
lib=$top_builddir/libfusegen_cpu.a
if test ! -f "$lib"; then
    echo "rows-hooks.sh: $lib is not built: skipped"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rows-hooks.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
fail=0
for cu in "$srcdir"/generated/*_cuda.cu; do
    test -f "$cu" || continue
    grep -q rr_dispatch "$cu" || continue # attention: tests/cuda-hooks.sh
    name=$(basename "$cu" _cuda.cu)
    {
        sed -n '/^#define FG_NS /,/PLAN HOOKS END/p' "$cu"
        echo "}  // namespace FG_NS"
    } > "$tmp/hooks.h"
    {
        sed -n '/^extern "C" fg_status fg_/,$p' "$cu"
        awk -v f="static fg_status ${name}_cuda_(" 'index($0, f) == 1 { on = 1 }
                                                   on { print } on && /^}/ { exit }' \
            "$srcdir/generated/fusegen_plans_cuda.c"
        echo "static fg_status sim_entry(const fg_tensor* i, const fg_tensor* o) {"
        echo "  return ${name}_cuda_(i, o, NULL, NULL, NULL, NULL, 0, NULL);"
        echo "}"
    } > "$tmp/hooks_entry.h"
    if ! grep -q 'PLAN HOOKS END' "$tmp/hooks.h" || ! grep -q sim_entry "$tmp/hooks_entry.h" ||
       ! grep -q "${name}_cuda_" "$tmp/hooks_entry.h"; then
        echo "FAIL: $name: hooks or entry not found"
        fail=1
        continue
    fi
    n=$((n + 1))
    # the archive was built with the sanitizers when configure enabled them
    if ! $cxx -std=c++17 -O1 ${FG_SANITIZE_CFLAGS:-} -I"$tmp" -I"$srcdir/generated" -I"$srcdir/runtime" \
            -DSIM_HEADER="\"fusegen_$name.h\"" -DSIM_PLAN="\"$name\"" \
            -o "$tmp/sim" "$srcdir/tests/rows_hooks_sim.cc" "$lib" -lm; then
        echo "FAIL: $name: the hooks do not compile on the host"
        fail=1
        continue
    fi
    if "$tmp/sim" > "$tmp/out"; then
        echo "$name: $(cat "$tmp/out")"
    else
        echo "FAIL: $name: $(cat "$tmp/out")"
        fail=1
    fi
done
if test "$n" -eq 0; then
    echo "FAIL: no generated row-kernel source"
    exit 1
fi
exit $fail
