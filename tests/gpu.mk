# tests/gpu.mk - the GPU checks (`make check-gpu`): the CUDA kernels of
# every plan against its CPU entry (tests/gpu_check), every tuned
# configuration forced by name (tests/gpu-configs.sh), and the same under
# compute-sanitizer (tests/gpu-sanitize.sh).  Built by `make check` when CUDA
# is configured (so a CUDA build compile-checks them) but only run by
# `make check-gpu`.  No CMocka: the GPU machines have none.

if HAVE_CUDA
check_PROGRAMS += tests/gpu_check
check_SCRIPTS += tests/gpu-sanitize.sh tests/gpu-sm80.sh tests/gpu-nosummary.sh tests/gpu-headgroups.sh \
	tests/gpu-configs.sh
GPU_CHECKS += tests/gpu_check tests/gpu-sm80.sh tests/gpu-nosummary.sh tests/gpu-headgroups.sh \
	tests/gpu-configs.sh tests/gpu-sanitize.sh
tests_gpu_check_SOURCES = tests/gpu_check.c
tests_gpu_check_CFLAGS = $(FG_WARN_CFLAGS) -pthread $(AM_CFLAGS)
tests_gpu_check_CPPFLAGS = -I$(srcdir)/runtime -I$(srcdir)/generated $(CUDA_CPPFLAGS) \
	$(AM_CPPFLAGS)
tests_gpu_check_LDFLAGS = -pthread
tests_gpu_check_LDADD = libfusegen_cuda.a libfusegen_cpu.a $(CUDA_LDFLAGS) $(CUDA_LIBS) -lm
endif
EXTRA_DIST += tests/gpu_check.c tests/gpu-sanitize.sh tests/gpu-sm80.sh tests/gpu-nosummary.sh tests/gpu-headgroups.sh \
	tests/gpu-configs.sh tests/gpu-hopper.sh

# The HIP kernels of every plan against the CPU entries on an AMD GPU (77
# without one): gpu_check.c built on HIP's runtime API (GC_HIP).
if HAVE_HIP
check_PROGRAMS += tests/gpu_hip_check
GPU_CHECKS += tests/gpu_hip_check
tests_gpu_hip_check_SOURCES = tests/gpu_check.c
tests_gpu_hip_check_CFLAGS = $(FG_WARN_CFLAGS) -pthread $(AM_CFLAGS)
tests_gpu_hip_check_CPPFLAGS = -DGC_HIP -I$(srcdir)/runtime -I$(srcdir)/generated $(HIP_CPPFLAGS) \
	$(AM_CPPFLAGS)
tests_gpu_hip_check_LDFLAGS = -pthread
tests_gpu_hip_check_LDADD = libfusegen_hip.a libfusegen_cpu.a $(HIP_LDFLAGS) $(HIP_LIBS) -lm
endif
