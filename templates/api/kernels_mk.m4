m4_include([[[common/prelude.m4]]])m4_dnl
fg_run_mk_header
# The generated sources per backend, for generated/local.mk.

FG_CPU_KERNEL_FILES = \
fg_mk_c_sources[[[]]]m4_dnl
	$(NULL)

FG_CUDA_KERNEL_FILES = \
fg_mk_cuda_sources[[[]]]m4_dnl
	$(NULL)

FG_HIP_KERNEL_FILES = \
fg_mk_hip_sources[[[]]]m4_dnl
	$(NULL)

FG_KERNEL_HEADER_FILES = \
fg_mk_headers[[[]]]m4_dnl
	$(NULL)
