# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by build.sh and check-series.sh: the series file and the cached
# kernel tree.  Sourced, not run; expects $here (kernel/) and $src.

# read_series: fills patches[] with the full path of every patch that
# kernel/patches/series names, in order (blank lines and comments skipped);
# dies naming file and line when a named patch does not exist.
read_series() {
	local series=$here/patches/series line lineno=0
	patches=()
	[ -f "$series" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		line=${line%%#*}
		line=$(echo "$line" | xargs)
		[ -n "$line" ] || continue
		if [ ! -f "$here/patches/$line" ]; then
			echo "kernel: error: $series:$lineno: patch '$line' does not exist" >&2
			exit 1
		fi
		patches+=("$here/patches/$line")
	done <"$series"
}

# kernel_git ARGS...: git in the cached tree, with an identity for git am.
kernel_git() { git -C "$src" -c user.name=pmemram -c user.email=pmemram@localhost "$@"; }

# kernel_reset_pristine: the tree as extracted.  Files that the next series
# does not touch keep their mtime, so the object tree stays valid for them.
kernel_reset_pristine() {
	kernel_git am --abort >/dev/null 2>&1 || true
	kernel_git checkout -q -f --detach pristine
	kernel_git clean -q -fdx -e .pmemram-tarball
}
