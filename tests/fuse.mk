# tests/fuse.mk
