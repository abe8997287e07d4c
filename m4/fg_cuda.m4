# fg_cuda.m4 -- find and verify the CUDA toolkit for fusegen.
#
# FG_CHECK_CUDA
# -------------
# --with-cuda[=DIR]      default: nvcc on PATH, then /usr/local/cuda/bin.
#                        "yes" or a DIR make a missing or broken toolkit an
#                        error; by default a missing one only disables CUDA.
# --with-cuda-arch=LIST  comma-separated architectures (default 80,90a); each
#                        becomes -gencode=arch=compute_A,code=sm_A. Every
#                        entry of a LIST given by the user must compile;
#                        entries of the default list that this nvcc cannot
#                        compile are dropped with a warning.
# Precious: NVCC, NVCCFLAGS.
# Defines FG_HAVE_CUDA (0 or 1) and AM_CONDITIONAL HAVE_CUDA; substitutes
# NVCC_GENCODE, CUDA_ARCHS, NVCC_VERSION, CUDA_CPPFLAGS, CUDA_LDFLAGS,
# CUDA_LIBS.
#
# Verification: a real __global__ kernel (plus an extern "C" launcher) is
# compiled to an object file by nvcc for every architecture, and a C program
# that calls the launcher and the CUDA runtime is linked with $CC and
# CUDA_LDFLAGS/CUDA_LIBS, as a consumer of libfusegen_cuda.a would. Nothing
# runs: whether a GPU is present is for the tests to find out (exit 77).

AC_DEFUN([FG_CHECK_CUDA], [
AC_REQUIRE([AC_PROG_CC])
AC_REQUIRE([FG_RUN_LOG_PREPARE])
AC_ARG_VAR([NVCC], [CUDA compiler command (default: nvcc on PATH or in the --with-cuda DIR)])
AC_ARG_VAR([NVCCFLAGS], [extra nvcc flags for device compilation])
AC_ARG_WITH([cuda],
  [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
    [build libfusegen_cuda.a with the CUDA toolkit in DIR (default: look for nvcc on PATH, then in /usr/local/cuda)])],
  [], [with_cuda=check])
AC_ARG_WITH([cuda-arch],
  [AS_HELP_STRING([--with-cuda-arch=LIST],
    [comma-separated CUDA architectures to compile for (default: 80,90a)])],
  [fg_cuda_arch_given=yes], [with_cuda_arch="80,90a" fg_cuda_arch_given=no])

fg_have_cuda=no
fg_cuda_why=
NVCC_GENCODE=
CUDA_ARCHS=
NVCC_VERSION=
CUDA_CPPFLAGS=
CUDA_LDFLAGS=
CUDA_LIBS=
fg_cuda_home=

AS_CASE([$with_cuda],
  [no], [fg_cuda_why="disabled (--without-cuda)"],
  [yes|check], [],
  [fg_cuda_home=$with_cuda
   AS_IF([test -z "$NVCC" && test -x "$with_cuda/bin/nvcc"],
     [NVCC="$with_cuda/bin/nvcc"])])

AS_IF([test "x$with_cuda" != xno], [
  # A user-set NVCC (precious) is used as given; otherwise search.
  AS_IF([test -z "$NVCC" && test -z "$fg_cuda_home"],
    [AC_PATH_PROG([NVCC], [nvcc], [], [$PATH$PATH_SEPARATOR/usr/local/cuda/bin])])
  AS_IF([test -z "$NVCC"], [
    AS_IF([test -n "$fg_cuda_home"],
      [fg_cuda_why="no nvcc in $fg_cuda_home/bin"],
      [fg_cuda_why="nvcc not found on PATH or in /usr/local/cuda/bin"])
  ], [
    _FG_CUDA_VERIFY
  ])
])

AS_IF([test "x$fg_have_cuda" = xyes], [
  AC_DEFINE([FG_HAVE_CUDA], [1], [Define to 1 if libfusegen_cuda.a is built, else 0.])
], [
  AS_IF([test "x$with_cuda" != xno && test "x$with_cuda" != xcheck],
    [AC_MSG_ERROR([--with-cuda=$with_cuda was requested but CUDA is not usable: $fg_cuda_why (see config.log)])])
  AS_IF([test "x$with_cuda" = xcheck],
    [AC_MSG_NOTICE([CUDA disabled: $fg_cuda_why])])
  AC_DEFINE([FG_HAVE_CUDA], [0], [Define to 1 if libfusegen_cuda.a is built, else 0.])
  NVCC_GENCODE=
  CUDA_ARCHS=
  CUDA_CPPFLAGS=
  CUDA_LDFLAGS=
  CUDA_LIBS=
])
AM_CONDITIONAL([HAVE_CUDA], [test "x$fg_have_cuda" = xyes])
AC_SUBST([NVCC_GENCODE])
AC_SUBST([CUDA_ARCHS])
AC_SUBST([NVCC_VERSION])
AC_SUBST([CUDA_CPPFLAGS])
AC_SUBST([CUDA_LDFLAGS])
AC_SUBST([CUDA_LIBS])
])

# _FG_CUDA_VERIFY
# ---------------
# $NVCC is set. Sets fg_have_cuda=yes and the substituted variables, or
# leaves fg_have_cuda=no with the reason in fg_cuda_why.
AC_DEFUN([_FG_CUDA_VERIFY], [
cat > fgconf_cuda.cu <<'_FG_EOF'
#include <cuda_runtime.h>
__global__ void fg_conftest_scale(float *x, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        *(x + i) *= s;
}
extern "C" int fg_conftest_launch(float *x, int n)
{
    fg_conftest_scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
    return (int)cudaGetLastError();
}
_FG_EOF

# The toolkit root: the DIR given, else nvcc's own TOP (right for wrappers
# and symlinks too), else the parent of nvcc's bin/. -I and -L are added
# only where the header and the library are, so that a toolkit installed
# in the system paths (Debian's nvidia-cuda-toolkit) needs none.
AS_IF([test -z "$fg_cuda_home"], [
  fg_cuda_home=`$NVCC --dryrun -c fgconf_cuda.cu -o fgconf_cuda.o 2>&1 | sed -n 's/^#\$ TOP=//p' | sed 1q`
  AS_IF([test -z "$fg_cuda_home"], [
    set dummy $NVCC
    fg_nvcc_prog=`command -v "$[2]" 2>/dev/null`
    AS_IF([test -n "$fg_nvcc_prog"],
      [fg_cuda_home=`AS_DIRNAME(["$fg_nvcc_prog"])`/..])
  ])
  AS_IF([test -n "$fg_cuda_home" && test -d "$fg_cuda_home"],
    [fg_cuda_home=`cd "$fg_cuda_home" && pwd`])
])
AS_IF([test -n "$fg_cuda_home" && test "$fg_cuda_home" != /usr], [
  AS_IF([test -f "$fg_cuda_home/include/cuda_runtime_api.h"],
    [CUDA_CPPFLAGS="-I$fg_cuda_home/include"])
  for fg_dir in "$fg_cuda_home/lib64" "$fg_cuda_home/lib"; do
    AS_IF([ls "$fg_dir"/libcudart.* >/dev/null 2>&1],
      [CUDA_LDFLAGS="-L$fg_dir"; break])
  done
])
CUDA_LIBS="-lcudart -lstdc++ -lm -ldl -lpthread -lrt"

AC_MSG_CHECKING([nvcc version])
NVCC_VERSION=`$NVCC --version 2>/dev/null | sed -n 's/.*release \(@<:@0-9.@:>@*\).*/\1/p'`
AS_IF([test -n "$NVCC_VERSION"], [AC_MSG_RESULT([$NVCC_VERSION])], [
  AC_MSG_RESULT([unknown])
  fg_cuda_why="$NVCC --version failed"
])


# Compile the kernel once per architecture.
fg_cuda_archs=`echo "$with_cuda_arch" | tr ',' ' '`
AS_IF([test -z "$fg_cuda_why" && test -z "$fg_cuda_archs"],
  [fg_cuda_why="empty --with-cuda-arch list"])
AS_IF([test -z "$fg_cuda_why"], [
  for fg_arch in $fg_cuda_archs; do
    fg_arch=`echo "$fg_arch" | sed 's/^sm_//; s/^compute_//'`
    AS_IF([echo "$fg_arch" | grep '^@<:@1-9@:>@@<:@0-9@:>@*@<:@af@:>@\{0,1\}$' >/dev/null], [],
      [AC_MSG_ERROR([--with-cuda-arch: '$fg_arch' is not an architecture like 80, 90a or sm_100a])])
    fg_gencode="-gencode=arch=compute_$fg_arch,code=sm_$fg_arch"
    AC_MSG_CHECKING([whether $NVCC compiles a kernel for sm_$fg_arch])
    rm -f fgconf_cuda.o
    AS_IF([fg_run_log $NVCC $fg_gencode $NVCCFLAGS $CPPFLAGS -std=c++17 -Xcompiler -fPIC -c fgconf_cuda.cu -o fgconf_cuda.o && test -s fgconf_cuda.o],
      [AC_MSG_RESULT([yes])
       NVCC_GENCODE="${NVCC_GENCODE:+$NVCC_GENCODE }$fg_gencode"
       CUDA_ARCHS="${CUDA_ARCHS:+$CUDA_ARCHS }$fg_arch"],
      [AC_MSG_RESULT([no])
       AS_IF([test "x$fg_cuda_arch_given" = xyes],
         [AC_MSG_ERROR([--with-cuda-arch: $NVCC cannot compile for sm_$fg_arch (see config.log)])])
       AC_MSG_WARN([dropping sm_$fg_arch from the default CUDA architectures: $NVCC cannot compile for it])])
  done
  AS_IF([test -z "$NVCC_GENCODE"],
    [fg_cuda_why="$NVCC compiles for none of: $fg_cuda_archs"])
])

# Link a C program against the kernel object (all architectures at once, as
# the library is built), the way a consumer of libfusegen_cuda.a does.
AS_IF([test -z "$fg_cuda_why"], [
  AC_MSG_CHECKING([whether $CC links a C program with a CUDA kernel object])
  fg_save_CPPFLAGS=$CPPFLAGS
  fg_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"
  LIBS="fgconf_cuda.o $CUDA_LDFLAGS $CUDA_LIBS $LIBS"
  AS_IF([fg_run_log $NVCC $NVCC_GENCODE $NVCCFLAGS $fg_save_CPPFLAGS -std=c++17 -Xcompiler -fPIC -c fgconf_cuda.cu -o fgconf_cuda.o],
    [AC_LINK_IFELSE([AC_LANG_PROGRAM([[
#include <cuda_runtime_api.h>
int fg_conftest_launch(float *x, int n);
]], [[
int n = 0;
if (cudaGetDeviceCount(&n) != cudaSuccess)
    n = 0;
return fg_conftest_launch(0, n) == 12345;
]])],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       fg_cuda_why="cannot link a C program with $CUDA_LDFLAGS $CUDA_LIBS"])],
    [AC_MSG_RESULT([no])
     fg_cuda_why="$NVCC cannot compile for all of: $CUDA_ARCHS"])
  CPPFLAGS=$fg_save_CPPFLAGS
  LIBS=$fg_save_LIBS
])
rm -f fgconf_cuda.cu fgconf_cuda.o
AS_IF([test -z "$fg_cuda_why"], [fg_have_cuda=yes])
# The sm_90a family of the rolling kernels exists only in a 90a build: the
# GPU checks then require it on a device of compute capability 9.0.
AS_CASE([" $CUDA_ARCHS "], [*" 90a "*],
  [AS_IF([test "x$fg_have_cuda" = xyes],
    [AC_DEFINE([FG_CUDA_SM90A], [1], [Define to 1 when the CUDA library has sm_90a code.])])])
])
