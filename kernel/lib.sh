# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by build.sh and check-series.sh: the platforms, the series file and
# the cached kernel tree.  Sourced, not run; expects $here (kernel/), and $src
# once a platform is chosen.

# The guest platforms and the Debian kernel each boots: trixie (Debian 13,
# the default) runs linux-source-6.12, bookworm (Debian 12) linux-source-6.1.
platforms=(trixie bookworm)

# platform_kernel PLATFORM: that platform's kernel version; status 1 for a
# name that is not a platform.
platform_kernel() {
	case $1 in
	trixie) echo 6.12 ;;
	bookworm) echo 6.1 ;;
	*) return 1 ;;
	esac
}

# read_series KVER: fills patches[] with the full path of every patch of
# kernel/patches/series whose path starts with KVER/, in order (blank lines
# and comments skipped); dies naming file and line when a named patch does
# not exist or a line names no kernel the series knows.
read_series() {
	local series=$here/patches/series line lineno=0 p kvers=" "
	patches=()
	[ -f "$series" ] || return 0
	for p in "${platforms[@]}"; do kvers+="$(platform_kernel "$p") "; done
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		line=${line%%#*}
		line=$(echo "$line" | xargs)
		[ -n "$line" ] || continue
		if [[ $kvers != *" ${line%%/*} "* ]]; then
			echo "kernel: error: $series:$lineno: '$line' does not start with a platform's kernel version (one of:${kvers% })" >&2
			exit 1
		fi
		if [ ! -f "$here/patches/$line" ]; then
			echo "kernel: error: $series:$lineno: patch '$line' does not exist" >&2
			exit 1
		fi
		if [ "${line%%/*}" = "$1" ]; then
			patches+=("$here/patches/$line")
		fi
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

# kernel_save_times FILE: records, for every file the applied series changed,
# its content hash and modification time, for kernel_restore_times.
# Resetting to pristine and applying a series again rewrites every file the
# series touches; without the old times a change to one patch would rebuild
# everything that includes any header the series touches.
kernel_save_times() {
	local f
	(cd "$src" && git diff --name-only --no-renames pristine -- |
		while IFS= read -r f; do
			[ -f "$f" ] || continue
			printf '%s %s %s\n' "$(sha256sum <"$f" | cut -c1-64)" \
				"$(stat -c %.9Y "$f")" "$f"
		done) >"$1.tmp"
	mv "$1.tmp" "$1"
}

# kernel_restore_times FILE: gives every file that kernel_save_times
# recorded and that has the same content again its recorded time.  Safe for
# make: an object newer than that time was built after that content was
# written, so from that content.
kernel_restore_times() {
	local sum mtime f
	[ -f "$1" ] || return 0
	while read -r sum mtime f; do
		[ -f "$src/$f" ] || continue
		[ "$(sha256sum <"$src/$f" | cut -c1-64)" = "$sum" ] || continue
		touch -m -d "@$mtime" "$src/$f"
	done <"$1"
}
