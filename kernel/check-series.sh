#!/bin/bash
# Check the kernel series against kernel conventions.
#
# Usage: kernel/check-series.sh [--build]
#
# Always: scripts/checkpatch.pl --strict on every patch of kernel/patches/series
# (in the cached source tree kernel/build.sh extracted), failing on any error,
# warning or check whose type is not in the list of justified ones below.
# With --build: applies the series one patch at a time in a worktree of its
# own and builds bzImage and modules after each, incrementally, so every
# patch is shown to build on its own (slow: minutes per patch).
# Ends with "N passed, N failed" (one per patch and check).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PMEMRAM_CACHE:-/var/cache/pmemram}
src=$cache/kernel/src
build=0
[ "${1:-}" = --build ] && build=1

# Types that stay, each explained in its patch's changelog:
# UNKNOWN_COMMIT_ID: the Debian tarball carries no upstream history, so the
#   changelogs' reference to 839195352d82 cannot be looked up.
# FILE_PATH_CHANGES: mm/shuffle_kunit.c is covered by MEMORY MANAGEMENT's F: mm/.
justified='UNKNOWN_COMMIT_ID|FILE_PATH_CHANGES'

[ -x "$src/scripts/checkpatch.pl" ] || "$here/build.sh" >/dev/null
mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/patches/series")
passed=0
failed=0
for p in "${patches[@]}"; do
	rc=0
	# spdxcheck.py needs Debian's python3 with ply and git, not another one on PATH.
	out=$(cd "$src" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --terse --show-types \
		"$here/patches/$p" 2>&1) || rc=$?
	# Clean: exit 0. Otherwise every line must be a justified warning.
	bad=$(grep -Ev ": (WARNING|CHECK):($justified):|^total: 0 errors" <<<"$out" || true)
	if [ "$rc" = 0 ] || [ -z "$bad" ]; then
		passed=$((passed + 1))
		echo "ok checkpatch $p"
	else
		failed=$((failed + 1))
		echo "FAIL checkpatch $p"
		sed 's/^/    /' <<<"${bad:-$out}"
	fi
done

if [ "$build" = 1 ]; then
	wt=$cache/kernel/series-check
	obj=$cache/kernel/series-check-obj
	[ -f "$cache/kernel/current/config" ] || "$here/build.sh" >/dev/null
	git -C "$src" worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$wt" pristine
	mkdir -p "$obj"
	cp "$cache/kernel/current/config" "$obj/.config"
	n=0
	for p in "${patches[@]}"; do
		n=$((n + 1))
		git -C "$wt" -c user.name=pmemram -c user.email=pmemram@localhost \
			am -q --keep-cr "$here/patches/$p"
		s=$(date +%s)
		if make -C "$wt" O="$obj" -s olddefconfig >/dev/null &&
			make -C "$wt" O="$obj" LOCALVERSION= -j"$(nproc)" bzImage modules \
				>"$obj/build-$n.log" 2>&1; then
			passed=$((passed + 1))
			echo "ok build after $p ($(($(date +%s) - s))s)"
		else
			failed=$((failed + 1))
			echo "FAIL build after $p (log: $obj/build-$n.log)"
			grep -E 'error' "$obj/build-$n.log" | head -5 | sed 's/^/    /'
		fi
	done
	git -C "$src" worktree remove --force "$wt"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
