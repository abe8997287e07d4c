#!/bin/sh
# rows-hooks.sh - the plan hooks and the host entry of every generated
# row-kernel source, CUDA's (templates/cuda/rowreduce.m4) and HIP's
# (templates/hip/rowreduce.m4, the same hooks in the HIP dialect), run on the host against
# the plan's CPU entry (tests/rows_hooks_sim.cc): the generated running
# steps, corrections, merges and epilogues of the family, with the skeleton's
# walk emulated.  The same for the test-only plans with row kernels
# (tests/plans), generated here by the built fusegen with their C entries.
# Needs a C++17 compiler ($CXX, default c++), a C compiler ($CC, default
# cc) and the built libfusegen_cpu.a, no GPU; skips (77) without the C++
# compiler or the library.
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

# sim NAME CU PLANS_C DIR LIBS...: builds tests/rows_hooks_sim.cc against
# the hooks of CU (a _cuda.cu or, with SIM_HIP in SIM_FLAGS, a _hip.hip
# source) and the entry of NAME in PLANS_C (fusegen_plans_cuda.c or
# fusegen_plans_hip.c, under DIR beside the plan's header), linked with LIBS
# (the CPU entry and the registry that names it), and runs it.
sim() {
    name=$1 cu=$2 plans=$3 dir=$4
    shift 4
    case $cu in *_hip.hip) be=hip ;; *) be=cuda ;; esac
    {
        sed -n '/^#define FG_NS /,/PLAN HOOKS END/p' "$cu"
        echo "}  // namespace FG_NS"
    } > "$tmp/hooks.h"
    {
        sed -n '/^extern "C" fg_status fg_/,$p' "$cu"
        awk -v f="static fg_status ${name}_${be}_(" 'index($0, f) == 1 { on = 1 }
                                                   on { print } on && /^}/ { exit }' "$plans"
        echo "static fg_status sim_entry(const fg_tensor* i, const fg_tensor* o) {"
        echo "  return ${name}_${be}_(i, o, NULL, NULL, NULL, NULL, 0, NULL);"
        echo "}"
    } > "$tmp/hooks_entry.h"
    if ! grep -q 'PLAN HOOKS END' "$tmp/hooks.h" || ! grep -q sim_entry "$tmp/hooks_entry.h" ||
       ! grep -q "${name}_${be}_" "$tmp/hooks_entry.h"; then
        echo "FAIL: $name ($be): hooks or entry not found"
        fail=1
        return
    fi
    hip=
    test "$be" = hip && hip=-DSIM_HIP
    n=$((n + 1))
    # the archive was built with the sanitizers when configure enabled them
    # shellcheck disable=SC2086 # SIM_FLAGS: words
    if ! $cxx -std=c++17 -O1 ${FG_SANITIZE_CFLAGS:-} ${SIM_FLAGS:-} $hip -I"$tmp" -I"$dir" -I"$srcdir/runtime" \
            -DSIM_HEADER="\"fusegen_$name.h\"" -DSIM_PLAN="\"$name\"" \
            -o "$tmp/sim" "$srcdir/tests/rows_hooks_sim.cc" "$@" -lm; then
        echo "FAIL: $name ($be): the hooks do not compile on the host"
        fail=1
        return
    fi
    if "$tmp/sim" > "$tmp/out"; then
        echo "$name ($be): $(cat "$tmp/out")"
    else
        echo "FAIL: $name ($be): $(cat "$tmp/out")"
        fail=1
    fi
}

for cu in "$srcdir"/generated/*_cuda.cu; do
    test -f "$cu" || continue
    grep -q rr_dispatch "$cu" || continue # attention: tests/cuda-hooks.sh
    name=$(basename "$cu" _cuda.cu)
    sim "$name" "$cu" "$srcdir/generated/fusegen_plans_cuda.c" "$srcdir/generated" "$lib"
    # the plan's HIP source: every row plan of the registry targets hip too
    hipsrc=$srcdir/generated/${name}_hip.hip
    if test -f "$hipsrc"; then
        sim "$name" "$hipsrc" "$srcdir/generated/fusegen_plans_hip.c" "$srcdir/generated" "$lib"
    else
        echo "FAIL: $name: no generated/${name}_hip.hip"
        fail=1
    fi
done
if test "$n" -eq 0; then
    echo "FAIL: no generated row-kernel source"
    exit 1
fi

# The test-only plans with row kernels (tests/plans: a max then powers about
# it, a shift under a sum, three levels...), generated here with their C
# entry and a registry of their own; the entry is first checked against the
# reference interpreter (tests/libcpuref.a), as test_cpu does for the
# registry's plans.
fusegen=$(cd "$top_builddir" && pwd)/fusegen
refs=$top_builddir/tests/libcpuref.a
gen=$top_builddir/generator/libfggen.a
cc=${CC:-cc}
nt=0
if test ! -x "$fusegen" || test ! -f "$refs" || test ! -f "$gen" || ! $cc --version >/dev/null 2>&1; then
    echo "rows-hooks.sh: no $fusegen, $refs, $gen or C compiler ($cc): the test plans are not simulated"
    exit 99
fi
for fp in "$srcdir"/tests/plans/*.fp; do
    name=$(basename "$fp" .fp)
    d=$tmp/plan-$name
    (cd "$(dirname "$fp")" && "$fusegen" -o "$d" "$name.fp") > "$tmp/gen.log" 2>&1 || continue
    cu=$d/${name}_cuda.cu
    test -f "$cu" && test -f "$d/${name}_cpu.c" && grep -q rr_dispatch "$cu" || continue
    objs=
    for c in "$d/${name}_cpu.c" "$d/fusegen_plans.c" "$srcdir/runtime/fusegen.c"; do
        o=$d/$(basename "$c" .c).o
        if ! $cc -std=c11 -O1 ${FG_SANITIZE_CFLAGS:-} -I"$d" -I"$srcdir/runtime" -c -o "$o" "$c"; then
            echo "FAIL: $name: $c does not compile"
            fail=1
            continue 2
        fi
        objs="$objs $o"
    done
    nt=$((nt + 1))
    # shellcheck disable=SC2086 # objs: one word per object
    SIM_FLAGS="-I$srcdir/tests -DSIM_REF_PLAN=\"$fp\"" \
        sim "$name" "$cu" "$d/fusegen_plans_cuda.c" "$d" $objs "$refs" "$gen"
    if test -f "$d/${name}_hip.hip"; then
        # shellcheck disable=SC2086 # objs: one word per object
        SIM_FLAGS="-I$srcdir/tests -DSIM_REF_PLAN=\"$fp\"" \
            sim "$name" "$d/${name}_hip.hip" "$d/fusegen_plans_hip.c" "$d" $objs "$refs" "$gen"
    else
        echo "FAIL: $name: no ${name}_hip.hip (the test plans with row kernels target hip)"
        fail=1
    fi
done
# maxpow, maxshift, shiftsum, masked_rowsum, varexp, wsoftmax, minexp,
# rowbias, twochains, softmean, each for CUDA and HIP: one that stops
# generating is noticed
if test "$nt" -lt 10; then
    echo "FAIL: $nt test plans with row kernels simulated, expected 10 or more"
    exit 1
fi
exit $fail
