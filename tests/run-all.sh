#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every pmemram test: install what is missing, build the project and run
# the unit tests, build (or reuse) the kernel and guest image, and run every
# VM scenario in tests/vm/scenarios.list.
#
# Usage: tests/run-all.sh [--unit-only | --vm-only] [SCENARIO-RUN-NAME...]
# The unit part also runs the fuzz targets (tests/fuzz/run.sh) for 30 s each,
# and tests/format-check.sh: the C lines changed since .clang-format came
# follow it, and every source file has its SPDX line.
# Ends with "N passed, N failed" counting every unit test and scenario.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/vm/common.sh"

unit=1
vm=1
only=()
for arg in "$@"; do
	case $arg in
	--unit-only) vm=0 ;;
	--vm-only) unit=0 ;;
	-h | --help) awk 'NR > 1 && /^# SPDX-License-Identifier:/ { next } NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	-*) bench_die "unknown option $arg" ;;
	*) only+=("$arg") ;;
	esac
done

t0=$(date +%s)
"$repo/tests/deps.sh"
passed=0
failed=0
failures=()
timing() { printf 'timing: %-28s %4ds\n' "$1" "$2"; }
# add_counts LABEL OUTPUT: show OUTPUT's failures and add its closing
# "N passed, N failed" to the totals; no such line counts as one failure.
add_counts() {
	local re='^([0-9]+) passed, ([0-9]+) failed$' line
	grep -Ev "^ok |$re" <<<"$2" || true
	line=$(grep -E "$re" <<<"$2" | tail -n 1) || true
	if [[ $line =~ $re ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
		[ "${BASH_REMATCH[2]}" = 0 ] || failures+=("$1: ${BASH_REMATCH[2]} failed")
		echo "$1: $line"
	else
		failed=$((failed + 1))
		failures+=("$1: did not finish")
	fi
}

# unit_tree NAME: a fresh copy of the work tree's files under the cache, so
# the work tree itself stays clean; prints its path.
unit_tree() {
	local dir=$cache/build/unit-$1
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$repo" && git ls-files -co --exclude-standard -z) |
		rsync -a --from0 --files-from=- "$repo/" "$dir/"
	echo "$dir"
}

# unit_check NAME CC: configure with sanitizers, build, make check; adds
# make check's closing "N passed, N failed" to the totals.
unit_check() {
	local dir log=$cache/build/unit-$1.log s
	s=$(date +%s)
	dir=$(unit_tree "$1")
	(cd "$dir" && autoreconf -fi && CC=$2 ./configure --enable-sanitizers &&
		make -j"$(nproc)" && make check) >"$log" 2>&1 || tail -n 30 "$log"
	add_counts "unit tests ($1, ASan+UBSan)" \
		"$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)"
	timing "unit tests ($1)" $(($(date +%s) - s))
}

# The commands that change things, and pmemramd, under valgrind with nothing
# claimed: claim/unclaim in a scratch configuration directory, and a daemon
# on a scratch socket answering status and reconcile (which finds nothing to
# do on this machine: nothing is claimed, so nothing is touched).
vg_daemon_and_changes() {
	local d=$1 t pid rc=0
	t=$(mktemp -d)
	export PMEMRAM_SOCKET=$t/pmemramd.sock
	"${vg[@]}" "$d/pmemramctl" claim --config "$t/etc" vg --uuid 01234567-89ab-cdef-0123-456789abcdef &&
		"${vg[@]}" "$d/pmemramctl" --json unclaim --config "$t/etc" vg >/dev/null &&
		"${vg[@]}" "$d/pmemramctl" reconcile --local --config "$t/etc" >/dev/null || rc=1
	# A tiering class: pmemramd writes its slice below $t/slices (no systemd reload there).
	mkdir -p "$t/etc/pmemram.conf.d" && printf '[class "vg"]\nnodes = all\n' >"$t/etc/pmemram.conf.d/60-vg.conf"
	"${vg[@]}" "$d/pmemramctl" classes --config "$t/etc" >/dev/null || rc=1
	PMEMRAM_CONFIG_DIR=$t/etc PMEMRAM_SLICE_DIR=$t/slices PMEMRAM_LOG_TARGET=stderr "${vg[@]}" "$d/pmemramd" --settle-timeout 0 &
	pid=$!
	for _ in $(seq 100); do [ -S "$PMEMRAM_SOCKET" ] && break; sleep 0.1; done
	"${vg[@]}" "$d/pmemramctl" status --json >/dev/null &&
		"${vg[@]}" "$d/pmemramctl" reconcile >/dev/null || rc=1
	grep -q '^AllowedMemoryNodes=' "$t/slices/pmemram-vg.slice" || rc=1
	kill -TERM "$pid"
	wait "$pid" || rc=1
	unset PMEMRAM_SOCKET
	rm -rf "$t"
	return "$rc"
}

if [ "$unit" = 1 ]; then
	# Format and SPDX lines, on the work tree itself (the format check needs
	# its history): one test each.
	s=$(date +%s)
	add_counts "format and SPDX checks" "$("$repo/tests/format-check.sh" || true)"
	timing "format and SPDX checks" $(($(date +%s) - s))
	unit_check gcc gcc
	# The metrics and NFD files against promtool, node_exporter and NFD's rules, from the gcc
	# build that make check just made: one test each.
	s=$(date +%s)
	add_counts "metrics scrape" "$("$repo/tests/unit/metrics-scrape.sh" "$cache/build/unit-gcc" || true)"
	timing "metrics scrape" $(($(date +%s) - s))
	unit_check clang clang
	# A plain build: the CLI under valgrind (no leaks, no errors) against
	# this machine's sysfs, then make distcheck.  One test.
	s=$(date +%s)
	dir=$(unit_tree plain)
	log=$cache/build/unit-plain.log
	vg=(valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --error-exitcode=99)
	if (cd "$dir" && autoreconf -fi && ./configure && make -j"$(nproc)" &&
		"${vg[@]}" ./pmemramctl status --json >/dev/null &&
		"${vg[@]}" ./pmemramctl status >/dev/null &&
		"${vg[@]}" ./pmemramctl plan --json --config "$dir/no-such-dir" >/dev/null &&
		vg_daemon_and_changes "$dir" &&
		make -j"$(nproc)" distcheck) >"$log" 2>&1; then
		add_counts "valgrind + distcheck" "1 passed, 0 failed"
	else
		tail -n 30 "$log"
		add_counts "valgrind + distcheck" "0 passed, 1 failed"
	fi
	timing "valgrind + distcheck" $(($(date +%s) - s))
	# The Debian package the guest image installs: dpkg-buildpackage -b
	# (make check included), then lintian with no error or warning.  One test.
	s=$(date +%s)
	log=$cache/build/lintian.log
	if (ensure_deb && lintian --fail-on error,warning --pedantic -I \
		"${project_deb%.deb}.changes") >"$log" 2>&1; then
		add_counts "debian package + lintian" "1 passed, 0 failed"
	else
		tail -n 30 "$log"
		add_counts "debian package + lintian" "0 passed, 1 failed"
	fi
	grep -E '^[EWIP]: ' "$log" || true
	timing "debian package + lintian" $(($(date +%s) - s))
	# libFuzzer targets, 30 s each from their seed corpora: one test each.
	s=$(date +%s)
	add_counts "fuzz targets" "$("$repo/tests/fuzz/run.sh" || true)"
	timing "fuzz targets" $(($(date +%s) - s))
fi

if [ "$vm" = 1 ]; then
	s=$(date +%s)
	ensure_kernel
	timing "kernel (build or cache)" $(($(date +%s) - s))
	# Kernel conventions: checkpatch --strict on every patch of the series.
	s=$(date +%s)
	add_counts checkpatch "$("$repo/kernel/check-series.sh" || true)"
	timing "checkpatch of the series" $(($(date +%s) - s))
	s=$(date +%s)
	ensure_image
	timing "guest image (build or cache)" $(($(date +%s) - s))
	while read -r rname scenario topology extra; do
		case $rname in '' | \#*) continue ;; esac
		if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$rname"; then
			continue
		fi
		# Words of the form @VAR=VALUE are scenario environment, the
		# rest kernel command-line arguments.
		envargs=()
		kextra=
		for w in $extra; do
			case $w in
			@*=*) envargs+=(-e "${w#@}") ;;
			*) kextra="$kextra $w" ;;
			esac
		done
		s=$(date +%s)
		if "$repo/tests/vm/run.sh" -q -n "$rname" -t "$topology" -a "${kextra# }" \
			"${envargs[@]+"${envargs[@]}"}" "$scenario"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			failures+=("scenario $rname")
		fi
		timing "scenario $rname" $(($(date +%s) - s))
	done <"$repo/tests/vm/scenarios.list"
	# The bench must fail when it should.
	if [ ${#only[@]} = 0 ]; then
		s=$(date +%s)
		add_counts "bench self-test" "$("$repo/tests/vm/selftest.sh" || true)"
		timing "bench self-test" $(($(date +%s) - s))
	fi
fi

timing "whole suite" $(($(date +%s) - t0))
for f in "${failures[@]+"${failures[@]}"}"; do echo "failed: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
