# tests/check.mk - the checker (generator/front/check.c, check_order.c) and the IR dump
# (generator/front/dump_ir.c).  Paths are relative to the top of the tree.

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
	tests/golden/ir/base2.ir \
	tests/golden/ir/causal.ir \
	tests/golden/ir/causal_decode.ir \
	tests/golden/ir/docmask.ir \
	tests/golden/ir/diffattn.ir \
	tests/golden/ir/maxlogit.ir \
	tests/golden/ir/fa1.ir \
	tests/golden/ir/global.ir \
	tests/golden/ir/gqa.ir \
	tests/golden/ir/gqa_decode.ir \
	tests/golden/ir/layernorm.ir \
	tests/golden/ir/logsoftmax.ir \
	tests/golden/ir/logsumexp.ir \
	tests/golden/ir/moments.ir \
	tests/golden/ir/prefixlm.ir \
	tests/golden/ir/relbias.ir \
	tests/golden/ir/rmsnorm.ir \
	tests/golden/ir/rowmax.ir \
	tests/golden/ir/siggate.ir \
	tests/golden/ir/sigmoid.ir \
	tests/golden/ir/sinkwindow.ir \
	tests/golden/ir/softcap.ir \
	tests/golden/ir/softcap_decode.ir \
	tests/golden/ir/softmax.ir \
	tests/golden/ir/window.ir \
	$(NULL)

# Semantic-error pairs for tests/run-bad.sh: NAME.fp and the exact stderr
# of `fusegen --check NAME.fp` in NAME.err.
EXTRA_DIST += \
	tests/bad/sem-axis-inconsistent.err \
	tests/bad/sem-axis-inconsistent.fp \
	tests/bad/sem-cycle.err \
	tests/bad/sem-cycle.fp \
	tests/bad/sem-duplicate.err \
	tests/bad/sem-duplicate.fp \
	tests/bad/sem-index-count.err \
	tests/bad/sem-index-count.fp \
	tests/bad/sem-output-undefined.err \
	tests/bad/sem-output-undefined.fp \
	tests/bad/sem-reduce-axis-missing.err \
	tests/bad/sem-reduce-axis-missing.fp \
	tests/bad/sem-several.err \
	tests/bad/sem-several.fp \
	tests/bad/sem-stray-axis.err \
	tests/bad/sem-stray-axis.fp \
	tests/bad/sem-type.err \
	tests/bad/sem-type.fp \
	tests/bad/sem-unknown-identifier.err \
	tests/bad/sem-unknown-identifier.fp \
	tests/bad/sem-written-out.err \
	tests/bad/sem-written-out.fp \
	$(NULL)
