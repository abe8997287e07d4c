# tests/front.mk
