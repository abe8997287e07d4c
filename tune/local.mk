# tune/local.mk - fusegen-tune, the ahead-of-time tuner (docs/tuning.md),
# installed with the generator.  It links the generator's library (plans,
# tune blocks, the wisdom reader) and, with CUDA, the CUDA runtime; without
# CUDA it only describes the search (--dry-run).  At tuning time it runs
# fusegen --tuning and nvcc to build each plan's tuning library, so the
# runtime sources are installed beside the templates.

bin_PROGRAMS += fusegen-tune
fusegen_tune_SOURCES = tune/fusegen-tune.c tune/sweep.c tune/tune.h
EXTRA_DIST += tune/tune_gpu.c tune/carry-wisdom.sh tune/merge-wisdom.sh
fusegen_tune_CFLAGS = $(FG_WARN_CFLAGS) $(AM_CFLAGS)
fusegen_tune_CPPFLAGS = -I$(srcdir)/generator -I$(srcdir)/runtime -I$(srcdir)/tune \
	$(AM_CPPFLAGS) \
	-DFG_TUNE_SRCDIR='"$(abs_top_srcdir)"' \
	-DFG_TUNE_FUSEGEN='"$(abs_top_builddir)/fusegen"' \
	-DFG_TUNE_NVCC='"$(NVCC)"' \
	-DFG_TUNE_CC='"$(CC)"'
fusegen_tune_LDADD = generator/libfggen.a libfusegen_cpu.a
if HAVE_CUDA
fusegen_tune_CPPFLAGS += $(CUDA_CPPFLAGS)
fusegen_tune_LDADD += $(CUDA_LDFLAGS) $(CUDA_LIBS)
endif
fusegen_tune_LDADD += -ldl -lm

# The system wisdom (fusegen reads *.wisdom here when generating).
wisdomdir = $(pkgdatadir)/wisdom
dist_wisdom_DATA = wisdom/nvidia-h100-80gb-hbm3.wisdom wisdom/nvidia-h200.wisdom
EXTRA_DIST += wisdom/README.md

# The tuner's dry run, the wisdom reader's tests and the merge of a partial
# retune need no GPU.
TESTS += tune/dry-run.sh tune/merge-wisdom-test.sh
EXTRA_DIST += tune/dry-run.sh tune/merge-wisdom-test.sh
