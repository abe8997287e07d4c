# runtime/local.mk - the runtime support library (status messages, last
# error, dtype tables, bf16/fp16 conversions, argument validation) that every
# generated library links.  libfusegen_cpu.a (and the GPU archives) take its
# object by listing runtime/fusegen.c in their own *_SOURCES; libfgrt.a is the
# runtime alone, for the tests.

noinst_LIBRARIES += runtime/libfgrt.a
runtime_libfgrt_a_SOURCES = \
	runtime/fusegen.c \
	runtime/fusegen_internal.h \
	$(NULL)
runtime_libfgrt_a_CFLAGS = $(FG_WARN_CFLAGS) $(AM_CFLAGS)
runtime_libfgrt_a_CPPFLAGS = -I$(srcdir)/runtime $(AM_CPPFLAGS)

include_HEADERS += runtime/fusegen.h
