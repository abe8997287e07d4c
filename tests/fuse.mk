# tests/fuse.mk - fusion (generator/fuse.c) and masks (generator/masks.c).

# CMocka programs (Makefile.am adds CMOCKA_TESTS to check_PROGRAMS and TESTS
# when configure found cmocka, and reports one SKIP otherwise).
CMOCKA_TESTS += tests/test_masks
tests_test_masks_SOURCES = tests/test_masks.c
tests_test_masks_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_masks_CPPFLAGS = -I$(srcdir)/generator
tests_test_masks_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm
