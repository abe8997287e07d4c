#!/bin/sh
# cuda-library.sh - the CUDA library holds every generated kernel source.
# Skips (77) only when configure found no nvcc.  Otherwise it fails when
# nvcc does not run, when a generated/*_cuda.cu is missing from kernels.mk
# (FG_CUDA_KERNEL_FILES) or from libfusegen_cuda.a, or when an object lacks
# device code for one of the configured architectures (CUDA_ARCHS).
# Environment from tests/cuda.mk: FG_HAVE_CUDA, NVCC, CUDA_ARCHS,
# FG_CUDA_KERNEL_FILES; srcdir, top_builddir.
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
if test "${FG_HAVE_CUDA-0}" != 1; then
    echo "cuda-library.sh: configure found no nvcc: skipped"
    exit 77
fi
fail=0
if ! "$NVCC" --version >/dev/null 2>&1; then
    echo "FAIL: configure found nvcc ($NVCC) but it does not run"
    exit 1
fi
lib=$top_builddir/libfusegen_cuda.a
if test ! -f "$lib"; then
    echo "FAIL: $lib was not built"
    exit 1
fi
members=$(ar t "$lib") || { echo "FAIL: cannot list $lib"; exit 1; }
# every generated CUDA source is listed and built
for cu in "$srcdir"/generated/*_cuda.cu; do
    test -f "$cu" || continue
    base=$(basename "$cu" .cu)
    case " $FG_CUDA_KERNEL_FILES " in
    *" generated/$base.cu "*) ;;
    *) echo "FAIL: generated/$base.cu is not in FG_CUDA_KERNEL_FILES (generated/kernels.mk)"; fail=1 ;;
    esac
done
count=0
for src in $FG_CUDA_KERNEL_FILES; do
    case $src in
    *.cu) obj=$(basename "$src" .cu).o ;;
    *.c) obj=libfusegen_cuda_a-$(basename "$src" .c).o ;;
    *) continue ;;
    esac
    count=$((count + 1))
    if ! echo "$members" | grep -qx "$obj"; then
        echo "FAIL: $src: $obj is not in libfusegen_cuda.a"
        fail=1
    fi
done
if test "$count" -eq 0; then
    echo "FAIL: FG_CUDA_KERNEL_FILES is empty"
    exit 1
fi
# device code for every configured architecture: the cubins of an object
# name their architecture ("sm_80", "sm_90a") in their headers
for src in $FG_CUDA_KERNEL_FILES; do
    case $src in *.cu) ;; *) continue ;; esac
    obj=$(basename "$src" .cu).o
    ar p "$lib" "$obj" > "${TMPDIR:-/tmp}/cuda-library.$$.o" 2>/dev/null || continue
    for arch in $CUDA_ARCHS; do
        if ! LC_ALL=C grep -a -q "sm_$arch[^0-9a-z]" "${TMPDIR:-/tmp}/cuda-library.$$.o"; then
            echo "FAIL: $src has no sm_$arch code in libfusegen_cuda.a"
            fail=1
        fi
    done
    rm -f "${TMPDIR:-/tmp}/cuda-library.$$.o"
done
test "$fail" -eq 0 && echo "cuda-library.sh: $count sources in libfusegen_cuda.a, architectures: $CUDA_ARCHS"
exit $fail
