# fg_compiler.m4 -- host compiler checks for fusegen: C11, warnings,
# sanitizers, GNU m4, and a logging helper shared by fg_cuda.m4 and fg_hip.m4.

# FG_RUN_LOG_PREPARE
# ------------------
# Defines the shell function fg_run_log: log a command line to config.log,
# run it with its output in config.log, return its status.
AC_DEFUN([FG_RUN_LOG_PREPARE], [
fg_run_log ()
{
  AS_ECHO(["$as_me:${as_lineno-$LINENO}: $[*]"]) >&AS_MESSAGE_LOG_FD
  "$[@]" >&AS_MESSAGE_LOG_FD 2>&1
}
])

# FG_PROG_CC_C11
# --------------
# After AC_PROG_CC: require C11 (autoconf >= 2.70 already switched $CC to
# C11 mode where the compiler needs an option for it).
AC_DEFUN([FG_PROG_CC_C11], [
AC_REQUIRE([AC_PROG_CC])
AS_IF([test "x$ac_cv_prog_cc_c11" = xno],
  [AC_MSG_ERROR([fusegen needs a C11 compiler; $CC is not one])])
])

# FG_CHECK_WARN_CFLAGS
# --------------------
# --disable-werror drops -Werror (for compilers newer than the code).
# AC_SUBSTs FG_WARN_CFLAGS; the local.mk fragments put it in their *_CFLAGS.
# It never goes into the user's CFLAGS.
AC_DEFUN([FG_CHECK_WARN_CFLAGS], [
AC_REQUIRE([FG_PROG_CC_C11])
AC_ARG_ENABLE([werror],
  [AS_HELP_STRING([--disable-werror],
    [do not turn warnings into errors in the generator and runtime])],
  [], [enable_werror=yes])
FG_WARN_CFLAGS="-Wall -Wextra"
AS_IF([test "x$enable_werror" != xno],
  [FG_WARN_CFLAGS="$FG_WARN_CFLAGS -Werror"])
FG_WARN_CFLAGS="$FG_WARN_CFLAGS -std=c11"
AC_CACHE_CHECK([whether $CC accepts $FG_WARN_CFLAGS], [fg_cv_warn_cflags], [
  fg_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS $FG_WARN_CFLAGS"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#if !defined __STDC_VERSION__ || __STDC_VERSION__ < 201112L
#error not C11
#endif
_Static_assert(sizeof(int) >= 2, "int is at least 16 bits");
]], [[return 0;]])],
    [fg_cv_warn_cflags=yes], [fg_cv_warn_cflags=no])
  CFLAGS=$fg_save_CFLAGS])
AS_IF([test "x$fg_cv_warn_cflags" != xyes],
  [AC_MSG_ERROR([$CC does not compile C11 with $FG_WARN_CFLAGS])])
AC_SUBST([FG_WARN_CFLAGS])
])

# FG_CHECK_PIC_CFLAGS
# -------------------
# The archives (libfusegen_cpu.a, the C parts of libfusegen_cuda.a) are
# linked into shared objects (Python extensions, plugins): their C code is
# compiled position-independent, as nvcc's host code already is
# (build-aux/device.mk).  AC_SUBSTs FG_PIC_CFLAGS (-fPIC when $CC takes it)
# and DL_LIBS (what dlopen needs, for the test that loads such an object).
AC_DEFUN([FG_CHECK_PIC_CFLAGS], [
AC_REQUIRE([AC_PROG_CC])
AC_CACHE_CHECK([whether $CC accepts -fPIC], [fg_cv_pic_cflags], [
  fg_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -fPIC"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[]], [[return 0;]])],
    [fg_cv_pic_cflags=yes], [fg_cv_pic_cflags=no])
  CFLAGS=$fg_save_CFLAGS])
FG_PIC_CFLAGS=
AS_IF([test "x$fg_cv_pic_cflags" = xyes], [FG_PIC_CFLAGS=-fPIC])
AC_SUBST([FG_PIC_CFLAGS])
fg_save_LIBS=$LIBS
LIBS=
AC_SEARCH_LIBS([dlopen], [dl], [fg_have_dlopen=yes], [fg_have_dlopen=no])
DL_LIBS=$LIBS
LIBS=$fg_save_LIBS
AC_SUBST([DL_LIBS])
AM_CONDITIONAL([HAVE_DLOPEN], [test "x$fg_have_dlopen" = xyes])
])

# FG_SANITIZERS
# -------------
# --enable-sanitizers: checks that $CC links with AddressSanitizer and
# UndefinedBehaviorSanitizer and sets FG_SANITIZE_CFLAGS. FG_APPLY_SANITIZERS
# (called after the toolkit checks) adds them to CFLAGS and LDFLAGS: host
# code only, never the nvcc/hipcc device compilation. float-cast-overflow
# is not part of "undefined" in GCC nor Clang: it is named so that a double
# converted to an int it cannot hold (a number from a plan) is caught too.
AC_DEFUN([FG_SANITIZERS], [
AC_REQUIRE([AC_PROG_CC])
AC_ARG_ENABLE([sanitizers],
  [AS_HELP_STRING([--enable-sanitizers],
    [build host code with -fsanitize=address,undefined,float-cast-overflow (for test builds)])],
  [], [enable_sanitizers=no])
FG_SANITIZE_CFLAGS=
AS_IF([test "x$enable_sanitizers" != xno], [
  enable_sanitizers=yes
  FG_SANITIZE_CFLAGS="-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer"
  AC_CACHE_CHECK([whether $CC links with $FG_SANITIZE_CFLAGS], [fg_cv_sanitizers], [
    fg_save_CFLAGS=$CFLAGS
    fg_save_LDFLAGS=$LDFLAGS
    CFLAGS="$CFLAGS $FG_SANITIZE_CFLAGS"
    LDFLAGS="$LDFLAGS $FG_SANITIZE_CFLAGS"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <stdlib.h>]],
                                    [[void *p = malloc(4); free(p); return 0;]])],
      [fg_cv_sanitizers=yes], [fg_cv_sanitizers=no])
    CFLAGS=$fg_save_CFLAGS
    LDFLAGS=$fg_save_LDFLAGS])
  AS_IF([test "x$fg_cv_sanitizers" != xyes],
    [AC_MSG_ERROR([--enable-sanitizers: $CC cannot link with $FG_SANITIZE_CFLAGS])])
])
AC_SUBST([FG_SANITIZE_CFLAGS])
])

AC_DEFUN([FG_APPLY_SANITIZERS], [
AC_REQUIRE([FG_SANITIZERS])
AS_IF([test -n "$FG_SANITIZE_CFLAGS"], [
  CFLAGS="$CFLAGS $FG_SANITIZE_CFLAGS"
  LDFLAGS="$LDFLAGS $FG_SANITIZE_CFLAGS"
])
])

# FG_PROG_GNU_M4
# --------------
# The generator runs GNU m4 with -P over templates/. M4 is precious; the
# command is also defined as FG_M4 in config.h.
AC_DEFUN([FG_PROG_GNU_M4], [
AC_ARG_VAR([M4], [GNU m4 command the generator runs over templates/])
AC_PATH_PROGS([M4], [gm4 gnum4 m4])
AS_IF([test -z "$M4"], [AC_MSG_ERROR([GNU m4 is required (the generator runs it)])])
AC_CACHE_CHECK([whether $M4 is GNU m4 and supports -P], [fg_cv_gnu_m4], [
  # The builtin's name is split so that autoconf does not take it for its own.
  fg_m4_define=m4; fg_m4_define="${fg_m4_define}_define"
  AS_IF([test "`echo "$fg_m4_define(fg_x, ok)fg_x" | $M4 -P 2>/dev/null`" = ok],
    [fg_cv_gnu_m4=yes], [fg_cv_gnu_m4=no])])
AS_IF([test "x$fg_cv_gnu_m4" != xyes],
  [AC_MSG_ERROR([$M4 is not GNU m4 (the generator runs m4 -P); set M4])])
AC_DEFINE_UNQUOTED([FG_M4], ["$M4"], [GNU m4 command the generator runs])
])

# FG_CHECK_FUZZER
# ---------------
# `make fuzz` builds the libFuzzer target tests/fuzz/fuzz_plan with clang.
# FUZZ_CC (precious; default: clang, then clang-19 ... clang-14 on PATH)
# must link a fuzz target with FUZZ_SANITIZE_CFLAGS; FUZZ_CC=no turns the
# fuzzer off. Sets FUZZ_CC and FUZZ_SANITIZE_CFLAGS, and the conditional
# HAVE_FUZZER; without it `make fuzz` says it is skipped and succeeds.
AC_DEFUN([FG_CHECK_FUZZER], [
AC_ARG_VAR([FUZZ_CC], [clang for the libFuzzer target of `make fuzz' (no: none)])
FUZZ_SANITIZE_CFLAGS="-fsanitize=fuzzer,address,undefined,float-cast-overflow -fno-sanitize-recover=all"
fg_have_fuzzer=no
fg_fuzz_why="no clang found (set FUZZ_CC)"
AS_IF([test "x$FUZZ_CC" = xno], [fg_fuzz_why="FUZZ_CC=no"; FUZZ_CC=],
  [test -z "$FUZZ_CC"],
  [AC_CHECK_PROGS([FUZZ_CC], [clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14])])
AS_IF([test -n "$FUZZ_CC"], [
  AC_CACHE_CHECK([whether $FUZZ_CC links a fuzz target with $FUZZ_SANITIZE_CFLAGS],
    [fg_cv_fuzzer], [
    fg_save_CC=$CC
    fg_save_CFLAGS=$CFLAGS
    fg_save_LDFLAGS=$LDFLAGS
    fg_save_LIBS=$LIBS
    CC=$FUZZ_CC
    CFLAGS="-g -O1 $FUZZ_SANITIZE_CFLAGS"
    LDFLAGS=
    LIBS=
    AC_LINK_IFELSE([AC_LANG_SOURCE([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return size > 0 && data[0] == 'x';
}]])], [fg_cv_fuzzer=yes], [fg_cv_fuzzer=no])
    CC=$fg_save_CC
    CFLAGS=$fg_save_CFLAGS
    LDFLAGS=$fg_save_LDFLAGS
    LIBS=$fg_save_LIBS])
  AS_IF([test "x$fg_cv_fuzzer" = xyes], [fg_have_fuzzer=yes],
    [fg_fuzz_why="$FUZZ_CC cannot link with $FUZZ_SANITIZE_CFLAGS"])
])
AC_SUBST([FUZZ_SANITIZE_CFLAGS])
AM_CONDITIONAL([HAVE_FUZZER], [test "x$fg_have_fuzzer" = xyes])
])
