# tests/emit.mk
