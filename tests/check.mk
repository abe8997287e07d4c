# tests/check.mk
