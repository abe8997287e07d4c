# tests/install.mk - what a consumer sees: the .pc files read by
# pkg-config (pkgconfig.sh, also linking this build's archives through the
# link lines they give), and examples/vendored/ copying generated/ and
# runtime/ files into a plain-Makefile project built with -Werror by gcc and
# clang (vendored.sh).  `make installcheck` builds examples/ against the
# installed tree (examples/local.mk).

TESTS += tests/pkgconfig.sh tests/vendored.sh
EXTRA_DIST += tests/pkgconfig.sh tests/vendored.sh
AM_TESTS_ENVIRONMENT += \
	PKG_CONFIG='$(PKG_CONFIG)'; FG_CC='$(CC)'; FG_CFLAGS='$(CFLAGS)'; \
	FG_LDFLAGS='$(LDFLAGS)'; FG_CUDA_LDFLAGS='$(CUDA_LDFLAGS)'; \
	export PKG_CONFIG FG_CC FG_CFLAGS FG_LDFLAGS FG_CUDA_LDFLAGS;
