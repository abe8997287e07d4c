#!/bin/sh
# hip-compile.sh - every generated/*_hip.hip is compiled for every configured
# AMD architecture (HIP_ARCHS, with configure's HIP_OFFLOAD flags) with
# -Wall -Wextra -Werror and the compiler's resource report
# (-Rpass-analysis=kernel-resource-usage), one architecture at a time; it
# fails on a warning, on any kernel with scratch memory or spilled VGPRs
# (which go to scratch), or with more than 64 KB of LDS (SGPR spills go to
# VGPR lanes, not memory: they are reported, not refused), and when a generated .hip is missing from
# kernels.mk (FG_HIP_KERNEL_FILES).  It prints one line per kernel: file,
# architecture, kernel, VGPRs, AGPRs, SGPRs, scratch, LDS, occupancy (the
# table of bench/NOTES.md, CDNA resource usage).  Skips (77) when configure
# found no HIP compiler.
# Environment from tests/hip.mk: FG_HAVE_HIP, HIPCC, HIP_ARCHS, HIP_OFFLOAD,
# FG_HIP_KERNEL_FILES; srcdir.
srcdir=${srcdir:-.}
if test "${FG_HAVE_HIP-0}" != 1; then
    echo "hip-compile.sh: configure found no HIP compiler (hipcc or clang++-19): skipped"
    exit 77
fi
tmp=`mktemp -d "${TMPDIR:-/tmp}/fg-hip.XXXXXX"` || exit 1
trap 'rm -rf "$tmp"' 0 1 2 15
# the language flags without the architectures
lang=
for f in $HIP_OFFLOAD; do
    case $f in --offload-arch=*) ;; *) lang="$lang $f" ;; esac
done
fail=0
n=0
for hip in "$srcdir"/generated/*_hip.hip; do
    test -f "$hip" || continue
    base=`basename "$hip"`
    case " $FG_HIP_KERNEL_FILES " in
    *" generated/$base "*) ;;
    *) echo "FAIL: generated/$base is not in FG_HIP_KERNEL_FILES (generated/kernels.mk)"; fail=1 ;;
    esac
    for arch in $HIP_ARCHS; do
        n=`expr $n + 1`
        log="$tmp/$base.$arch.log"
        # shellcheck disable=SC2086
        if ! $HIPCC $lang --offload-arch="$arch" --cuda-device-only -std=c++17 -O3 -Wall -Wextra -Werror \
            -I"$srcdir/generated" -I"$srcdir/runtime" -Rpass-analysis=kernel-resource-usage \
            -c "$hip" -o "$tmp/out.o" > "$log" 2>&1; then
            grep -v 'remark:' "$log" | head -40
            echo "FAIL: $base does not compile for $arch (above)"
            fail=1
            continue
        fi
        if grep -v 'remark:' "$log" | grep -q 'warning:'; then
            grep -v 'remark:' "$log" | head -40
            echo "FAIL: $base: warnings for $arch"
            fail=1
        fi
        # one record per kernel from the remarks
        sed -n 's/.*remark: *\([A-Za-z /]*\(Name\|VGPRs\|AGPRs\|SGPRs\|ScratchSize\|LDS Size\|Occupancy\|VGPRs Spill\|SGPRs Spill\)[^:]*\): *\([^ ]*\).*/\1=\3/p' "$log" |
        awk -v f="$base" -v a="$arch" '
            /^Function Name=/ { if (k != "") out(); k = substr($0, 15); v = ag = sg = sc = lds = occ = "?"; sv = ss = 0; next }
            /^VGPRs Spill=/ { sv = substr($0, 13); next }
            /^SGPRs Spill=/ { ss = substr($0, 13); next }
            /^VGPRs=/ { v = substr($0, 7); next }
            /^AGPRs=/ { ag = substr($0, 7); next }
            /^SGPRs=/ { sg = substr($0, 7); next }
            /^ScratchSize/ { sc = $0; sub(/.*=/, "", sc); next }
            /^LDS Size/ { lds = $0; sub(/.*=/, "", lds); next }
            /^Occupancy/ { occ = $0; sub(/.*=/, "", occ); next }
            function out() {
                bad = (sc + 0 > 0 || sv + 0 > 0 || lds + 0 > 65536) ? "  FAIL" : ""
                printf "%s %s %s vgpr=%s agpr=%s sgpr=%s scratch=%s vgpr-spill=%s sgpr-spill=%s lds=%s occupancy=%s%s\n", f, a, k, v, ag, sg, sc, sv, ss, lds, occ, bad
            }
            END { if (k != "") out() }' > "$tmp/table"
        if command -v c++filt >/dev/null 2>&1; then c++filt < "$tmp/table"; else cat "$tmp/table"; fi
        if ! grep -q . "$tmp/table"; then
            echo "FAIL: $base: no kernel resource report for $arch"
            fail=1
        fi
        if grep -q 'FAIL$' "$tmp/table"; then
            echo "FAIL: $base: a kernel with scratch, VGPR spills or LDS over 64 KB on $arch (above)"
            fail=1
        fi
    done
done
if test "$n" -eq 0; then
    echo "FAIL: no generated/*_hip.hip"
    exit 1
fi
test "$fail" -eq 0 && echo "hip-compile.sh: $n compiles ($HIP_ARCHS), no warning, no scratch or VGPR spill, LDS within 64 KB"
exit $fail
