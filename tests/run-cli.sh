#!/bin/sh
# run-cli.sh - the fusegen command line: options, exit statuses (0 success,
# 1 errors in a plan, 2 usage error, 3 I/O or internal error), dumps on
# stdout, and that --check and failing runs write no files.
#
# Environment: srcdir and top_builddir (set by `make check`), FUSEGEN (the
# program, default $top_builddir/fusegen).

srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
fusegen=${FUSEGEN:-$top_builddir/fusegen}
case $fusegen in
/*) ;;
*) fusegen=$(pwd)/$fusegen ;;
esac
if test ! -x "$fusegen"; then
    echo "run-cli.sh: $fusegen is not built: skipped"
    exit 77
fi
cd "$srcdir" || exit 99
tmp=$(mktemp -d "${TMPDIR:-/tmp}/run-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

failed=0
total=0

# run NAME STATUS ARGS...: run fusegen, check its exit status; stdout and
# stderr are left in $tmp/out and $tmp/err for the checks that follow.
run() {
    name=$1
    want=$2
    shift 2
    total=$((total + 1))
    "$fusegen" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if test "$got" -ne "$want"; then
        fail "$name: exit status $got, expected $want"
        sed 's/^/    stderr: /' "$tmp/err"
        return 1
    fi
    return 0
}

fail() {
    failed=$((failed + 1))
    echo "FAIL: $1"
}

# expect_line NAME FILE TEXT: FILE holds the line TEXT.
expect_line() {
    if ! grep -qxF -- "$3" "$2"; then
        fail "$1: no line '$3' in $(basename "$2")"
        sed 's/^/    /' "$2"
    fi
}

expect_empty() {
    if test -s "$2"; then
        fail "$1: $(basename "$2") is not empty"
        sed 's/^/    /' "$2"
    fi
}

run version 0 --version &&
    if ! grep -qx 'fusegen [0-9][0-9.]*' "$tmp/out"; then fail "version: '$(cat "$tmp/out")'"; fi

run help 0 --help && {
    expect_line help "$tmp/out" "Usage: fusegen [OPTION]... PLAN..."
    expect_line help "$tmp/out" "  3  I/O or internal error"
    expect_empty help "$tmp/err"
}

run no-plan 2 && {
    expect_line no-plan "$tmp/err" "fusegen: error: no plan given"
    expect_line no-plan "$tmp/err" "Try 'fusegen --help' for more information."
}
run unknown-option 2 --frobnicate plans/softmax.fp &&
    expect_line unknown-option "$tmp/err" "fusegen: error: unknown option '--frobnicate'"
run bad-target 2 --target=cuda,tpu plans/softmax.fp &&
    expect_line bad-target "$tmp/err" \
        "fusegen: error: bad --target list 'cuda,tpu': expected a comma-separated list of cuda, hip, c"
run bad-dump 2 --dump=xml plans/softmax.fp &&
    expect_line bad-dump "$tmp/err" "fusegen: error: bad --dump 'xml': expected ast, ir, fused or kernel"
run missing-o-value 2 plans/softmax.fp -o &&
    expect_line missing-o-value "$tmp/err" "fusegen: error: option '-o' needs a directory"

# --check and each --dump choose what the run does: two different ones
# are a usage error that names both.
run check-and-dump 2 --check --dump=ast plans/softmax.fp && {
    expect_line check-and-dump "$tmp/err" \
        "fusegen: error: options '--check' and '--dump=ast' cannot be used together"
    expect_empty check-and-dump "$tmp/out"
}
run dump-and-check 2 --dump ir --check plans/softmax.fp &&
    expect_line dump-and-check "$tmp/err" \
        "fusegen: error: options '--dump=ir' and '--check' cannot be used together"
run two-dumps 2 --dump=ast --dump=fused plans/softmax.fp && {
    expect_line two-dumps "$tmp/err" \
        "fusegen: error: options '--dump=ast' and '--dump=fused' cannot be used together"
    expect_empty two-dumps "$tmp/out"
}
run same-dump-twice 0 --dump=ast --dump=ast plans/softmax.fp

run missing-file 3 --check "$tmp/no-such.fp" &&
    expect_line missing-file "$tmp/err" \
        "fusegen: error: cannot open '$tmp/no-such.fp': No such file or directory"

run dump-ast 0 --dump=ast plans/softmax.fp && {
    expect_line dump-ast "$tmp/out" "plan softmax @2:6"
    expect_line dump-ast "$tmp/out" "  Y[r, c] = E / L @13:1"
    expect_line dump-ast "$tmp/out" "    reduce c: rolling @18:10"
    expect_empty dump-ast "$tmp/err"
}

# Every bundled plan checks cleanly, and --check writes nothing.  Every one
# has a CUDA kernel now (issue 13), so --check says nothing of them; a plan
# that asks for a CUDA kernel the backend cannot give gets a located reason
# (a warning, as in a run that generates), and nothing else is said.
run check-all 0 -o "$tmp/generated" --check plans/*.fp && {
    expect_empty check-all "$tmp/out"
    if grep '^plans/' "$tmp/err"; then
        fail "check-all: --check said something of a bundled plan"
    fi
    if test -e "$tmp/generated"; then fail "check-all: --check wrote $tmp/generated"; fi
}
nocuda=tests/cuda-bad/normalised.fp
nocuda_why="plan 'normalised' has no CUDA kernel: 'O' is kept divided by 'L' (the FlashAttention-1 form), but its body is not a contraction W * V: give the weight a statement of its own (W = P / L, O = sum(n: W * V)), as plans/fa1.fp does"
run check-warn 0 --check plans/causal.fp "$nocuda" &&
    expect_line check-warn "$tmp/err" \
        "$nocuda:12:1: warning: plan 'normalised' gets no CUDA kernel: 'O' is kept divided by 'L' (the FlashAttention-1 form), but its body is not a contraction W * V: give the weight a statement of its own (W = P / L, O = sum(n: W * V)), as plans/fa1.fp does"

# --target=cuda on a plan the CUDA backend cannot serve is an error, in
# --check as in a run, and the run writes nothing (issue 13: it exited 0
# having written only a header when the plan's targets left cuda out).
run check-cuda-named 1 --check --target=cuda "$nocuda" &&
    expect_line check-cuda-named "$tmp/err" "$nocuda:12:1: error: $nocuda_why"
run cuda-named 1 --templates=templates --target=cuda -o "$tmp/gen-cuda" "$nocuda" && {
    expect_line cuda-named "$tmp/err" "$nocuda:12:1: error: $nocuda_why"
    if test -e "$tmp/gen-cuda"; then fail "cuda-named: a failing run wrote $tmp/gen-cuda"; fi
}
# The row reductions have the row kernels (issue 13): --target=cuda serves them,
# and sigmoid attention (no softmax chain) the attention kernels.
run cuda-rows 0 --templates=templates --target=cuda -o "$tmp/gen-rows" plans/softmax.fp plans/logsumexp.fp plans/sigmoid.fp &&
    for f in softmax_cuda.cu logsumexp_cuda.cu sigmoid_cuda.cu fusegen_plans_cuda.c; do
        test -s "$tmp/gen-rows/$f" || fail "cuda-rows: $f was not written"
    done

# One bad plan fails the run (status 1) and nothing is written.
run one-bad-plan 1 -o "$tmp/generated" plans/softmax.fp tests/bad/syn-missing-assign.fp && {
    expect_line one-bad-plan "$tmp/err" \
        "tests/bad/syn-missing-assign.fp:6:7: error: expected '=' after 'Mx[...]', found identifier 'max'"
    if test -e "$tmp/generated"; then fail "one-bad-plan: a failing run wrote $tmp/generated"; fi
}

# A missing file among good plans: I/O error wins over plan errors.
run io-and-plan-errors 3 --check tests/bad/syn-empty.fp "$tmp/no-such.fp" &&
    expect_line io-and-plan-errors "$tmp/err" "tests/bad/syn-empty.fp:1:1: error: empty plan: expected 'plan NAME'"

# Output-side I/O errors are exit status 3, never 1 (an error in a plan),
# and write nothing.
echo 'keep me' >"$tmp/a-file"
run out-is-a-file 3 --templates=templates -o "$tmp/a-file" plans/softmax.fp && {
    expect_line out-is-a-file "$tmp/err" "fusegen: error: $tmp/a-file is not a directory"
    if test "$(cat "$tmp/a-file")" != 'keep me'; then fail "out-is-a-file: the file changed"; fi
}
run out-under-a-file 3 --templates=templates -o /dev/null/generated plans/softmax.fp
mkdir "$tmp/read-only"
chmod 555 "$tmp/read-only"
if test -w "$tmp/read-only"; then
    echo "run-cli.sh: running as root: no read-only folder to test"
else
    run out-read-only 3 --templates=templates -o "$tmp/read-only" plans/softmax.fp
    run out-under-read-only 3 --templates=templates -o "$tmp/read-only/sub" plans/softmax.fp
fi
chmod 755 "$tmp/read-only"
run no-templates 3 --templates="$tmp/no-templates" -o "$tmp/gen-t" plans/softmax.fp && {
    expect_line no-templates "$tmp/err" \
        "fusegen: error: cannot read the templates in '$tmp/no-templates': No such file or directory (see --templates)"
    if test -e "$tmp/gen-t"; then fail "no-templates: wrote $tmp/gen-t"; fi
}
run no-m4 3 --templates=templates --m4="$tmp/no-m4" -o "$tmp/gen-m" plans/softmax.fp && {
    expect_line no-m4 "$tmp/err" \
        "fusegen: error: cannot run m4 '$tmp/no-m4': No such file or directory (see --m4)"
    if test -e "$tmp/gen-m"; then fail "no-m4: wrote $tmp/gen-m"; fi
}
run no-m4-on-path 3 --templates=templates --m4=fusegen-no-such-m4 -o "$tmp/gen-m" plans/softmax.fp

# The README's command, as a new user types it in a build tree before
# `make install`: no --templates, no $FUSEGEN_TEMPLATES.
(unset FUSEGEN_TEMPLATES; "$fusegen" -o "$tmp/gen-plain" plans/softcap.fp) >"$tmp/out" 2>"$tmp/err"
status=$?
total=$((total + 1))
if test $status -ne 0 || test ! -f "$tmp/gen-plain/softcap_cpu.c"; then
    fail "plain -o in a build tree: no templates found without --templates"
    sed 's/^/    stderr: /' "$tmp/err"
fi

# A template missing from a templates folder that exists, and a template
# that uses a macro the generator does not define: the templates' fault,
# not the plan's (status 3), and nothing written.
mkdir -p "$tmp/tpl" && cp -R templates/. "$tmp/tpl/" && rm -f "$tmp/tpl/api/plan_h.m4"
run missing-template 3 --templates="$tmp/tpl" -o "$tmp/gen-x" plans/softmax.fp &&
    if test -e "$tmp/gen-x"; then fail "missing-template: wrote $tmp/gen-x"; fi
cp templates/api/plan_h.m4 "$tmp/tpl/api/plan_h.m4" && echo "fg_no_such_macro" >> "$tmp/tpl/api/plan_h.m4"
run leftover-macro 3 --templates="$tmp/tpl" -o "$tmp/gen-y" plans/softmax.fp &&
    if test -e "$tmp/gen-y"; then fail "leftover-macro: wrote $tmp/gen-y"; fi

# A plan whose name is too long for a file name (310 bytes with fusegen_).
long=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
long=$long$long$long$long$long$long
sed "s/^plan softmax\$/plan $long/" plans/softmax.fp >"$tmp/long.fp"

# -o makes the missing parents of its folder (mkdir -p); a run that fails
# makes none of them.
run o-makes-parents 0 --templates=templates -o "$tmp/p1/p2/out" plans/softmax.fp &&
    if test ! -f "$tmp/p1/p2/out/kernels.mk"; then fail "o-makes-parents: no $tmp/p1/p2/out/kernels.mk"; fi
run o-parents-undone 3 --templates=templates -o "$tmp/q1/q2/out" "$tmp/long.fp" &&
    if test -e "$tmp/q1"; then fail "o-parents-undone: made $tmp/q1"; fi

# A failed run leaves the output folder as it was: a directory where
# kernels.mk goes fails the run before any file is written.
mkdir -p "$tmp/o-dir/kernels.mk"
run kernels-mk-is-a-dir 3 --templates=templates -o "$tmp/o-dir" plans/softmax.fp plans/causal.fp && {
    expect_line kernels-mk-is-a-dir "$tmp/err" \
        "fusegen: error: cannot write $tmp/o-dir/kernels.mk: a directory of that name is in the way"
    if test "$(ls -A "$tmp/o-dir")" != kernels.mk; then
        fail "kernels-mk-is-a-dir: files left in $tmp/o-dir: $(ls -A "$tmp/o-dir" | tr '\n' ' ')"
    fi
}
# A plan name too long for a file name: a clear error, and no folder made.
run long-plan-name 3 --templates=templates -o "$tmp/o-long" "$tmp/long.fp" && {
    expect_line long-plan-name "$tmp/err" \
        "fusegen: error: cannot write $tmp/o-long/fusegen_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...: a file name of 310 bytes is longer than the 255 the file system allows (is a plan's name too long?)"
    if test -e "$tmp/o-long"; then fail "long-plan-name: made $tmp/o-long"; fi
}
if ls -A "$tmp" | grep -q '^\.fusegen-'; then fail "a staging folder was left in $tmp"; fi

if test -w /dev/full; then
    total=$((total + 1))
    "$fusegen" --dump=ast plans/softmax.fp >/dev/full 2>"$tmp/err"
    got=$?
    if test "$got" -ne 3; then fail "stdout-full: exit status $got, expected 3"; fi
    expect_line stdout-full "$tmp/err" "fusegen: error: cannot write to standard output"
fi

echo "run-cli.sh: $total runs, $failed failed"
test "$failed" -eq 0
