# tests/algebra.mk
