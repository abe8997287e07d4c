# generated/local.mk - libfusegen_cpu.a from the committed generated sources.
# generated/kernels.mk (written by fusegen) lists them; nobody keeps that list
# by hand.  Paths are relative to the top of the tree.
include generated/kernels.mk

lib_LIBRARIES += libfusegen_cpu.a
libfusegen_cpu_a_SOURCES = \
	$(FG_CPU_KERNEL_FILES) \
	$(FG_KERNEL_HEADER_FILES) \
	runtime/fusegen.c \
	runtime/fusegen_internal.h \
	runtime/fusegen_registry.h \
	$(NULL)
libfusegen_cpu_a_CPPFLAGS = -I$(srcdir)/generated -I$(srcdir)/runtime $(AM_CPPFLAGS)
# Position-independent: the archive may go into a shared object.
libfusegen_cpu_a_CFLAGS = $(FG_PIC_CFLAGS) $(FG_WARN_CFLAGS) $(AM_CFLAGS)

include_HEADERS += $(FG_KERNEL_HEADER_FILES) runtime/fusegen_registry.h
EXTRA_DIST += generated/kernels.mk generated/stamp

# Regenerate $(srcdir)/generated when a plan or a template changes (files
# whose content is unchanged keep their mtime).  Order-only on the program:
# a fresh build of fusegen alone never rewrites the source tree; and a
# read-only source tree (`make distcheck`) is left as distributed.
FG_PLANS = $(dist_plans_DATA)
$(srcdir)/generated/stamp: $(FG_PLANS) $(FG_TEMPLATES) | fusegen$(EXEEXT)
	$(AM_V_GEN)if test -w $(srcdir)/generated; then \
	  fg_prog=`pwd`/fusegen$(EXEEXT) && cd $(srcdir) && \
	  "$$fg_prog" --templates=templates --m4='$(M4)' -o generated $(FG_PLANS) && \
	  touch generated/stamp; \
	else \
	  echo "generated/ is read-only here: kept as distributed"; \
	fi
all-local: $(srcdir)/generated/stamp

# libfusegen_cuda.a: the generated CUDA kernels (FG_CUDA_KERNEL_FILES, from
# kernels.mk), the generic CUDA registry and the host services they share
# (runtime/fusegen_cuda.cu: device facts, workspace pool, tickets; one copy,
# no kernels), compiled by nvcc for the --with-cuda-arch list
# (build-aux/device.mk).  Link it before libfusegen_cpu.a, which holds the
# runtime it calls.
if HAVE_CUDA
lib_LIBRARIES += libfusegen_cuda.a
libfusegen_cuda_a_SOURCES = \
	$(FG_CUDA_KERNEL_FILES) \
	$(FG_KERNEL_HEADER_FILES) \
	runtime/fusegen_cuda.cu \
	runtime/fusegen_cuda_internal.h \
	runtime/fusegen_internal.h \
	runtime/fusegen_registry.h \
	$(NULL)
libfusegen_cuda_a_CPPFLAGS = -I$(srcdir)/generated -I$(srcdir)/runtime $(AM_CPPFLAGS)
libfusegen_cuda_a_CFLAGS = $(FG_PIC_CFLAGS) $(FG_WARN_CFLAGS) $(AM_CFLAGS)
AM_NVCCFLAGS += -I$(srcdir)/generated -I$(srcdir)/runtime
endif
# libfusegen_hip.a: the generated HIP kernels (FG_HIP_KERNEL_FILES, from
# kernels.mk) for the --with-hip-arch list, the generic HIP registry and the
# runtime's HIP host services (runtime/fusegen_hip.hip: CU count, workspace
# pool, parameter copies).  Link it before libfusegen_cpu.a.
if HAVE_HIP
lib_LIBRARIES += libfusegen_hip.a
libfusegen_hip_a_SOURCES = \
	$(FG_HIP_KERNEL_FILES) \
	$(FG_KERNEL_HEADER_FILES) \
	runtime/fusegen_hip.hip \
	runtime/fusegen_hip_internal.h \
	runtime/fusegen_internal.h \
	runtime/fusegen_registry.h \
	$(NULL)
libfusegen_hip_a_CPPFLAGS = -I$(srcdir)/generated -I$(srcdir)/runtime $(HIP_CPPFLAGS) $(AM_CPPFLAGS)
libfusegen_hip_a_CFLAGS = $(FG_PIC_CFLAGS) $(FG_WARN_CFLAGS) $(AM_CFLAGS)
AM_HIPCCFLAGS += -I$(srcdir)/generated -I$(srcdir)/runtime
endif
EXTRA_DIST += runtime/fusegen_hip.hip runtime/fusegen_hip_internal.h
# The CUDA runtime sources travel without CUDA too (make dist in any build).
EXTRA_DIST += runtime/fusegen_cuda.cu runtime/fusegen_cuda_internal.h
