# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the bench's host-side scripts: cache layout and the steps that
# turn the repository into a kernel, an installed project tree and an image.
# Sourced, not run.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache=${PMEMRAM_CACHE:-/var/cache/pmemram}
export PMEMRAM_CACHE=$cache

bench_log() { echo "bench: $*" >&2; }
bench_die() {
	echo "bench: error: $*" >&2
	exit 1
}

# ensure_kernel [PLATFORM]: sets $kernel_out to the cached build of that
# platform's kernel (default trixie).
ensure_kernel() {
	kernel_out=$("$repo/kernel/build.sh" -p "${1:-trixie}" | tail -n 1)
	[ -f "$kernel_out/done" ] || bench_die "kernel build did not finish"
}

# Build-Depends of debian/control and lintian, for a suite's build root.
build_root_packages=(
	build-essential debhelper dpkg-dev pkgconf autoconf automake libtool
	libcmocka-dev libcxl-dev libdaxctl-dev libjson-c-dev libndctl-dev
	libsystemd-dev libudev-dev linux-libc-dev systemd-dev bash-completion lintian
)

# ensure_build_root SUITE: sets $build_root to a directory holding SUITE
# with the packages above (mmdebstrap, once per list), for a package built
# as on that suite.
ensure_build_root() {
	local suite=$1 key log
	key=$( (
		printf '%s\n' "$suite" "${build_root_packages[@]}"
		declare -f ensure_build_root
	) | sha256sum | cut -c1-16)
	build_root=$cache/deb/root-$suite-$key
	[ -f "$build_root/.done" ] && return 0
	log=$cache/deb/root-$suite.log
	bench_log "mmdebstrap $suite build root (one time)"
	rm -rf "$build_root" "$cache/deb/root-$suite-"*
	mkdir -p "$build_root"
	mmdebstrap --quiet --variant=minbase --include="$(
		IFS=,
		echo "${build_root_packages[*]}"
	)" "$suite" "$build_root" >"$log" 2>&1 || {
		tail -n 20 "$log" >&2
		bench_die "mmdebstrap $suite failed; see $log"
	}
	touch "$build_root/.done"
}

# in_build_root DIR COMMAND: COMMAND run by sh in the build root, in DIR
# there, in a mount and pid namespace of its own (nothing stays mounted
# afterwards): the root a mount point (the unit tests make their mounts
# private), the host's /dev and /sys (they read this machine's sysfs, as
# on the host), a /proc of the namespace.
in_build_root() {
	unshare --mount --pid --fork sh -c 'mount --bind "$1" "$1" &&
		mount -t proc proc "$1/proc" && mount --rbind /dev "$1/dev" &&
		mount --rbind /sys "$1/sys" && chroot "$1" sh -c "cd $2 && $3"' \
		sh "$build_root" "$1" "$2"
}

# ensure_deb [PLATFORM]: builds the Debian package of the files git knows
# (work tree contents, untracked files included) with `dpkg-buildpackage
# -b`, which runs make check too, as on PLATFORM's suite (default trixie):
# on this host for bookworm, in a trixie build root for trixie; sets
# $project_deb to it.  Packages are kept under $cache/deb/PLATFORM-KEY/, KEY
# the hash of those files, so an unchanged tree reuses its package; the build
# log is $cache/deb/PLATFORM-KEY/build.log.
ensure_deb() {
	local platform=${1:-trixie} dir=$cache/deb stage key out start lock
	stage=$dir/stage-$BASHPID # one per lane: run-all builds both packages at once
	mkdir -p "$dir"
	rm -rf "$stage"
	mkdir -p "$stage/src"
	(cd "$repo" && git ls-files -co --exclude-standard -z) |
		rsync -a --from0 --files-from=- "$repo/" "$stage/src/"
	key=$( (cd "$stage/src" && tar --sort=name --mtime=@0 --owner=0 --group=0 \
		--numeric-owner -cf - .) | sha256sum | cut -c1-16)
	out=$dir/$platform-$key
	project_deb=$(ls "$out"/pmemram_*.deb 2>/dev/null | head -n 1 || true)
	if [ -n "$project_deb" ]; then
		rm -rf "$stage"
		bench_log "cached $platform package $key"
		return 0
	fi
	bench_log "dpkg-buildpackage -b (package $key, $platform)"
	start=$(date +%s)
	rm -rf "$out.tmp"
	mkdir -p "$out.tmp"
	case $platform in
	bookworm)
		if ! (cd "$stage/src" && dpkg-buildpackage -b -us -uc) >"$out.tmp/build.log" 2>&1; then
			tail -n 30 "$out.tmp/build.log" >&2
			bench_die "dpkg-buildpackage failed; see $out.tmp/build.log"
		fi
		mv "$stage"/*.deb "$stage"/*.changes "$stage"/*.buildinfo "$out.tmp/"
		;;
	trixie)
		# One build at a time in the build root (and one mmdebstrap of it).
		exec {lock}>"$dir/root.lock"
		flock "$lock"
		ensure_build_root trixie
		rm -rf "$build_root/build"
		mkdir -p "$build_root/build"
		mv "$stage/src" "$build_root/build/src"
		if ! in_build_root /build/src "dpkg-buildpackage -b -us -uc" >"$out.tmp/build.log" 2>&1; then
			tail -n 30 "$out.tmp/build.log" >&2
			bench_die "dpkg-buildpackage in the trixie build root failed; see $out.tmp/build.log"
		fi
		mv "$build_root/build"/*.deb "$build_root/build"/*.changes \
			"$build_root/build"/*.buildinfo "$out.tmp/"
		rm -rf "$build_root/build"
		exec {lock}>&-
		;;
	*) bench_die "no package build for platform '$platform'" ;;
	esac
	rm -rf "$stage" "$out"
	mv "$out.tmp" "$out"
	# Keep the three newest packages of the platform.
	ls -1td "$dir/$platform"-*/ | tail -n +4 | xargs -r rm -rf
	project_deb=$(ls "$out"/pmemram_*.deb | head -n 1)
	bench_log "$platform package $key built in $(($(date +%s) - start))s"
}

# ensure_image [PLATFORM]: sets $kernel_out, $project_deb and $image to the
# platform's (default trixie) cached kernel, package and guest image.
ensure_image() {
	ensure_kernel "${1:-trixie}"
	ensure_deb "${1:-trixie}"
	image=$("$repo/tests/vm/mkimage.sh" -p "${1:-trixie}" "$kernel_out" "$project_deb" | tail -n 1)
	[ -s "$image" ] || bench_die "image build did not finish"
}
