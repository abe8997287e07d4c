# tests/interp.mk - the reference interpreter and the runtime library.

# CMocka programs (Makefile.am adds CMOCKA_TESTS to check_PROGRAMS and TESTS
# when configure found cmocka, and reports one SKIP otherwise).
CMOCKA_TESTS += tests/test_interp tests/test_runtime
tests_test_interp_SOURCES = tests/test_interp.c
tests_test_interp_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_interp_CPPFLAGS = -I$(srcdir)/generator
tests_test_interp_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm

tests_test_runtime_SOURCES = tests/test_runtime.c
tests_test_runtime_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_runtime_CPPFLAGS = -I$(srcdir)/runtime
tests_test_runtime_LDADD = runtime/libfgrt.a $(FG_TEST_LIBS) -lpthread -lm

# The public header from strict C11, linked against the runtime alone.
check_PROGRAMS += tests/c_api
TESTS += tests/c_api
tests_c_api_SOURCES = tests/c_api.c
tests_c_api_CFLAGS = $(FG_WARN_CFLAGS) -pedantic
tests_c_api_CPPFLAGS = -I$(srcdir)/runtime
tests_c_api_LDADD = runtime/libfgrt.a

# The public and internal headers from C++.  configure has no AC_PROG_CXX, so
# automake cannot build a .cc source: this rule compiles it with $(CXX) (make's
# default when configure sets none) and, when there is no C++ compiler,
# installs a stand-in that reports SKIP (exit 77).
check_SCRIPTS += tests/cxx_api
TESTS += tests/cxx_api
CLEANFILES += tests/cxx_api
EXTRA_DIST += tests/cxx_api.cc
tests/cxx_api: $(srcdir)/tests/cxx_api.cc $(srcdir)/runtime/fusegen.h \
		$(srcdir)/runtime/fusegen_internal.h runtime/libfgrt.a
	$(AM_V_GEN)$(MKDIR_P) tests && \
	if $(CXX) --version >/dev/null 2>&1; then \
	  $(CXX) -std=c++11 -Wall -Wextra -Werror -pedantic -I$(srcdir)/runtime \
	    $(CPPFLAGS) $(CXXFLAGS) $(LDFLAGS) -o $@ $(srcdir)/tests/cxx_api.cc \
	    runtime/libfgrt.a $(LIBS); \
	else \
	  { echo '#!/bin/sh'; echo 'echo "no C++ compiler ($(CXX)): skipped"'; \
	    echo 'exit 77'; } > $@-t && chmod +x $@-t && mv -f $@-t $@; \
	fi

# Plans the interpreter test reads (through $srcdir).
EXTRA_DIST += \
	plans/global.fp plans/causal.fp plans/gqa.fp plans/alibi.fp \
	plans/softcap.fp plans/window.fp plans/softmax.fp \
	plans/logsoftmax.fp plans/logsumexp.fp \
	plans/docmask.fp plans/relbias.fp plans/sigmoid.fp \
	$(NULL)
