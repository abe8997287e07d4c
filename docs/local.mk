# docs/local.mk - documentation shipped in the tarball.
# Paths are relative to the top of the tree (included by Makefile.am).

EXTRA_DIST += \
	docs/building.md \
	docs/algebra.md \
	docs/plan-language.md \
	docs/tuning.md \
	$(NULL)

# fusegen(1); tests/manpage.sh checks it against `fusegen --help`.
dist_man_MANS = docs/fusegen.1
TESTS += tests/manpage.sh
EXTRA_DIST += tests/manpage.sh
