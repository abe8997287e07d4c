# templates/local.mk - GNU m4 templates, installed for the installed generator
# (templates/README.md lists the definitions they read).  Paths are relative
# to the top of the tree (included by Makefile.am).  CUDA and HIP add their
# folders here the same way.

templatesdir = $(pkgdatadir)/templates
dist_templates_DATA = $(NULL)

templates_commondir = $(templatesdir)/common
dist_templates_common_DATA = \
	templates/common/prelude.m4 \
	$(NULL)

templates_apidir = $(templatesdir)/api
dist_templates_api_DATA = \
	templates/api/kernels_mk.m4 \
	templates/api/plan_h.m4 \
	templates/api/plans_c.m4 \
	templates/api/plans_cuda_c.m4 \
	templates/api/plans_hip_c.m4 \
	templates/api/plans_h.m4 \
	$(NULL)

templates_cdir = $(templatesdir)/c
dist_templates_c_DATA = \
	templates/c/fused.m4 \
	templates/c/helpers.m4 \
	templates/c/prelude.m4 \
	$(NULL)

templates_cudadir = $(templatesdir)/cuda
dist_templates_cuda_DATA = \
	templates/cuda/attention.m4 \
	templates/cuda/prelude.m4 \
	templates/cuda/rowreduce.m4 \
	$(NULL)

# What the row-reduction skeleton (gpu/rows.hpp) and its hooks take from CUDA.
templates_cuda_rowreducedir = $(templatesdir)/cuda/rowreduce
dist_templates_cuda_rowreduce_DATA = \
	templates/cuda/rowreduce/math.cuh \
	templates/cuda/rowreduce/target.cuh \
	$(NULL)

# The hand-written skeletons of the sm_80 attention family and their launchers.
templates_cuda_sm80dir = $(templatesdir)/cuda/sm80
dist_templates_cuda_sm80_DATA = \
	templates/cuda/sm80/common.cuh \
	templates/cuda/sm80/launch.m4 \
	templates/cuda/sm80/rolling.cuh \
	templates/cuda/sm80/split.cuh \
	$(NULL)

# The hand-written skeleton of the sm_90a attention family (Hopper).
templates_cuda_sm90dir = $(templatesdir)/cuda/sm90
dist_templates_cuda_sm90_DATA = \
	templates/cuda/sm90/common.cuh \
	templates/cuda/sm90/rolling.cuh \
	templates/cuda/sm90/wgmma.m4 \
	$(NULL)

# What the CUDA and HIP templates share: the attention hooks and the entry
# point's argument checks; the row-reduction hooks and skeleton.
templates_gpudir = $(templatesdir)/gpu
dist_templates_gpu_DATA = \
	templates/gpu/chains.m4 \
	templates/gpu/hooks.m4 \
	templates/gpu/rows.hpp \
	templates/gpu/rows_hooks.m4 \
	templates/gpu/validate.m4 \
	$(NULL)

templates_hipdir = $(templatesdir)/hip
dist_templates_hip_DATA = \
	templates/hip/attention.m4 \
	templates/hip/plan_math.hpp \
	templates/hip/rowreduce.m4 \
	$(NULL)

# What the row-reduction skeleton and its hooks take from HIP.
templates_hip_rowreducedir = $(templatesdir)/hip/rowreduce
dist_templates_hip_rowreduce_DATA = \
	templates/hip/rowreduce/math.hpp \
	templates/hip/rowreduce/target.hpp \
	$(NULL)

# The hand-written skeleton of the CDNA attention family (wave64, MFMA).
templates_hip_cdnadir = $(templatesdir)/hip/cdna
dist_templates_hip_cdna_DATA = \
	templates/hip/cdna/common.hpp \
	templates/hip/cdna/launch.m4 \
	templates/hip/cdna/layout.h \
	templates/hip/cdna/rolling.hpp \
	templates/hip/cdna/split.hpp \
	$(NULL)

EXTRA_DIST += templates/README.md

# Every template, for the rule that regenerates generated/ (generated/local.mk).
FG_TEMPLATES = \
	$(dist_templates_common_DATA) \
	$(dist_templates_api_DATA) \
	$(dist_templates_c_DATA) \
	$(dist_templates_cuda_DATA) \
	$(dist_templates_cuda_sm80_DATA) \
	$(dist_templates_cuda_rowreduce_DATA) \
	$(dist_templates_cuda_sm90_DATA) \
	$(dist_templates_gpu_DATA) \
	$(dist_templates_hip_DATA) \
	$(dist_templates_hip_cdna_DATA) \
	$(dist_templates_hip_rowreduce_DATA) \
	$(NULL)
