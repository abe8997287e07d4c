# tests/vectors.mk - the CPU entry's param vectors on every early return
# (tests/param-vectors.sh generates tests/vectors/param_vectors.fp with
# this fusegen and counts the entry's allocations).

TESTS += tests/param-vectors.sh
EXTRA_DIST += \
	tests/param-vectors.sh \
	tests/vectors/param_vectors.fp \
	tests/vectors/param_vectors_main.c \
	$(NULL)
