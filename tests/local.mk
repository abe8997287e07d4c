# tests/local.mk - the test suite.  One fragment per module, each owned by
# the module's author; CMocka programs are listed in CMOCKA_TESTS.
include tests/front.mk
include tests/check.mk
include tests/algebra.mk
include tests/fuse.mk
include tests/emit.mk
include tests/write.mk
include tests/fuzz.mk
include tests/interp.mk
include tests/cuda.mk
include tests/hip.mk
include tests/gpu.mk
include tests/tune.mk
include tests/install.mk
include tests/vectors.mk
