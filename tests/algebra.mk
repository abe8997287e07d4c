# tests/algebra.mk - the algebra (generator/algebra.c): expr_eval, derived
# corrections and their numeric check.  Paths are relative to the top of
# the tree.  Makefile.am adds CMOCKA_TESTS to check_PROGRAMS and TESTS when
# configure found cmocka (if HAVE_CMOCKA).  No data files: the test builds
# its plan and expressions by hand.
CMOCKA_TESTS += tests/test_algebra
tests_test_algebra_SOURCES = tests/test_algebra.c
tests_test_algebra_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_algebra_CPPFLAGS = -I$(srcdir)/generator
tests_test_algebra_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm
