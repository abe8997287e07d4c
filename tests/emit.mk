# tests/emit.mk - emission (m4 interface, files of a run), the CPU numerics
# harness over the generated registry, and the freshness of generated/.


CMOCKA_TESTS += tests/test_emit tests/test_cpu

tests_test_emit_SOURCES = tests/test_emit.c
tests_test_emit_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_emit_CPPFLAGS = -I$(srcdir)/generator
tests_test_emit_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm

# The interpreter behind plain types: the generator's header and the public
# runtime header cannot meet in one file.
noinst_LIBRARIES += tests/libcpuref.a
tests_libcpuref_a_SOURCES = tests/cpu_reference.c tests/cpu_reference.h
tests_libcpuref_a_CFLAGS = $(FG_WARN_CFLAGS) $(AM_CFLAGS)
tests_libcpuref_a_CPPFLAGS = -I$(srcdir)/generator $(AM_CPPFLAGS)

tests_test_cpu_SOURCES = tests/test_cpu.c
tests_test_cpu_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_cpu_CPPFLAGS = -I$(srcdir)/tests -I$(srcdir)/generated -I$(srcdir)/runtime
tests_test_cpu_LDADD = tests/libcpuref.a libfusegen_cpu.a generator/libfggen.a \
	$(FG_TEST_LIBS) -lm

TESTS += tests/freshness.sh
EXTRA_DIST += tests/freshness.sh

# Every m4 definition the generator writes is read by a template and listed
# in templates/README.md.
TESTS += tests/defs-used.sh
EXTRA_DIST += tests/defs-used.sh

# The generated C compiles under clang and gcc with -Wall -Wextra -Werror.
TESTS += tests/generated-warnings.sh
EXTRA_DIST += tests/generated-warnings.sh

# libfusegen_cpu.a is position-independent: linked whole into a shared
# object, which tests/shared_cpu dlopen()s and calls through its registry.
# (GNU ld's --whole-archive; a non-PIC archive fails this link.)
if HAVE_DLOPEN
check_PROGRAMS += tests/shared_cpu
TESTS += tests/shared_cpu
tests_shared_cpu_SOURCES = tests/shared_cpu.c
tests_shared_cpu_CFLAGS = $(FG_WARN_CFLAGS)
tests_shared_cpu_CPPFLAGS = -I$(srcdir)/generated -I$(srcdir)/runtime
tests_shared_cpu_LDADD = $(DL_LIBS) -lm
EXTRA_tests_shared_cpu_DEPENDENCIES = tests/libfgcpu_shared.so
tests/libfgcpu_shared.so: libfusegen_cpu.a
	$(AM_V_CCLD)$(CC) $(AM_CFLAGS) $(CFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -shared -o $@ \
	  -Wl,--whole-archive libfusegen_cpu.a -Wl,--no-whole-archive $(LIBS) -lm
CLEANFILES += tests/libfgcpu_shared.so
endif
