# tests/install.mk - what a consumer of the installed tree sees: the .pc
# files read by pkg-config (pkgconfig.sh, also linking this build's
# archives through the link lines they give).  `make installcheck` builds
# examples/ against the installed tree (examples/local.mk).

TESTS += tests/pkgconfig.sh
EXTRA_DIST += tests/pkgconfig.sh
AM_TESTS_ENVIRONMENT += \
	PKG_CONFIG='$(PKG_CONFIG)'; FG_CC='$(CC)'; FG_CFLAGS='$(CFLAGS)'; \
	FG_LDFLAGS='$(LDFLAGS)'; FG_CUDA_LDFLAGS='$(CUDA_LDFLAGS)'; \
	export PKG_CONFIG FG_CC FG_CFLAGS FG_LDFLAGS FG_CUDA_LDFLAGS;
