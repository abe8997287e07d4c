#!/bin/sh
# Regenerate the build system (configure, Makefile.in, config.h.in) from a git checkout.
# Needs autoconf >= 2.70, automake >= 1.16, pkg-config (for pkg.m4) and GNU m4.
set -e
cd "$(dirname "$0")"
autoreconf -fi "$@"
