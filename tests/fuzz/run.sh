#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build pmemram's libFuzzer targets (clang, ASan+UBSan) and run each from its
# committed seed corpus for a bounded time; any crash, leak or broken
# invariant fails it.  Ends with "N passed, N failed" (one per target).
#
# Usage: tests/fuzz/run.sh [-t SECONDS] [TARGET...]
#   -t SECONDS  time per target (default $PMEMRAM_FUZZ_SECONDS or 30)
# The build and the corpora that grow while fuzzing live under
# $PMEMRAM_CACHE/build/fuzz (default /var/cache/pmemram); see tests/fuzz/README.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${PMEMRAM_CACHE:-/var/cache/pmemram}
build=$cache/build/fuzz
seconds=${PMEMRAM_FUZZ_SECONDS:-30}
targets=(fuzz-config fuzz-cmdline fuzz-udev-rules fuzz-parsers fuzz-request fuzz-bootfile)

while getopts t:h opt; do
	case $opt in
	t) seconds=$OPTARG ;;
	*) awk 'NR > 1 && /^# SPDX-License-Identifier:/ { next } NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || targets=("$@")

mkdir -p "$build/src"
(cd "$repo" && git ls-files -co --exclude-standard -z) |
	rsync -rlp --checksum --delete-missing-args --from0 --files-from=- "$repo/" "$build/src/"
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
(
	cd "$build/src"
	if [ ! -f Makefile ] || [ configure.ac -nt Makefile ] || [ Makefile.am -nt Makefile ]; then
		autoreconf -fi
		./configure -q CC=clang CFLAGS="$flags -fsanitize=fuzzer-no-link"
	fi
	make -j"$(nproc)" daemon/lib/libpmemram.a
) >"$build/build.log" 2>&1 || { tail -n 30 "$build/build.log"; echo "0 passed, ${#targets[@]} failed"; exit 1; }

includes=()
for d in "$build"/src/daemon/lib/*/; do includes+=(-I "$d"); done
passed=0
failed=0
for t in "${targets[@]}"; do
	log=$build/$t.log
	extra=()
	libs=()
	# The request path is pmemramd's own server.c, with the manager stubbed by the target.
	if [ "$t" = fuzz-request ]; then
		extra=(-I "$build/src/daemon/pmemramd" "$build/src/daemon/pmemramd/server.c"
			-Wl,--wrap=sd_event_add_io,--wrap=sd_event_add_time,--wrap=sd_event_add_defer)
		libs=(-lsystemd -ljson-c)
	fi
	if ! clang $flags -fsanitize=fuzzer -include "$build/src/config.h" "${includes[@]}" \
		-o "$build/$t" "$here/$t.c" "${extra[@]}" "$build/src/daemon/lib/libpmemram.a" "${libs[@]}" \
		>"$log" 2>&1; then
		echo "FAIL $t: does not build"
		tail -n 20 "$log"
		failed=$((failed + 1))
		continue
	fi
	# New inputs go to a corpus outside the repository; the seeds stay as committed.
	mkdir -p "$build/corpus/$t"
	if "$build/$t" -max_total_time="$seconds" -print_final_stats=1 -detect_leaks=1 \
		-artifact_prefix="$build/$t-" "$build/corpus/$t" "$here/corpus/$t" >"$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -n 1)
		echo "ok $t: $execs runs in ${seconds}s, $cov"
		passed=$((passed + 1))
	else
		echo "FAIL $t: see $log"
		grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -n 10
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
