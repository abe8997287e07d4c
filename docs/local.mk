# docs/local.mk - documentation shipped in the tarball.
# Paths are relative to the top of the tree (included by Makefile.am).

EXTRA_DIST += \
	docs/building.md \
	docs/plan-language.md \
	$(NULL)
