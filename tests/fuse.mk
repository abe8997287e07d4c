# tests/fuse.mk - fusion (generator/middle/fuse.c) and masks (generator/middle/masks.c).

# CMocka programs (Makefile.am adds CMOCKA_TESTS to check_PROGRAMS and TESTS
# when configure found cmocka, and reports one SKIP otherwise).
CMOCKA_TESTS += tests/test_masks
tests_test_masks_SOURCES = tests/test_masks.c
tests_test_masks_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_masks_CPPFLAGS = -I$(srcdir)/generator
tests_test_masks_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm

CMOCKA_TESTS += tests/test_fuse
tests_test_fuse_SOURCES = tests/test_fuse.c
tests_test_fuse_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_fuse_CPPFLAGS = -I$(srcdir)/generator
tests_test_fuse_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm

# Data the fusion test reads through $srcdir (besides plans/, distributed by
# plans/local.mk): the test-only plans, the golden --dump=fused of each,
# and the rejected plans with their exact messages (tests/run-bad.sh also
# runs the latter).
EXTRA_DIST += \
	tests/plans/maxpow.fp tests/plans/shiftsum.fp tests/plans/masked_rowsum.fp tests/plans/maxshift.fp \
	tests/plans/prefix_lm.fp tests/plans/keylin.fp tests/plans/sharedoc.fp tests/plans/headdoc.fp tests/plans/kvsum.fp tests/plans/chains.fp tests/plans/wsoftmax.fp \
	tests/plans/varexp.fp tests/golden/fused/varexp.txt \
	tests/plans/minexp.fp tests/golden/fused/minexp.txt \
	tests/plans/rowbias.fp tests/golden/fused/rowbias.txt \
	tests/plans/twochains.fp tests/golden/fused/twochains.txt \
	tests/plans/softmean.fp tests/golden/fused/softmean.txt \
	tests/golden/fused/keylin.txt tests/golden/fused/sharedoc.txt tests/golden/fused/headdoc.txt \
	tests/golden/fused/alibi.txt tests/golden/fused/alibi_decode.txt \
	tests/golden/fused/causal.txt tests/golden/fused/causal_decode.txt \
	tests/golden/fused/docmask.txt tests/golden/fused/relbias.txt \
	tests/golden/fused/diffattn.txt tests/golden/fused/maxlogit.txt tests/golden/fused/wsoftmax.txt \
	tests/golden/fused/fa1.txt tests/golden/fused/global.txt \
	tests/golden/fused/gqa.txt tests/golden/fused/gqa_decode.txt \
	tests/golden/fused/kvsum.txt tests/golden/fused/layernorm.txt \
	tests/golden/fused/chains.txt \
	tests/golden/fused/maxpow.txt tests/golden/fused/shiftsum.txt \
	tests/golden/fused/moments.txt \
	tests/golden/fused/rmsnorm.txt tests/golden/fused/sigmoid.txt \
	tests/golden/fused/siggate.txt \
	tests/golden/fused/logsoftmax.txt tests/golden/fused/logsumexp.txt \
	tests/golden/fused/masked_rowsum.txt \
	tests/golden/fused/maxshift.txt tests/golden/fused/prefix_lm.txt \
	tests/golden/fused/softcap.txt tests/golden/fused/softcap_decode.txt \
	tests/golden/fused/softmax.txt tests/golden/fused/window.txt \
	tests/golden/fused/base2.txt tests/golden/fused/rowmax.txt \
	tests/golden/fused/prefixlm.txt tests/golden/fused/sinkwindow.txt \
	tests/bad/fuse-max-product.fp tests/bad/fuse-max-product.err \
	tests/bad/fuse-several.fp tests/bad/fuse-several.err \
	tests/bad/fuse-stale-output.fp tests/bad/fuse-stale-output.err \
	tests/bad/fuse-tanh.fp tests/bad/fuse-tanh.err \
	tests/bad/fuse-two-axes.fp tests/bad/fuse-two-axes.err \
	tests/bad/fuse-power.fp tests/bad/fuse-power.err \
	tests/bad/fuse-masked-ratio.fp tests/bad/fuse-masked-ratio.err \
	$(NULL)

# The kernel model (generator/middle/kernel.c): fusegen --dump=kernel of every plan
# against its golden file.
TESTS += tests/kernel-golden.sh
EXTRA_DIST += tests/kernel-golden.sh \
	tests/golden/kernel/alibi.txt \
	tests/golden/kernel/alibi_decode.txt \
	tests/golden/kernel/base2.txt \
	tests/golden/kernel/causal.txt \
	tests/golden/kernel/causal_decode.txt \
	tests/golden/kernel/docmask.txt \
	tests/golden/kernel/diffattn.txt \
	tests/golden/kernel/maxlogit.txt \
	tests/golden/kernel/fa1.txt \
	tests/golden/kernel/global.txt \
	tests/golden/kernel/gqa.txt \
	tests/golden/kernel/gqa_decode.txt \
	tests/golden/kernel/keylin.txt \
	tests/golden/kernel/kvsum.txt \
	tests/golden/kernel/chains.txt tests/golden/kernel/wsoftmax.txt \
	tests/golden/kernel/varexp.txt tests/golden/kernel/minexp.txt \
	tests/golden/kernel/rowbias.txt tests/golden/kernel/twochains.txt \
	tests/golden/kernel/softmean.txt \
	tests/golden/kernel/maxpow.txt \
	tests/golden/kernel/moments.txt \
	tests/golden/kernel/sharedoc.txt \
	tests/golden/kernel/headdoc.txt \
	tests/golden/kernel/shiftsum.txt \
	tests/golden/kernel/layernorm.txt \
	tests/golden/kernel/logsoftmax.txt \
	tests/golden/kernel/logsumexp.txt \
	tests/golden/kernel/masked_rowsum.txt \
	tests/golden/kernel/maxshift.txt \
	tests/golden/kernel/prefix_lm.txt \
	tests/golden/kernel/prefixlm.txt \
	tests/golden/kernel/relbias.txt \
	tests/golden/kernel/rmsnorm.txt \
	tests/golden/kernel/rowmax.txt \
	tests/golden/kernel/siggate.txt \
	tests/golden/kernel/sigmoid.txt \
	tests/golden/kernel/sinkwindow.txt \
	tests/golden/kernel/softcap.txt \
	tests/golden/kernel/softcap_decode.txt \
	tests/golden/kernel/softmax.txt \
	tests/golden/kernel/window.txt \
	$(NULL)
