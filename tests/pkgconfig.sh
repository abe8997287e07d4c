#!/bin/sh
# pkgconfig.sh - the .pc files of this build, read by pkg-config as a
# consumer reads them: fusegen-cpu names no GPU library; fusegen-cuda (when
# CUDA was built) requires fusegen-cpu and puts its own archive first;
# PKG_CONFIG_SYSROOT_DIR moves the install paths but not the CUDA toolkit's
# folder; fusegen is the umbrella of what was built; and the link lines
# they give link (and run) programs against this build tree's archives.
# Skips (77) without pkg-config.
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
if ! command -v "$PKG_CONFIG" >/dev/null 2>&1; then
  echo "pkgconfig: $PKG_CONFIG not found: skipped"
  exit 77
fi
srcdir=${srcdir:-.}
b=`cd "${top_builddir:-.}" && pwd`
tmp=`mktemp -d "${TMPDIR:-/tmp}/fg-pc.XXXXXX"` || exit 1
trap 'rm -rf "$tmp"' 0 1 2 15
fail=0
bad() { echo "pkgconfig: FAIL: $*"; fail=1; }
# Only this build's .pc files, none of the system's.
pc() { PKG_CONFIG_PATH="$b" PKG_CONFIG_LIBDIR="$tmp/none" "$PKG_CONFIG" "$@"; }

for m in fusegen fusegen-cpu; do
  pc --exists "$m" || bad "pkg-config does not find $m in $b"
done
v=`pc --modversion fusegen-cpu`
want=`"$b/fusegen" --version | sed -n '1s/.* \([0-9][0-9.]*\)$/\1/p'`
test "x$v" = "x$want" || bad "fusegen-cpu version '$v', fusegen --version says '$want'"

cpu=`pc --libs fusegen-cpu`
echo "fusegen-cpu: $cpu"
case " $cpu " in *" -lfusegen_cpu "*) ;; *) bad "fusegen-cpu lacks -lfusegen_cpu";; esac
case "$cpu" in *cudart*|*fusegen_cuda*|*amdhip*) bad "fusegen-cpu names a GPU library";; esac

if test "x$FG_HAVE_CUDA" = x1; then
  umbrella=fusegen-cuda
  cuda=`pc --libs fusegen-cuda`
  echo "fusegen-cuda: $cuda"
  # the CUDA archive, then the CPU one whose runtime it calls
  first=`echo " $cuda " | sed -n 's/.* -lfusegen_cuda .* -lfusegen_cpu .*/ok/p'`
  test "x$first" = xok || bad "fusegen-cuda: -lfusegen_cuda must come before -lfusegen_cpu"
  case " $cuda " in *" -lcudart "*) ;; *) bad "fusegen-cuda lacks -lcudart";; esac
  # The sysroot prefixes the install paths (plain -L) and nothing else.
  sys=`PKG_CONFIG_SYSROOT_DIR=/x pc --libs fusegen-cuda`
  echo "fusegen-cuda, PKG_CONFIG_SYSROOT_DIR=/x: $sys"
  unmoved=
  for f in $sys; do
    case $f in
      -L/x/*) unmoved="$unmoved -L${f#-L/x}";;
      -L*) bad "sysroot: $f is not under /x"; unmoved="$unmoved $f";;
      */x/*) bad "sysroot: $f was rewritten"; unmoved="$unmoved $f";;
      *) unmoved="$unmoved $f";;
    esac
  done
  test "x`echo $unmoved`" = "x`echo $cuda`" ||
    bad "with the sysroot removed, '$unmoved' differs from '$cuda'"
  if test -n "$FG_CUDA_LDFLAGS"; then
    for f in $FG_CUDA_LDFLAGS; do
      case " $sys " in
        *" -Wl,$f "*) ;;
        *) bad "fusegen-cuda under a sysroot lacks the toolkit's -Wl,$f";;
      esac
    done
  fi
else
  umbrella=fusegen-cpu
  pc --exists fusegen-cuda 2>/dev/null && bad "fusegen-cuda.pc exists in a build without CUDA"
  case "`pc --libs fusegen`" in *fusegen_cuda*|*cudart*) bad "fusegen names CUDA without a CUDA build";; esac
fi
if test "x$FG_HAVE_HIP" = x1; then
  if test "$umbrella" = fusegen-cpu; then umbrella=fusegen-hip; else umbrella="$umbrella fusegen-hip"; fi
  hip=`pc --libs fusegen-hip`
  echo "fusegen-hip: $hip"
  first=`echo " $hip " | sed -n 's/.* -lfusegen_hip .* -lfusegen_cpu .*/ok/p'`
  test "x$first" = xok || bad "fusegen-hip: -lfusegen_hip must come before -lfusegen_cpu"
  case " $hip " in *" -lamdhip64 "*) ;; *) bad "fusegen-hip lacks -lamdhip64";; esac
else
  pc --exists fusegen-hip 2>/dev/null && bad "fusegen-hip.pc exists in a build without HIP"
  case "`pc --libs fusegen`" in *fusegen_hip*|*amdhip*) bad "fusegen names HIP without a HIP build";; esac
fi
test "x`pc --libs fusegen`" = "x`pc --libs $umbrella`" ||
  bad "fusegen's libs are not $umbrella's"
test "x`pc --cflags fusegen`" = "x`pc --cflags $umbrella`" ||
  bad "fusegen's cflags are not $umbrella's"

# The link lines, with libdir pointed at this build tree: a CPU program
# built from fusegen-cpu alone runs a softmax and checks one row.
if test -z "$FG_CC"; then
  echo "pkgconfig: FG_CC not set: the link lines are not tried"
else
  cat > "$tmp/cpu.c" <<'EOC'
#include <math.h>
#include <stdio.h>
#include "fusegen_softmax.h"
int main(void)
{
    float x[6] = {1, 2, 3, 0, 0, 0}, y[6] = {0};
    fg_softmax_args a = {0};
    a.X = fg_tensor_dense(x, FG_F32, 2, (int64_t[]){2, 3});
    a.Y = fg_tensor_dense(y, FG_F32, 2, (int64_t[]){2, 3});
    if (fg_softmax_cpu(&a) != FG_OK) {
        fprintf(stderr, "%s\n", fg_last_error());
        return 1;
    }
    double s = exp(1.0) + exp(2.0) + exp(3.0);
    for (int i = 0; i < 3; i++)
        if (fabs(y[i] - exp(i + 1.0) / s) > 1e-6 || fabs(y[3 + i] - 1.0 / 3) > 1e-6)
            return 1;
    return 0;
}
EOC
  inc="-I$srcdir/runtime -I$srcdir/generated"
  if $FG_CC $FG_CFLAGS $inc `pc --cflags fusegen-cpu` -o "$tmp/cpu" "$tmp/cpu.c" $FG_LDFLAGS \
       `pc --define-variable=libdir="$b" --libs fusegen-cpu`; then
    "$tmp/cpu" || bad "the program linked from fusegen-cpu's Libs gives a wrong softmax"
  else
    bad "a program does not link with fusegen-cpu's Libs"
  fi
  if test "x$FG_HAVE_CUDA" = x1; then
    # linked, and run where the call needs no device: the entry refuses NULL
    cat > "$tmp/cuda.c" <<'EOC'
#include "fusegen_causal.h"
int main(void)
{
    return fg_causal(NULL, NULL) == FG_ERR_NULL ? 0 : 1;
}
EOC
    if $FG_CC $FG_CFLAGS $inc `pc --cflags fusegen-cuda` -o "$tmp/cuda" "$tmp/cuda.c" $FG_LDFLAGS \
         `pc --define-variable=libdir="$b" --libs fusegen-cuda`; then
      "$tmp/cuda" || bad "the program linked from fusegen-cuda's Libs did not refuse NULL"
    else
      bad "a program does not link with fusegen-cuda's Libs"
    fi
  fi
  if test "x$FG_HAVE_HIP" = x1; then
    # linked, and run where the call needs no device: the entry refuses NULL
    cat > "$tmp/hip.c" <<'EOC'
#include "fusegen_causal.h"
int main(void)
{
    return fg_causal_hip(NULL, NULL) == FG_ERR_NULL ? 0 : 1;
}
EOC
    if $FG_CC $FG_CFLAGS $inc `pc --cflags fusegen-hip` -o "$tmp/hip" "$tmp/hip.c" $FG_LDFLAGS \
         `pc --define-variable=libdir="$b" --libs fusegen-hip`; then
      "$tmp/hip" || bad "the program linked from fusegen-hip's Libs did not refuse NULL"
    else
      bad "a program does not link with fusegen-hip's Libs"
    fi
  fi
fi
test $fail = 0 && echo "pkgconfig: fusegen-cpu, fusegen ($umbrella) read and linked as built"
exit $fail
