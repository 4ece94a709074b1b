#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate the autotools build system (configure, Makefile.in, build-aux/).
set -e
cd "$(dirname "$0")"
autoreconf -fi
echo "Now run ./configure && make"
