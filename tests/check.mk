# tests/check.mk - the checker (generator/check.c) and the IR dump
# (generator/dump_ir.c).  Paths are relative to the top of the tree.

# CMocka program (Makefile.am adds CMOCKA_TESTS to check_PROGRAMS and TESTS
# when configure found cmocka).  It reads plans/*.fp and compares dump_ir
# with tests/golden/ir/<plan>.ir; FG_UPDATE_GOLDEN=1 rewrites the goldens.
CMOCKA_TESTS += tests/test_check
tests_test_check_SOURCES = tests/test_check.c
tests_test_check_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_check_CPPFLAGS = -I$(srcdir)/generator
tests_test_check_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm

EXTRA_DIST += \
	tests/golden/ir/alibi.ir \
	tests/golden/ir/alibi_decode.ir \
	tests/golden/ir/causal.ir \
	tests/golden/ir/causal_decode.ir \
	tests/golden/ir/global.ir \
	tests/golden/ir/gqa.ir \
	tests/golden/ir/gqa_decode.ir \
	tests/golden/ir/logsoftmax.ir \
	tests/golden/ir/logsumexp.ir \
	tests/golden/ir/softcap.ir \
	tests/golden/ir/softcap_decode.ir \
	tests/golden/ir/softmax.ir \
	tests/golden/ir/window.ir \
	$(NULL)
