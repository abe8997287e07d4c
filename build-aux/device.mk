# build-aux/device.mk -- the one fragment with the device-compile rules.
# Included by the top Makefile.am. A .cu source in any *_SOURCES is compiled
# by nvcc, a .hip source by hipcc; list them only under `if HAVE_CUDA` /
# `if HAVE_HIP`. Flags, in order (later ones win):
#   toolkit flags from configure   NVCC_GENCODE / HIP_OFFLOAD
#   defaults                       FG_NVCC_DEFAULT_FLAGS / FG_HIPCC_DEFAULT_FLAGS
#   preprocessor flags             DEFS, DEFAULT_INCLUDES, INCLUDES, AM_CPPFLAGS, CPPFLAGS
#   fragment flags                 AM_NVCCFLAGS / AM_HIPCCFLAGS (use +=)
#   user flags (precious)          NVCCFLAGS / HIPCCFLAGS
# CFLAGS (and so the sanitizer flags) never reach device compilation.
# Per-target *_CPPFLAGS do not apply to .cu/.hip sources (automake only
# knows how to rename objects of the languages it knows): use AM_NVCCFLAGS.

SUFFIXES += .cu .hip

FG_NVCC_DEFAULT_FLAGS = -std=c++17 -O3 -Xcompiler -fPIC
FG_HIPCC_DEFAULT_FLAGS = -std=c++17 -O3 -fPIC
AM_NVCCFLAGS = $(NULL)
AM_HIPCCFLAGS = $(NULL)

# Quiet output in automake's style; V=1 shows the commands.
AM_V_NVCC = $(am__v_NVCC_@AM_V@)
am__v_NVCC_ = $(am__v_NVCC_@AM_DEFAULT_V@)
am__v_NVCC_0 = @echo "  NVCC    " $@;
am__v_NVCC_1 =
AM_V_HIPCC = $(am__v_HIPCC_@AM_V@)
am__v_HIPCC_ = $(am__v_HIPCC_@AM_DEFAULT_V@)
am__v_HIPCC_0 = @echo "  HIPCC   " $@;
am__v_HIPCC_1 =

# Dependency files sit beside automake's: dir/$(DEPDIR)/name.Pcu (.Phip).
.cu.o:
	$(AM_V_NVCC)depbase=`echo $@ | sed 's|[^/]*$$|$(DEPDIR)/&|;s|\.o$$||'`; \
	$(MKDIR_P) $(@D)/$(DEPDIR) && \
	$(NVCC) $(NVCC_GENCODE) $(FG_NVCC_DEFAULT_FLAGS) \
	  $(DEFS) $(DEFAULT_INCLUDES) $(INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	  $(AM_NVCCFLAGS) $(NVCCFLAGS) \
	  -MD -MP -MF $$depbase.Tpcu -c -o $@ $< && \
	mv -f $$depbase.Tpcu $$depbase.Pcu

.hip.o:
	$(AM_V_HIPCC)depbase=`echo $@ | sed 's|[^/]*$$|$(DEPDIR)/&|;s|\.o$$||'`; \
	$(MKDIR_P) $(@D)/$(DEPDIR) && \
	$(HIPCC) $(HIP_OFFLOAD) $(FG_HIPCC_DEFAULT_FLAGS) \
	  $(DEFS) $(DEFAULT_INCLUDES) $(INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	  $(AM_HIPCCFLAGS) $(HIPCCFLAGS) \
	  -MD -MP -MF $$depbase.Tphip -c -o $@ $< && \
	mv -f $$depbase.Tphip $$depbase.Phip

# Read the dependency files of device objects built so far, down to three
# directory levels (GNU make expands the patterns; -include skips the ones
# that match nothing); distclean removes them.
FG_DEVICE_DEPFILES = \
	$(DEPDIR)/*.Pcu */$(DEPDIR)/*.Pcu */*/$(DEPDIR)/*.Pcu */*/*/$(DEPDIR)/*.Pcu \
	$(DEPDIR)/*.Phip */$(DEPDIR)/*.Phip */*/$(DEPDIR)/*.Phip */*/*/$(DEPDIR)/*.Phip \
	$(NULL)
-include $(FG_DEVICE_DEPFILES)
DISTCLEANFILES += $(FG_DEVICE_DEPFILES)
