# tests/tune.mk - tuning (docs/tuning.md): the wisdom reader, the rows a
# plan takes and the runtime's dispatch lookup (CMocka, no GPU), and what a
# fusegen run does with stale, foreign and malformed wisdom files.

CMOCKA_TESTS += tests/test_wisdom
tests_test_wisdom_SOURCES = tests/test_wisdom.c
tests_test_wisdom_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_wisdom_CPPFLAGS = -I$(srcdir)/generator -I$(srcdir)/runtime
tests_test_wisdom_LDADD = generator/libfggen.a libfusegen_cpu.a $(FG_TEST_LIBS) -lm

TESTS += tests/wisdom.sh
EXTRA_DIST += tests/wisdom.sh
