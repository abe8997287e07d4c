# tests/front.mk - the front end: arena, diagnostics, lexer, parser and
# dump_ast (generator/util/arena.c, diag.c, front/lex.c, expr.c, parse.c, dump.c), and
# the command line's golden diagnostics.  Paths are relative to the top of
# the tree.

# CMocka programs (Makefile.am adds CMOCKA_TESTS to check_PROGRAMS and TESTS
# when configure found cmocka).  test_parse reads plans/*.fp via $srcdir.
CMOCKA_TESTS += tests/test_diag tests/test_lex tests/test_parse
tests_test_diag_SOURCES = tests/test_diag.c
tests_test_diag_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_diag_CPPFLAGS = -I$(srcdir)/generator
tests_test_diag_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm

tests_test_lex_SOURCES = tests/test_lex.c
tests_test_lex_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_lex_CPPFLAGS = -I$(srcdir)/generator
tests_test_lex_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm

tests_test_parse_SOURCES = tests/test_parse.c
tests_test_parse_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_parse_CPPFLAGS = -I$(srcdir)/generator
tests_test_parse_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm

# Golden diagnostics: for every tests/bad/NAME.fp, `fusegen --check NAME.fp`
# run inside tests/bad must exit 1 and print exactly NAME.err on stderr.
# Syntax errors are syn-*, the checker's sem-*, fusion's fuse-*.
TESTS += tests/run-bad.sh
EXTRA_DIST += tests/run-bad.sh tests/bad

# The command line: options, exit statuses, dumps, and no files written by
# --check or by a run with an error.
TESTS += tests/run-cli.sh
EXTRA_DIST += tests/run-cli.sh
