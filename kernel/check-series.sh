#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Check the kernel series against kernel conventions.
#
# Usage: kernel/check-series.sh [-p trixie|bookworm] [--build]
#
# For each platform (both unless -p names one), on the patches that
# kernel/patches/series lists for its kernel:
# always scripts/checkpatch.pl --strict on every patch (in the cached source
# tree kernel/build.sh extracted), failing on any error, warning or check
# whose type is not in the list of justified ones below.
# With --build: applies the series one patch at a time to build.sh's cached
# tree and builds bzImage and modules after each, incrementally, so every
# patch is shown to build on its own (minutes per patch).
# Ends with "N passed, N failed" (one per patch and check).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PMEMRAM_CACHE:-/var/cache/pmemram}
build=0
only=
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=1 ;;
	-p)
		only=${2:?check-series.sh: -p needs a platform}
		shift
		;;
	*)
		echo "check-series.sh: unknown argument '$1'" >&2
		exit 1
		;;
	esac
	shift
done

# Types that stay, each explained in its patch's changelog:
# FILE_PATH_CHANGES: mm/shuffle_kunit.c is covered by MEMORY MANAGEMENT's F: mm/.
justified='FILE_PATH_CHANGES'
# UNKNOWN_COMMIT_ID, for these ids only: the Debian tarball carries no
# upstream history, so checkpatch cannot look up the mainline commits the
# changelogs name (in Fixes: tags and text); each was checked by hand, with
# its subject, against mainline.  Any other unknown id fails.
#   e900a918b098 mm: shuffle initial free memory to improve memory-side-cache utilization
#   839195352d82 mm/shuffle: remove dynamic reconfiguration
#   60bb462fc7ad drivers/base/node.c: simplify unregister_memory_block_under_nodes()
known_ids='e900a918b098|839195352d82|60bb462fc7ad'

. "$here/lib.sh"
passed=0
failed=0

# check_platform PLATFORM: the checks above on that platform's series.
check_platform() {
	local platform=$1 kver kc obj n p s rc out bad
	kver=$(platform_kernel "$platform") || {
		echo "check-series.sh: unknown platform '$platform' (${platforms[*]})" >&2
		exit 1
	}
	read_series "$kver"
	[ ${#patches[@]} -gt 0 ] || return 0
	kc=$cache/kernel/$kver
	src=$kc/src
	[ -x "$src/scripts/checkpatch.pl" ] || "$here/build.sh" -p "$platform" >/dev/null
	for p in "${patches[@]}"; do
		rc=0
		# spdxcheck.py needs Debian's python3 with ply and git, not another one on PATH.
		out=$(cd "$src" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --terse --show-types \
			"$p" 2>&1) || rc=$?
		# Clean: exit 0. Otherwise every line must be a justified warning.
		bad=$(grep -Ev ": (WARNING|CHECK):($justified):|: WARNING:UNKNOWN_COMMIT_ID: Unknown commit id '($known_ids)'|^total: 0 errors" \
			<<<"$out" || true)
		if [ "$rc" = 0 ] || [ -z "$bad" ]; then
			passed=$((passed + 1))
			echo "ok checkpatch $(basename "$p")"
		else
			failed=$((failed + 1))
			echo "FAIL checkpatch $(basename "$p")"
			sed 's/^/    /' <<<"${bad:-$out}"
		fi
	done

	if [ "$build" = 1 ]; then
		# In build.sh's own tree and object directory, under its lock: reset
		# to pristine and add one patch at a time, so each build recompiles
		# only what that patch touches.  build.sh resets the tree again itself.
		obj=$kc/obj
		exec 9>"$kc/lock"
		flock 9
		kernel_reset_pristine
		n=0
		for p in "${patches[@]}"; do
			n=$((n + 1))
			kernel_git am -q --keep-cr "$p"
			s=$(date +%s)
			# The full series' config each time: olddefconfig drops what a
			# later patch introduces (the KUnit test before its patch).
			cp "$kc/current/config" "$obj/.config"
			if make -C "$src" O="$obj" -s olddefconfig >/dev/null &&
				make -C "$src" O="$obj" LOCALVERSION= -j"$(nproc)" bzImage modules \
					>"$kc/series-build-$n.log" 2>&1; then
				passed=$((passed + 1))
				echo "ok build after $(basename "$p") ($(($(date +%s) - s))s)"
			else
				failed=$((failed + 1))
				echo "FAIL build after $(basename "$p") (log: $kc/series-build-$n.log)"
				grep -E 'error' "$kc/series-build-$n.log" | head -5 | sed 's/^/    /'
			fi
		done
		# Leave the object tree configured as build.sh last left it.
		cp "$kc/current/config" "$obj/.config"
		exec 9>&-
	fi
}

for platform in "${platforms[@]}"; do
	[ -z "$only" ] || [ "$only" = "$platform" ] || continue
	check_platform "$platform"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
