# tests/hip.mk - the HIP backend without an AMD GPU: the wave-level maps of
# the CDNA skeleton (templates/hip/cdna/layout.h) on the host against an
# emulation of the MFMA instructions (test_cdna_layout, always), and every
# generated .hip compiled for every configured architecture with the
# compiler's resource report: a warning, scratch (spills) or LDS over 64 KB
# fails (hip-compile.sh; SKIP only when configure found no HIP compiler).
CMOCKA_TESTS += tests/test_cdna_layout
tests_test_cdna_layout_SOURCES = tests/test_cdna_layout.c
tests_test_cdna_layout_CFLAGS = $(FG_TEST_CFLAGS)
tests_test_cdna_layout_CPPFLAGS = -I$(srcdir)/templates/hip/cdna $(AM_CPPFLAGS)
tests_test_cdna_layout_LDADD = $(FG_TEST_LIBS) -lm

# The HIP dialect's plan_pow (templates/hip/plan_math.hpp) on the host against
# powf; built by a rule as tests/cxx_api is (configure has no AC_PROG_CXX).
check_SCRIPTS += tests/hip_plan_math
TESTS += tests/hip_plan_math
CLEANFILES += tests/hip_plan_math
EXTRA_DIST += tests/hip_plan_math.cc
tests/hip_plan_math: $(srcdir)/tests/hip_plan_math.cc $(srcdir)/templates/hip/plan_math.hpp
	$(AM_V_GEN)$(MKDIR_P) tests && \
	if $(CXX) --version >/dev/null 2>&1; then \
	  $(CXX) -std=c++17 -Wall -Wextra -Werror -I$(srcdir)/templates/hip \
	    $(CPPFLAGS) $(CXXFLAGS) $(LDFLAGS) -o $@ $(srcdir)/tests/hip_plan_math.cc -lm; \
	else \
	  { echo '#!/bin/sh'; echo 'echo "no C++ compiler ($(CXX)): skipped"'; \
	    echo 'exit 77'; } > $@-t && chmod +x $@-t && mv -f $@-t $@; \
	fi

if HAVE_HIP
FG_TEST_HAVE_HIP = 1
else
FG_TEST_HAVE_HIP = 0
endif
AM_TESTS_ENVIRONMENT += \
	FG_HAVE_HIP='$(FG_TEST_HAVE_HIP)'; HIPCC='$(HIPCC)'; HIP_ARCHS='$(HIP_ARCHS)'; \
	HIP_OFFLOAD='$(HIP_OFFLOAD)'; FG_HIP_KERNEL_FILES='$(FG_HIP_KERNEL_FILES)'; \
	export FG_HAVE_HIP HIPCC HIP_ARCHS HIP_OFFLOAD FG_HIP_KERNEL_FILES;
TESTS += tests/hip-compile.sh
EXTRA_DIST += tests/hip-compile.sh
