# generator/local.mk - the generator, its folders in pipeline order
# (generator/README.md): util, front, middle, back.  Everything but main.c
# goes into a private library that the unit tests link.

noinst_LIBRARIES += generator/libfggen.a
generator_libfggen_a_SOURCES = \
	generator/generator.h \
	generator/util/arena.c \
	generator/util/diag.c \
	generator/front/lex.c \
	generator/front/expr.c \
	generator/front/parse_internal.h \
	generator/front/parse.c \
	generator/front/parse_expr.c \
	generator/front/dump.c \
	generator/front/dump_ir.c \
	generator/front/check_internal.h \
	generator/front/check.c \
	generator/front/check_names.c \
	generator/front/check_order.c \
	generator/front/check_aux.c \
	generator/middle/algebra_internal.h \
	generator/middle/algebra.c \
	generator/middle/verify.c \
	generator/middle/powsum.c \
	generator/middle/masks.c \
	generator/middle/mask_emit.c \
	generator/middle/fuse.c \
	generator/middle/rules.c \
	generator/middle/variants.c \
	generator/middle/tune.c \
	generator/middle/wisdom.c \
	generator/middle/kernel_internal.h \
	generator/middle/kernel.c \
	generator/middle/kernel_score.c \
	generator/middle/kernel_chains.c \
	generator/middle/kernel_rows.c \
	generator/middle/kernel_sched.c \
	generator/middle/dump_kernel.c \
	generator/middle/interp.c \
	generator/back/print.c \
	generator/back/defs.c \
	generator/back/common.c \
	generator/back/c/lower_c_internal.h \
	generator/back/c/lower_c.c \
	generator/back/c/validate_c.c \
	generator/back/cuda/lower_cuda_internal.h \
	generator/back/cuda/lower_cuda.c \
	generator/back/cuda/weight_cuda.c \
	generator/back/cuda/score_cuda.c \
	generator/back/cuda/configs.c \
	generator/back/cuda/tuned.c \
	generator/back/cuda/lower_rows.c \
	generator/back/hip/lower_hip.c \
	generator/back/backends.c \
	generator/back/emit.c \
	$(NULL)
generator_libfggen_a_CFLAGS = $(FG_WARN_CFLAGS) $(AM_CFLAGS)
generator_libfggen_a_CPPFLAGS = -I$(srcdir)/generator $(AM_CPPFLAGS) \
	-DFG_TEMPLATES_DIR='"$(pkgdatadir)/templates"'

bin_PROGRAMS += fusegen
fusegen_SOURCES = generator/main.c
fusegen_CFLAGS = $(FG_WARN_CFLAGS) $(AM_CFLAGS)
# The source tree's templates: the fallback of a fusegen run from its build
# tree before `make install` (main.c, default_templates).
fusegen_CPPFLAGS = $(generator_libfggen_a_CPPFLAGS) \
	-DFG_SOURCE_TEMPLATES_DIR='"$(abs_top_srcdir)/templates"' \
	-DFG_WISDOM_DIR='"$(pkgdatadir)/wisdom"' \
	-DFG_SOURCE_WISDOM_DIR='"$(abs_top_srcdir)/wisdom"'
fusegen_LDADD = generator/libfggen.a -lm

EXTRA_DIST += generator/README.md
