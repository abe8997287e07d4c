# examples/local.mk - examples/ built against the installed tree by
# `make installcheck` (which `make distcheck` runs): examples/Makefile,
# with pkg-config finding the installed fusegen-cpu.pc, builds a program
# that checks fg_causal_cpu against a naive loop, and a shared object with
# the installed archive linked into it, which a second program dlopen()s
# and runs.  Under DESTDIR, PKG_CONFIG_SYSROOT_DIR puts the paths there.
# examples/vendored/ is built by `make check` (tests/vendored.sh).
# examples/python/ (ctypes and PyTorch) is distributed but run by neither:
# it needs a GPU, PyTorch and transformers (bench/run-gpu.sh, step python).

EXTRA_DIST += \
	examples/Makefile \
	examples/causal_check.c \
	examples/softmax_plugin.c \
	examples/load_plugin.c \
	examples/vendored/Makefile \
	examples/vendored/main.c \
	examples/python/Makefile \
	examples/python/README.md \
	examples/python/layout.c \
	examples/python/fusegen_attn.py \
	examples/python/hf_check.py \
	$(NULL)

FG_EXAMPLES_OUT = examples-installcheck
installcheck-local: installcheck-examples
installcheck-examples:
	@rm -rf $(FG_EXAMPLES_OUT) && $(MKDIR_P) $(FG_EXAMPLES_OUT) && \
	PKG_CONFIG_PATH='$(DESTDIR)$(pkgconfigdir)'; export PKG_CONFIG_PATH; \
	if test -n '$(DESTDIR)'; then \
	  PKG_CONFIG_SYSROOT_DIR='$(DESTDIR)'; export PKG_CONFIG_SYSROOT_DIR; \
	fi; \
	echo "examples: built against $(DESTDIR)$(prefix) through pkg-config"; \
	$(MAKE) -f $(srcdir)/examples/Makefile O=$(FG_EXAMPLES_OUT) \
	  PKG_CONFIG='$(PKG_CONFIG)' CC='$(CC)' CFLAGS='$(CFLAGS)' \
	  LDFLAGS='$(LDFLAGS)' DL_LIBS='$(DL_LIBS)' check
	@rm -rf $(FG_EXAMPLES_OUT)
clean-local: examples-clean
examples-clean:
	-rm -rf $(FG_EXAMPLES_OUT)
.PHONY: installcheck-examples examples-clean
