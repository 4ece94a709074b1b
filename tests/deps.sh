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
	# the dashboard's and the alert rules' checks (tests/unit/monitoring-check.sh)
	jq
	# clang-format-14 and git-clang-format-14 (tests/format-check.sh)
	clang-format-14
	# the benches' plots (tests/bench/plot.sh: gnuplot's pngcairo terminal)
	gnuplot-nox
	# kernel build: bookworm's guest kernel, trixie's (bookworm-security), and the
	# configuration Debian builds 6.12 with (kernel/config/6.12/debian.options)
	linux-source-6.1 linux-source-6.12 linux-config-6.12
	bc bison flex libelf-dev libssl-dev cpio kmod
	python3-ply python3-git
	# the Debian package (tests/vm/common.sh: ensure_deb) and its lint
	debhelper dpkg-dev lintian
	# guest image (QEMU below)
	mmdebstrap gpg mount e2fsprogs socat
)
# QEMU 10 from bookworm-backports (CXL volatile memory, poison injection,
# dynamic capacity), not Debian 12's 7.2: its source added once, in a file of
# its own, signed by the archive keyring Debian 12 has.
qemu_packages=(qemu-system-x86 qemu-utils)
qemu_min=1:10.0
backports=/etc/apt/sources.list.d/pmemram-bookworm-backports.sources

missing=()
for p in "${packages[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
old_qemu=()
for p in "${qemu_packages[@]}"; do
	v=$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null || true)
	[[ $v == "install ok installed "* ]] && dpkg --compare-versions "${v##* }" ge "$qemu_min" ||
		old_qemu+=("$p")
done
if [ ${#missing[@]} = 0 ] && [ ${#old_qemu[@]} = 0 ]; then
	echo "deps: all ${#packages[@]} packages present, and QEMU $qemu_min or later" >&2
	exit 0
fi
[ "$(id -u)" = 0 ] || {
	echo "deps: missing ${missing[*]} ${old_qemu[*]}; run as root to install them" >&2
	exit 1
}
export DEBIAN_FRONTEND=noninteractive
if [ ${#old_qemu[@]} != 0 ] && [ ! -e "$backports" ]; then
	printf '%s\n' "Types: deb" "URIs: http://deb.debian.org/debian" "Suites: bookworm-backports" \
		"Components: main" "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" >"$backports"
	echo "deps: added $backports" >&2
fi
apt-get update -q >/dev/null
if [ ${#missing[@]} != 0 ]; then
	echo "deps: installing ${missing[*]}" >&2
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#old_qemu[@]} != 0 ]; then
	echo "deps: installing ${old_qemu[*]} from bookworm-backports" >&2
	apt-get install -y -q --no-install-recommends -t bookworm-backports "${old_qemu[@]}" >/dev/null
fi
echo "deps: installed $((${#missing[@]} + ${#old_qemu[@]})) package(s)" >&2
