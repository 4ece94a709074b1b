#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the Debian packages pmemram's build, bench and tests need.
# Idempotent: does nothing (not even apt-get update) when all are present.
set -euo pipefail

packages=(
	# project build
	build-essential autoconf automake libtool pkg-config git rsync
	libdaxctl-dev libndctl-dev libcxl-dev libudev-dev libsystemd-dev linux-libc-dev
	libjson-c-dev libcmocka-dev clang valgrind
	# bash-completion.pc (configure: where the completion goes), and the completion test runs
	# once more with bash-completion loaded
	bash-completion
	# libFuzzer (tests/fuzz)
	libclang-rt-14-dev
	# promtool checks the metrics textfile (tests/unit/metrics-scrape.sh)
	prometheus
	# node_exporter serves it there, fetched with curl
	prometheus-node-exporter
	curl
	# clang-format-14 and git-clang-format-14 (tests/format-check.sh)
	clang-format-14
	# kernel build
	linux-source-6.1 bc bison flex libelf-dev libssl-dev cpio kmod
	python3-ply python3-git
	# the Debian package (tests/vm/common.sh: ensure_deb) and its lint
	debhelper dpkg-dev lintian
	# guest image and QEMU
	mmdebstrap gpg mount e2fsprogs qemu-system-x86 qemu-utils socat
)

missing=()
for p in "${packages[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	echo "deps: all ${#packages[@]} packages present" >&2
	exit 0
fi
[ "$(id -u)" = 0 ] || {
	echo "deps: missing ${missing[*]}; run as root to install them" >&2
	exit 1
}
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: installed ${#missing[@]} package(s)" >&2
