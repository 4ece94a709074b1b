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

# ensure_project: builds the project out of tree (from the files git knows,
# so an in-tree ./configure does not get in the way) and installs it into
# $project_destdir as the guest will see it.  The build lives in
# $PMEMRAM_PROJECT_BUILD (default $cache/build), so that two work trees can
# share one cache without building over each other.
ensure_project() {
	local build=${PMEMRAM_PROJECT_BUILD:-$cache/build}
	local bsrc=$build/src bdir=$build/obj
	project_destdir=$build/destdir
	mkdir -p "$bsrc" "$bdir"
	# Copy by content, not keeping the source tree's mtimes: a file that
	# changed gets the time of the copy, so make rebuilds what depends on
	# it even when another tree (a CI clone) built here after the file's
	# own mtime.  Unchanged files keep their old times.
	(cd "$repo" && git ls-files -co --exclude-standard -z) |
		rsync -rlp --checksum --delete-missing-args --from0 --files-from=- "$repo/" "$bsrc/"
	# Regenerate and reconfigure when the build inputs' content changed.
	local stamp
	stamp=$(cat "$bsrc/configure.ac" "$bsrc/Makefile.am" | sha256sum | cut -c1-16)
	stamp="$stamp $bsrc"
	if [ "$(cat "$bdir/.pmemram-stamp" 2>/dev/null)" != "$stamp" ]; then
		bench_log "autoreconf + configure"
		rm -rf "$bdir"
		mkdir -p "$bdir"
		(cd "$bsrc" && autoreconf -fi) >"$build/autoreconf.log" 2>&1 ||
			bench_die "autoreconf failed; see $build/autoreconf.log"
		(cd "$bdir" && "$bsrc/configure" --prefix=/usr --sysconfdir=/etc \
			--localstatedir=/var) >"$build/configure.log" 2>&1 ||
			bench_die "configure failed; see $build/configure.log"
		echo "$stamp" >"$bdir/.pmemram-stamp"
	fi
	make -C "$bdir" -j"$(nproc)" >"$build/make.log" 2>&1 ||
		bench_die "project build failed; see $build/make.log"
	rm -rf "$project_destdir"
	make -C "$bdir" install DESTDIR="$project_destdir" >>"$build/make.log" 2>&1 ||
		bench_die "make install failed; see $build/make.log"
}

# ensure_image: sets $image to the cached guest image for the current
# kernel and project.
ensure_image() {
	ensure_kernel
	ensure_project
	image=$("$repo/tests/vm/mkimage.sh" "$kernel_out" "$project_destdir" | tail -n 1)
	[ -s "$image" ] || bench_die "image build did not finish"
}
