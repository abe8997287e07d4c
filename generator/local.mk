# generator/local.mk - the generator: one file per phase (see generator/fusegen.h).
# Everything but main.c goes into a private library that the unit tests link.

noinst_LIBRARIES += generator/libfggen.a
generator_libfggen_a_SOURCES = \
	generator/fusegen.h \
	generator/arena.c \
	generator/diag.c \
	generator/lex.c \
	generator/expr.c \
	generator/parse.c \
	generator/dump.c \
	generator/dump_ir.c \
	generator/check.c \
	generator/check_order.c \
	generator/check_internal.h \
	generator/algebra.c \
	generator/verify.c \
	generator/algebra_internal.h \
	generator/masks.c \
	generator/fuse.c \
	generator/interp.c \
	generator/rules.c \
	generator/kernel.c \
	generator/dump_kernel.c \
	generator/print.c \
	generator/defs.c \
	generator/common.c \
	generator/lower_c.c \
	generator/lower_cuda.c \
	generator/variants.c \
	generator/cuda_configs.c \
	generator/backends.c \
	generator/emit.c \
	$(NULL)
generator_libfggen_a_CFLAGS = $(FG_WARN_CFLAGS) $(AM_CFLAGS)
generator_libfggen_a_CPPFLAGS = -I$(srcdir)/generator $(AM_CPPFLAGS) \
	-DFG_TEMPLATES_DIR='"$(pkgdatadir)/templates"'

bin_PROGRAMS += fusegen
fusegen_SOURCES = generator/main.c
fusegen_CFLAGS = $(FG_WARN_CFLAGS) $(AM_CFLAGS)
fusegen_CPPFLAGS = $(generator_libfggen_a_CPPFLAGS)
fusegen_LDADD = generator/libfggen.a -lm
