# tests/cuda.mk - the CUDA backend: its lowering and configuration table
# (test_cuda), golden refusals of plans the attention kernels cannot express
# (cuda-refuse.sh), and a library that holds every generated kernel for
# every configured architecture and the runtime's host services once, which
# no generated source repeats (cuda-library.sh; SKIP only when configure
# found no nvcc), the generated mask hooks and configuration dispatch run on
# the host (cuda-hooks.sh, cuda-dispatch.sh), and the entry points'
# validation without a GPU (test_cuda_entry).

CMOCKA_TESTS += tests/test_cuda
tests_test_cuda_SOURCES = tests/test_cuda.c
tests_test_cuda_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_cuda_CPPFLAGS = -I$(srcdir)/generator
tests_test_cuda_LDADD = generator/libfggen.a $(FG_TEST_LIBS) -lm

# The entry points' validation, without a GPU (libfusegen_cuda.a, cudart).
if HAVE_CUDA
CMOCKA_TESTS += tests/test_cuda_entry
tests_test_cuda_entry_SOURCES = tests/test_cuda_entry.c
tests_test_cuda_entry_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_cuda_entry_CPPFLAGS = -I$(srcdir)/runtime -I$(srcdir)/generated $(CUDA_CPPFLAGS) \
	$(AM_CPPFLAGS)
tests_test_cuda_entry_LDADD = libfusegen_cuda.a libfusegen_cpu.a $(FG_TEST_LIBS) \
	$(CUDA_LDFLAGS) $(CUDA_LIBS) -lm
endif
EXTRA_DIST += tests/test_cuda_entry.c

if HAVE_CUDA
FG_TEST_HAVE_CUDA = 1
else
FG_TEST_HAVE_CUDA = 0
endif
AM_TESTS_ENVIRONMENT += \
	FG_HAVE_CUDA='$(FG_TEST_HAVE_CUDA)'; NVCC='$(NVCC)'; CUDA_ARCHS='$(CUDA_ARCHS)'; \
	FG_CUDA_KERNEL_FILES='$(FG_CUDA_KERNEL_FILES)'; CXX='$(CXX)'; CC='$(CC)'; \
	export FG_HAVE_CUDA NVCC CUDA_ARCHS FG_CUDA_KERNEL_FILES CXX CC;

# cuda-hooks.sh runs the generated mask hooks on the host, cuda-dispatch.sh
# the generated configuration dispatch, cuda-forced.sh the tuned lookup with
# $FUSEGEN_CONFIG, rows-hooks.sh the row kernels' hooks
# and entry against the CPU entries (no GPU, no nvcc).
TESTS += tests/cuda-refuse.sh tests/cuda-library.sh tests/cuda-hooks.sh tests/cuda-dispatch.sh \
	tests/cuda-forced.sh tests/rows-hooks.sh
EXTRA_DIST += \
	tests/cuda-refuse.sh \
	tests/cuda-library.sh \
	tests/cuda-hooks.sh \
	tests/cuda_hooks_sim.cc \
	tests/span_hooks_sim.cc \
	tests/bias_hooks_sim.cc \
	tests/keylin_hooks_sim.cc \
	tests/diag_hooks_sim.cc \
	tests/sim_device.h \
	tests/cuda-dispatch.sh \
	tests/cuda_dispatch_sim.cc \
	tests/cuda-forced.sh \
	tests/cuda_forced_sim.cc \
	tests/rows-hooks.sh \
	tests/rows_hooks_sim.cc \
	tests/cuda-bad/qscore.fp tests/cuda-bad/qscore.err tests/cuda-bad/qscore.warn \
	tests/cuda-bad/ninerows.fp tests/cuda-bad/ninerows.err tests/cuda-bad/ninerows.warn \
	tests/cuda-bad/chainscore.fp tests/cuda-bad/chainscore.err tests/cuda-bad/chainscore.warn \
	tests/cuda-bad/chainsplit.fp tests/cuda-bad/chainsplit.err tests/cuda-bad/chainsplit.warn \
	tests/cuda-bad/chaincoef.fp tests/cuda-bad/chaincoef.err tests/cuda-bad/chaincoef.warn \
	tests/cuda-bad/chaininline.fp tests/cuda-bad/chaininline.err tests/cuda-bad/chaininline.warn \
	tests/cuda-bad/rowhalf.fp tests/cuda-bad/rowhalf.err tests/cuda-bad/rowhalf.warn \
	tests/cuda-bad/sigsplit.fp tests/cuda-bad/sigsplit.err tests/cuda-bad/sigsplit.warn \
	tests/cuda-bad/sigfloor.fp tests/cuda-bad/sigfloor.err tests/cuda-bad/sigfloor.warn \
	tests/cuda-bad/sigread.fp tests/cuda-bad/sigread.err tests/cuda-bad/sigread.warn \
	tests/cuda-bad/normalised.fp tests/cuda-bad/normalised.err tests/cuda-bad/normalised.warn \
	tests/cuda-bad/rowgather.fp tests/cuda-bad/rowgather.err tests/cuda-bad/rowgather.warn \
	tests/cuda-bad/rowslope.fp tests/cuda-bad/rowslope.err tests/cuda-bad/rowslope.warn \
	tests/cuda-bad/ragged_rolling.fp tests/cuda-bad/ragged_rolling.err tests/cuda-bad/ragged_rolling.warn \
	$(NULL)

# One validation for every backend: each class of bad argument gets the same
# status from every entry of every plan in the build (the CPU entries always,
# the CUDA and HIP ones where they are built), without a GPU.
CMOCKA_TESTS += tests/test_refusals
tests_test_refusals_SOURCES = tests/test_refusals.c
tests_test_refusals_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_refusals_CPPFLAGS = -I$(srcdir)/runtime -I$(srcdir)/generated $(AM_CPPFLAGS)
tests_test_refusals_LDADD =
if HAVE_CUDA
tests_test_refusals_CPPFLAGS += -DFG_TEST_CUDA $(CUDA_CPPFLAGS)
tests_test_refusals_LDADD += libfusegen_cuda.a
endif
if HAVE_HIP
tests_test_refusals_CPPFLAGS += -DFG_TEST_HIP $(HIP_CPPFLAGS)
tests_test_refusals_LDADD += libfusegen_hip.a
endif
tests_test_refusals_LDADD += libfusegen_cpu.a $(FG_TEST_LIBS)
if HAVE_CUDA
tests_test_refusals_LDADD += $(CUDA_LDFLAGS) $(CUDA_LIBS)
endif
if HAVE_HIP
tests_test_refusals_LDADD += $(HIP_LDFLAGS) $(HIP_LIBS)
endif
tests_test_refusals_LDADD += -lm
