#!/bin/sh
# cuda-library.sh - the CUDA library holds every generated kernel source and
# the runtime's host services once.  First, without nvcc too: no
# generated/*_cuda.cu carries the host code that lives in
# runtime/fusegen_cuda.cu (the workspace pool, the SM count, the
# shared-memory opt-in, the ticket buffers).  Then it skips (77) when
# configure found no nvcc.  Otherwise it fails when nvcc does not run, when a
# generated/*_cuda.cu is missing from kernels.mk (FG_CUDA_KERNEL_FILES) or
# from libfusegen_cuda.a, when the runtime's object (fusegen_cuda.o) is
# missing, or when the object of a generated kernel source lacks device code
# for one of the configured architectures (CUDA_ARCHS).  Only the generated
# kernel objects must have device code: the runtime's object and the C
# registry have no kernels.
# Environment from tests/cuda.mk: FG_HAVE_CUDA, NVCC, CUDA_ARCHS,
# FG_CUDA_KERNEL_FILES; srcdir, top_builddir.
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
fail=0
# host code that belongs to the runtime, never to a generated source
n=0
for cu in "$srcdir"/generated/*_cuda.cu; do
    test -f "$cu" || continue
    n=$((n + 1))
    for word in cudaMemPoolCreate cudaDevAttrMultiProcessorCount cudaFuncSetAttribute \
                cudaStreamGetId; do
        if grep -n "$word" "$cu"; then
            echo "FAIL: $cu calls $word (above): that is runtime/fusegen_cuda.cu's"
            fail=1
        fi
    done
done
if test "$n" -eq 0; then
    echo "FAIL: no generated/*_cuda.cu"
    exit 1
fi
if test "${FG_HAVE_CUDA-0}" != 1; then
    test "$fail" -eq 0 || exit 1
    echo "cuda-library.sh: $n generated sources without the runtime's host code;" \
        "configure found no nvcc: the library is not checked"
    exit 77
fi
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
if ! echo "$members" | grep -qx fusegen_cuda.o; then
    echo "FAIL: runtime/fusegen_cuda.cu: fusegen_cuda.o is not in libfusegen_cuda.a"
    fail=1
fi
# device code for every configured architecture, in the object of every
# generated kernel source (.cu; not the runtime's, not the C registry): the
# cubins of an object name their architecture ("sm_80", "sm_90a") in their
# headers
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
test "$fail" -eq 0 && echo "cuda-library.sh: $count sources and the runtime in libfusegen_cuda.a, architectures: $CUDA_ARCHS"
exit $fail
