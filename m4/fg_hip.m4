# fg_hip.m4 -- find and verify the ROCm/HIP toolkit for fusegen.
#
# FG_CHECK_HIP
# ------------
# --with-rocm[=DIR]     default: Debian's clang++-19 as a HIP compiler when
#                       its resource folder is there (clang++-19 -x hip, the
#                       HIP headers of libamdhip64-dev, -nogpulib: the
#                       kernels call compiler builtins only, so no device
#                       library is needed, and gfx942, which Debian 12 has
#                       none for, compiles too), then hipcc on PATH, in
#                       /opt/rocm/bin, in /usr/bin (Debian's hipcc). "yes" or
#                       a DIR make a missing or broken toolkit an error (a
#                       DIR means DIR/bin/hipcc); by default a missing one
#                       only disables HIP.
# --with-hip-arch=LIST  comma-separated AMD GPU targets (default
#                       gfx90a,gfx942); each becomes --offload-arch=T. Every
#                       entry of a LIST given by the user must compile;
#                       entries of the default list that the compiler cannot
#                       compile are dropped with a warning. (Debian 12's
#                       hipcc 5.2 knows gfx90a and gfx908 but not gfx942;
#                       clang++-19 knows both.)
# Precious: HIPCC, HIPCCFLAGS (HIPCC=clang++-19 is taken as a clang).
# Defines FG_HAVE_HIP (0 or 1) and AM_CONDITIONAL HAVE_HIP; substitutes
# HIP_OFFLOAD (the language and target flags of every .hip compile),
# HIP_ARCHS, HIPCC_VERSION, HIP_CPPFLAGS, HIP_LDFLAGS, HIP_LIBS.
#
# Verification: a real __global__ kernel (plus an extern "C" launcher) is
# compiled to an object file by hipcc for every target, and a C program that
# calls the launcher and the HIP runtime is linked with $CC and
# HIP_LDFLAGS/HIP_LIBS. Nothing runs: no GPU is needed.

AC_DEFUN([FG_CHECK_HIP], [
AC_REQUIRE([AC_PROG_CC])
AC_REQUIRE([FG_RUN_LOG_PREPARE])
AC_ARG_VAR([HIPCC], [HIP compiler command (default: hipcc on PATH or in the --with-rocm DIR)])
AC_ARG_VAR([HIPCCFLAGS], [extra hipcc flags for device compilation])
AC_ARG_WITH([rocm],
  [AS_HELP_STRING([--with-rocm@<:@=DIR@:>@],
    [build libfusegen_hip.a with the ROCm/HIP toolkit in DIR (default: look for hipcc on PATH, then in /opt/rocm and /usr)])],
  [], [with_rocm=check])
AC_ARG_WITH([hip-arch],
  [AS_HELP_STRING([--with-hip-arch=LIST],
    [comma-separated AMD GPU targets to compile for (default: gfx90a,gfx942)])],
  [fg_hip_arch_given=yes], [with_hip_arch="gfx90a,gfx942" fg_hip_arch_given=no])

fg_have_hip=no
fg_hip_why=
HIP_OFFLOAD=
HIP_ARCHS=
HIPCC_VERSION=
HIP_CPPFLAGS=
HIP_LDFLAGS=
HIP_LIBS=
fg_rocm_home=
fg_hip_clang=

AS_CASE([$with_rocm],
  [no], [fg_hip_why="disabled (--without-rocm)"],
  [yes|check], [],
  [fg_rocm_home=$with_rocm
   AS_IF([test -z "$HIPCC" && test -x "$with_rocm/bin/hipcc"],
     [HIPCC="$with_rocm/bin/hipcc"])])

AS_IF([test "x$with_rocm" != xno], [
  # A user-set HIPCC (precious) is used as given; otherwise search: Debian's
  # clang++-19 with its resource folder (it knows gfx942), then hipcc.
  AS_IF([test -z "$HIPCC" && test -z "$fg_rocm_home" && test -d /usr/lib/llvm-19/lib/clang/19/include],
    [AC_PATH_PROG([HIPCC], [clang++-19])])
  AS_IF([test -z "$HIPCC" && test -z "$fg_rocm_home"],
    [AC_PATH_PROG([HIPCC], [hipcc], [],
       [$PATH$PATH_SEPARATOR/opt/rocm/bin$PATH_SEPARATOR/usr/bin])])
  AS_IF([test -z "$HIPCC"], [
    AS_IF([test -n "$fg_rocm_home"],
      [fg_hip_why="no hipcc in $fg_rocm_home/bin"],
      [fg_hip_why="hipcc not found on PATH, in /opt/rocm/bin or /usr/bin"])
  ], [
    _FG_HIP_VERIFY
  ])
])

AS_IF([test "x$fg_have_hip" = xyes], [
  AC_DEFINE([FG_HAVE_HIP], [1], [Define to 1 if libfusegen_hip.a is built, else 0.])
], [
  AS_IF([test "x$with_rocm" != xno && test "x$with_rocm" != xcheck],
    [AC_MSG_ERROR([--with-rocm=$with_rocm was requested but HIP is not usable: $fg_hip_why (see config.log)])])
  AS_IF([test "x$with_rocm" = xcheck],
    [AC_MSG_NOTICE([HIP disabled: $fg_hip_why])])
  AC_DEFINE([FG_HAVE_HIP], [0], [Define to 1 if libfusegen_hip.a is built, else 0.])
  HIP_OFFLOAD=
  HIP_ARCHS=
  HIP_CPPFLAGS=
  HIP_LDFLAGS=
  HIP_LIBS=
])
AM_CONDITIONAL([HAVE_HIP], [test "x$fg_have_hip" = xyes])
AC_SUBST([HIP_OFFLOAD])
AC_SUBST([HIP_ARCHS])
AC_SUBST([HIPCC_VERSION])
AC_SUBST([HIP_CPPFLAGS])
AC_SUBST([HIP_LDFLAGS])
AC_SUBST([HIP_LIBS])
])

# _FG_HIP_VERIFY
# --------------
# $HIPCC is set. Sets fg_have_hip=yes and the substituted variables, or
# leaves fg_have_hip=no with the reason in fg_hip_why.
AC_DEFUN([_FG_HIP_VERIFY], [
# The toolkit root: the DIR given, else the parent of hipcc's bin/. -I and
# -L are added only where the header and the library are, so that a toolkit
# in the system paths (Debian's /usr/bin/hipcc) needs none.
AS_IF([test -z "$fg_rocm_home"], [
  set dummy $HIPCC
  fg_hipcc_prog=`command -v "$[2]" 2>/dev/null`
  AS_IF([test -n "$fg_hipcc_prog"],
    [fg_rocm_home=`AS_DIRNAME(["$fg_hipcc_prog"])`/..])
])
AS_IF([test -n "$fg_rocm_home" && test -d "$fg_rocm_home"],
  [fg_rocm_home=`cd "$fg_rocm_home" && pwd`])
# The C runtime includes <hip/hip_runtime_api.h>, which needs the platform.
HIP_CPPFLAGS="-D__HIP_PLATFORM_AMD__"
AS_IF([test -n "$fg_rocm_home" && test "$fg_rocm_home" != /usr], [
  AS_IF([test -f "$fg_rocm_home/include/hip/hip_runtime_api.h"],
    [HIP_CPPFLAGS="$HIP_CPPFLAGS -I$fg_rocm_home/include"])
  for fg_dir in "$fg_rocm_home/lib" "$fg_rocm_home/lib64"; do
    AS_IF([ls "$fg_dir"/libamdhip64.* >/dev/null 2>&1],
      [HIP_LDFLAGS="-L$fg_dir"; break])
  done
])
HIP_LIBS="-lamdhip64 -lstdc++ -lm -ldl -lpthread -lrt"

# A clang (clang++-19) compiles HIP with -x hip; it finds Debian's HIP
# headers (libamdhip64-dev) in /usr/include and its own HIP wrappers in its
# resource folder; -nogpulib: no device library is linked (the kernels call
# builtins only).  hipcc adds all of that itself.
fg_hip_lang=
AS_CASE([`$HIPCC --version 2>/dev/null | sed -n 1p`],
  [*clang*], [fg_hip_clang=yes
    fg_hip_lang="-x hip -nogpulib"
    fg_hip_res=`$HIPCC -print-resource-dir 2>/dev/null`
    AS_IF([test -n "$fg_hip_res" && test -d "$fg_hip_res"],
      [fg_hip_lang="$fg_hip_lang -I$fg_hip_res"])])

# hipcc --version may print a Python traceback on stderr on machines
# without an AMD GPU (rocm_agent_enumerator); stdout is what counts.
AC_MSG_CHECKING([HIP compiler version])
AS_IF([test "x$fg_hip_clang" = xyes],
  [HIPCC_VERSION=`$HIPCC --version 2>/dev/null | sed -n '1s/.*clang version \(@<:@0-9.@:>@*\).*/clang \1/p'`],
  [HIPCC_VERSION=`$HIPCC --version 2>/dev/null | sed -n 's/^HIP version: *//p'`])
AS_IF([test -n "$HIPCC_VERSION"], [AC_MSG_RESULT([$HIPCC_VERSION])], [
  AC_MSG_RESULT([unknown])
  fg_hip_why="$HIPCC --version does not report a HIP version"
])

cat > fgconf_hip.hip <<'_FG_EOF'
#include <hip/hip_runtime.h>
typedef short fg_s4 __attribute__((ext_vector_type(4)));
typedef float fg_f16 __attribute__((ext_vector_type(16)));
__global__ void fg_conftest_scale(float *x, float s, int n)
{
    /* builtins only (no device library), and an MFMA as the kernels use */
    int i = (int)(__builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x());
    fg_s4 a = {1, 2, 3, 4};
    fg_f16 c = {};
    c = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, a, c, 0, 0, 0);
    s += c@<:@0@:>@ * 0.0f;
    if (i < n)
        *(x + i) *= s;
}
extern "C" int fg_conftest_launch(float *x, int n)
{
    fg_conftest_scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
    return (int)hipGetLastError();
}
_FG_EOF

# Compile the kernel once per target.
fg_hip_archs=`echo "$with_hip_arch" | tr ',' ' '`
AS_IF([test -z "$fg_hip_why" && test -z "$fg_hip_archs"],
  [fg_hip_why="empty --with-hip-arch list"])
AS_IF([test -z "$fg_hip_why"], [
  for fg_arch in $fg_hip_archs; do
    AS_IF([echo "$fg_arch" | grep '^gfx@<:@0-9a-f@:>@*@<:@-:+a-z@:>@*$' >/dev/null], [],
      [AC_MSG_ERROR([--with-hip-arch: '$fg_arch' is not a target like gfx90a or gfx942])])
    fg_offload="$fg_hip_lang --offload-arch=$fg_arch"
    AC_MSG_CHECKING([whether $HIPCC compiles a kernel for $fg_arch])
    rm -f fgconf_hip.o
    AS_IF([fg_run_log $HIPCC $fg_offload $HIPCCFLAGS $CPPFLAGS -std=c++17 -O3 -fPIC -c fgconf_hip.hip -o fgconf_hip.o && test -s fgconf_hip.o],
      [AC_MSG_RESULT([yes])
       HIP_OFFLOAD="${HIP_OFFLOAD:+$HIP_OFFLOAD }--offload-arch=$fg_arch"
       HIP_ARCHS="${HIP_ARCHS:+$HIP_ARCHS }$fg_arch"],
      [AC_MSG_RESULT([no])
       AS_IF([test "x$fg_hip_arch_given" = xyes],
         [AC_MSG_ERROR([--with-hip-arch: $HIPCC cannot compile for $fg_arch (see config.log)])])
       AC_MSG_WARN([dropping $fg_arch from the default HIP targets: $HIPCC cannot compile for it])])
  done
  AS_IF([test -z "$HIP_OFFLOAD"],
    [fg_hip_why="$HIPCC compiles for none of: $fg_hip_archs"],
    [HIP_OFFLOAD="${fg_hip_lang:+$fg_hip_lang }$HIP_OFFLOAD"])
])

# Link a C program against the kernel object (all targets at once, as the
# library is built), the way a consumer of libfusegen_hip.a does.
AS_IF([test -z "$fg_hip_why"], [
  AC_MSG_CHECKING([whether $CC links a C program with a HIP kernel object])
  fg_save_CPPFLAGS=$CPPFLAGS
  fg_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $HIP_CPPFLAGS"
  LIBS="fgconf_hip.o $HIP_LDFLAGS $HIP_LIBS $LIBS"
  AS_IF([fg_run_log $HIPCC $HIP_OFFLOAD $HIPCCFLAGS $fg_save_CPPFLAGS -std=c++17 -O3 -fPIC -c fgconf_hip.hip -o fgconf_hip.o],
    [AC_LINK_IFELSE([AC_LANG_PROGRAM([[
#include <hip/hip_runtime_api.h>
int fg_conftest_launch(float *x, int n);
]], [[
int n = 0;
if (hipGetDeviceCount(&n) != hipSuccess)
    n = 0;
return fg_conftest_launch(0, n) == 12345;
]])],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       fg_hip_why="cannot link a C program with $HIP_LDFLAGS $HIP_LIBS"])],
    [AC_MSG_RESULT([no])
     fg_hip_why="$HIPCC cannot compile for all of: $HIP_ARCHS"])
  CPPFLAGS=$fg_save_CPPFLAGS
  LIBS=$fg_save_LIBS
])
rm -f fgconf_hip.hip fgconf_hip.o
AS_IF([test -z "$fg_hip_why"], [fg_have_hip=yes])
])
