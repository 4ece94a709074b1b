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

# ensure_kernel: sets $kernel_out to the cached build of the current series.
ensure_kernel() {
	kernel_out=$("$repo/kernel/build.sh" | tail -n 1)
	[ -f "$kernel_out/done" ] || bench_die "kernel build did not finish"
}

# ensure_deb: builds the Debian package of the files git knows (work tree
# contents, untracked files included) with `dpkg-buildpackage -b`, which runs
# make check too, and sets $project_deb to it.  Packages are kept under
# $cache/deb/KEY/, KEY the hash of those files, so an unchanged tree reuses
# its package; the build log is $cache/deb/KEY/build.log.
ensure_deb() {
	local dir=$cache/deb stage key out start
	stage=$dir/stage-$$
	mkdir -p "$dir"
	rm -rf "$stage"
	mkdir -p "$stage/src"
	(cd "$repo" && git ls-files -co --exclude-standard -z) |
		rsync -a --from0 --files-from=- "$repo/" "$stage/src/"
	key=$( (cd "$stage/src" && tar --sort=name --mtime=@0 --owner=0 --group=0 \
		--numeric-owner -cf - .) | sha256sum | cut -c1-16)
	out=$dir/$key
	project_deb=$(ls "$out"/pmemram_*.deb 2>/dev/null | head -n 1 || true)
	if [ -n "$project_deb" ]; then
		rm -rf "$stage"
		bench_log "cached package $key"
		return 0
	fi
	bench_log "dpkg-buildpackage -b (package $key)"
	start=$(date +%s)
	mkdir -p "$out.tmp"
	if ! (cd "$stage/src" && dpkg-buildpackage -b -us -uc) >"$out.tmp/build.log" 2>&1; then
		tail -n 30 "$out.tmp/build.log" >&2
		bench_die "dpkg-buildpackage failed; see $out.tmp/build.log"
	fi
	mv "$stage"/*.deb "$stage"/*.changes "$stage"/*.buildinfo "$out.tmp/"
	rm -rf "$stage" "$out"
	mv "$out.tmp" "$out"
	# Keep the three newest packages.
	ls -1td "$dir"/*/ | tail -n +4 | xargs -r rm -rf
	project_deb=$(ls "$out"/pmemram_*.deb | head -n 1)
	bench_log "package $key built in $(($(date +%s) - start))s"
}

# ensure_image: sets $image to the cached guest image for the current
# kernel and package.
ensure_image() {
	ensure_kernel
	ensure_deb
	image=$("$repo/tests/vm/mkimage.sh" "$kernel_out" "$project_deb" | tail -n 1)
	[ -s "$image" ] || bench_die "image build did not finish"
}
