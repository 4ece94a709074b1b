#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build a platform's pmemram test kernel from Debian's linux-source package
# into a cache: linux-source-6.12 for trixie (the default), linux-source-6.1
# for bookworm.
#
# Usage: kernel/build.sh [-p trixie|bookworm] [--print-key] [--force]
#
# The result lives in $PMEMRAM_CACHE/kernel/KVER/out/<key>/ (bzImage, config,
# modules/ ready to copy into a guest, kernelrelease) and is keyed by a hash of
# the source tarball, every patch that kernel/patches/series lists for KVER, the
# config (kernel/config/*.config, kernel/config/KVER/*.config, and the Debian
# settings kernel/config/KVER/debian.options selects, where it exists) and
# this script.  An unchanged rerun takes seconds.  The
# source tree is a git repository in the cache: each build resets it to the
# pristine tarball and applies the series with `git am`, and the object tree
# (O=) is kept, so a changed patch rebuilds only what it touches.
#
# On success the last line printed to stdout is the output directory.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PMEMRAM_CACHE:-/var/cache/pmemram}
jobs=${PMEMRAM_JOBS:-$(nproc)}
platform=trixie
force=0
print_key=0

while [ $# -gt 0 ]; do
	arg=$1
	shift
	case $arg in
	-p | --platform)
		[ $# -gt 0 ] || {
			echo "build.sh: $arg needs a platform (trixie or bookworm)" >&2
			exit 1
		}
		platform=$1
		shift
		;;
	--platform=*) platform=${arg#--platform=} ;;
	--force) force=1 ;;
	--print-key) print_key=1 ;;
	-h | --help)
		awk 'NR > 1 && /^# SPDX-License-Identifier:/ { next } NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
		exit 0
		;;
	*)
		echo "build.sh: unknown argument '$arg'" >&2
		exit 1
		;;
	esac
done

log() { echo "kernel: $*" >&2; }
die() {
	echo "kernel: error: $*" >&2
	exit 1
}

. "$here/lib.sh"
kver=$(platform_kernel "$platform") || die "unknown platform '$platform' (${platforms[*]})"
kcache=$cache/kernel/$kver
tarball=/usr/src/linux-source-$kver.tar.xz
[ -r "$tarball" ] || die "$tarball not found (apt-get install linux-source-$kver)"

src=$kcache/src
read_series "$kver"
mkdir -p "$kcache"

# Debian's own settings for what debian.options names, as a fragment merged
# before the project's version-specific ones (which may not name them).
fragments=("$here"/config/*.config)
options=$here/config/$kver/debian.options
if [ -f "$options" ]; then
	debian_config=/usr/src/linux-config-$kver/config.amd64_none_amd64.xz
	[ -r "$debian_config" ] || die "$debian_config not found (apt-get install linux-config-$kver)"
	names=$(grep -Ev '^(#|!|$)' "$options" | paste -sd '|')
	left_out=$(sed -n 's/^!\([A-Z0-9_]*\).*/\1/p' "$options" | paste -sd '|')
	{
		# (the checkout's own path left out: the key must not depend on where it is)
		echo "# From $debian_config, as kernel/config/$kver/debian.options selects"
		xzcat "$debian_config" | grep -E "^(CONFIG_($names)=|# CONFIG_($names) is not set$)" |
			grep -Ev "^(# )?CONFIG_(${left_out:-^})[= ]"
	} >"$kcache/debian.config.tmp"
	mv "$kcache/debian.config.tmp" "$kcache/debian.config"
	fragments+=("$kcache/debian.config")
fi
for f in "$here/config/$kver"/*.config; do
	[ -e "$f" ] && fragments+=("$f")
done
# The tarball hash is remembered by size and mtime: hashing 140 MB every run
# would cost more than the rest of a cache hit.
tar_id=$(stat -c '%s-%Y' "$tarball")
tar_hash_file=$kcache/tarball.$tar_id.sha256
if [ ! -s "$tar_hash_file" ]; then
	sha256sum "$tarball" | cut -d' ' -f1 >"$tar_hash_file.tmp"
	mv "$tar_hash_file.tmp" "$tar_hash_file"
fi
tar_hash=$(cat "$tar_hash_file")

key=$({
	echo "tarball $tar_hash"
	echo "script $(cat "$0" "$here/lib.sh" | sha256sum)"
	for p in "${patches[@]}"; do echo "patch $(basename "$p") $(sha256sum <"$p")"; done
	for f in "${fragments[@]}"; do echo "config $(basename "$f") $(sha256sum <"$f")"; done
} | sha256sum | cut -c1-16)

if [ "$print_key" = 1 ]; then
	echo "$key"
	exit 0
fi

out=$kcache/out/$key
if [ "$force" = 0 ] && [ -f "$out/done" ]; then
	log "cached build $key"
	echo "$out"
	exit 0
fi

exec 9>"$kcache/lock"
flock 9 || die "cannot lock $kcache/lock"
# Another build of the same key may have finished while this one waited.
if [ "$force" = 0 ] && [ -f "$out/done" ]; then
	log "cached build $key (built while waiting for the lock)"
	echo "$out"
	exit 0
fi

start=$(date +%s)
obj=$kcache/obj

# 1. Pristine source tree, extracted once per tarball.
if [ "$(cat "$src/.pmemram-tarball" 2>/dev/null)" != "$tar_hash" ]; then
	log "extracting $(basename "$tarball") (one time)"
	rm -rf "$src" "$obj" "$kcache/extract"
	mkdir -p "$kcache/extract"
	tar -C "$kcache/extract" -xf "$tarball"
	mv "$kcache/extract"/linux-source-* "$src"
	rmdir "$kcache/extract"
	kernel_git init -q
	echo "/.pmemram-tarball" >"$src/.git/info/exclude"
	kernel_git add -A -f
	kernel_git commit -q -m "pristine $(basename "$tarball") $tar_hash"
	kernel_git tag -f pristine >/dev/null
	echo "$tar_hash" >"$src/.pmemram-tarball"
fi

# 2. Reset to pristine and apply the series; the files it leaves as the last
# build had them keep their times, so only what changed is rebuilt.
kernel_save_times "$kcache/patched-times"
kernel_reset_pristine
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	if ! kernel_git am -q --keep-cr "$p" >"$kcache/am.log" 2>&1; then
		cat "$kcache/am.log" >&2
		kernel_git am --abort >/dev/null 2>&1 || true
		die "patch $n of ${#patches[@]} does not apply: $(basename "$p")"
	fi
done
kernel_restore_times "$kcache/patched-times"
log "applied ${#patches[@]} patch(es) for $kver from $here/patches/series"

# 3. Configuration: x86_64_defconfig + kvm_guest.config + our fragments.
mkdir -p "$obj"
make_k() { make -C "$src" O="$obj" LOCALVERSION= "$@"; }
make_k -s x86_64_defconfig >/dev/null
(cd "$src" && KCONFIG_CONFIG="$obj/.config" scripts/kconfig/merge_config.sh -m \
	-O "$obj" "$obj/.config" kernel/configs/kvm_guest.config "${fragments[@]}") \
	>"$kcache/merge.log" 2>&1 || {
	cat "$kcache/merge.log" >&2
	die "merging config fragments failed"
}
make_k -s olddefconfig >/dev/null

# Every option a fragment asks for must have survived olddefconfig: a silently
# dropped option (unmet dependency) would make every test downstream lie.
bad=0
for f in "${fragments[@]}"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) want=$line ;;
		"# CONFIG_"*" is not set") want=$line ;;
		*) continue ;;
		esac
		opt=${want#\# }
		opt=${opt%%[= ]*}
		got=$(grep -E "^(# )?$opt[= ]" "$obj/.config" || echo "# $opt is not set")
		if [ "$got" != "$want" ]; then
			echo "kernel: $(basename "$f"): wanted '$want', got '$got'" >&2
			bad=1
		fi
	done <"$f"
done
[ "$bad" = 0 ] || die "config fragments not honoured (unmet dependencies?)"

# 4. Build.
log "building bzImage and modules with -j$jobs (log: $kcache/build.log)"
if ! make_k -j"$jobs" bzImage modules >"$kcache/build.log" 2>&1; then
	grep -E "error|Error" "$kcache/build.log" | head -20 >&2
	die "build failed; see $kcache/build.log"
fi
grep -E "warning:" "$kcache/build.log" >"$kcache/warnings.log" || true

# 5. Collect the result.
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
make_k -s modules_install INSTALL_MOD_PATH="$out.tmp/modules" INSTALL_MOD_STRIP=1 \
	>/dev/null
rm -f "$out.tmp"/modules/lib/modules/*/{build,source}
cp "$obj/arch/x86/boot/bzImage" "$obj/.config" "$obj/System.map" "$out.tmp/"
mv "$out.tmp/.config" "$out.tmp/config"
make_k -s kernelrelease >"$out.tmp/kernelrelease"
cp "$kcache/build.log" "$out.tmp/build.log"
elapsed=$(($(date +%s) - start))
echo "$elapsed" >"$out.tmp/build-seconds"
touch "$out.tmp/done"
rm -rf "$out"
mv "$out.tmp" "$out"
ln -sfn "out/$key" "$kcache/current"
log "built $(cat "$out/kernelrelease") in ${elapsed}s -> $out"
echo "$out"
