# tests/write.mk - writing a run's files (emit_run_finish in
# generator/emit.c): all or nothing, with rename() failing on purpose in
# the middle of a run.  Reads plans/ and templates/ via $srcdir.
CMOCKA_TESTS += tests/test_write
tests_test_write_SOURCES = tests/test_write.c
tests_test_write_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_write_CPPFLAGS = -I$(srcdir)/generator
tests_test_write_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm
