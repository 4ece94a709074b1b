#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every pmemram test: install what is missing, build the project and run
# the unit tests, build (or reuse) each platform's kernel and guest image
# (trixie: Debian 13 on linux-source-6.12; bookworm: Debian 12 on 6.1), and
# run every VM scenario of tests/vm/scenarios.list on the platforms its line
# names.
#
# Usage: tests/run-all.sh [--unit-only | --vm-only] [RUN-NAME[.PLATFORM]...]
# The unit part also runs the fuzz targets (tests/fuzz/run.sh) for 30 s each,
# and tests/format-check.sh: the C lines changed since .clang-format came
# follow it, and every source file has its SPDX line.
#
# The work runs in lanes, as many as the machine has cores (PMEMRAM_LANES to
# set them): the unit jobs (the gcc and the clang builds, the plain build
# under valgrind, the package, the fuzz targets) and the VM scenarios share
# them, the longest first by the last run's durations
# ($PMEMRAM_CACHE/timings).  Scenarios marked "alone" in scenarios.list run
# after the lanes, one at a time, on a quiet machine.  A line is printed as
# each job ends; a failed scenario's report follows at the end, then the ten
# slowest scenarios and the time of each part.
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
lanes=${PMEMRAM_LANES:-$(nproc)}
[[ $lanes =~ ^[1-9][0-9]*$ ]] || bench_die "PMEMRAM_LANES must be a positive number, not '$lanes'"

t0=$(date +%s)
"$repo/tests/deps.sh"
passed=0
failed=0
failures=()
retried=0
timings=$cache/timings
# Each run's job outputs in a directory of its own, kept for a look afterwards:
# two runs at once (CI and a scenario run by hand) must not remove each
# other's.  Those of runs over 12 hours old go.
mkdir -p "$cache/jobs" "$timings"
find "$cache/jobs" -mindepth 1 -maxdepth 1 -mmin +720 -exec rm -rf {} +
jobdir=$(mktemp -d "$cache/jobs/run.XXXXXX")
# One line per part and per job, for the table at the end: PART SECONDS NAME.
: >"$jobdir/table"
timing() { printf '%s %s %s\n' "$1" "$3" "$2" >>"$jobdir/table"; }

# add_counts LABEL OUTPUT SECONDS: show OUTPUT's failures and add its closing
# "N passed, N failed" to the totals; no such line counts as one failure.
add_counts() {
	local re='^([0-9]+) passed, ([0-9]+) failed$' line
	grep -Ev "^ok |$re" <<<"$2" || true
	line=$(grep -E "$re" <<<"$2" | tail -n 1) || true
	if [[ $line =~ $re ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
		[ "${BASH_REMATCH[2]}" = 0 ] || failures+=("$1: ${BASH_REMATCH[2]} failed")
		printf '%5ss  %s: %s\n' "$3" "$1" "$line"
	else
		failed=$((failed + 1))
		failures+=("$1: did not finish")
		printf '%5ss  %s: did not finish\n' "$3" "$1"
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

# unit_check NAME CC: configure with sanitizers, build, make check; prints
# make check's closing "N passed, N failed".
unit_check() {
	local dir log=$cache/build/unit-$1.log
	dir=$(unit_tree "$1")
	(cd "$dir" && autoreconf -fi && CC=$2 ./configure --enable-sanitizers &&
		make -j"$(nproc)" && make check) >"$log" 2>&1 || tail -n 30 "$log"
	grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1
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

# A plain build: the CLI under valgrind (no leaks, no errors) against this
# machine's sysfs, then make distcheck.  One test.
unit_plain() {
	local dir log=$cache/build/unit-plain.log
	dir=$(unit_tree plain)
	vg=(valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --error-exitcode=99)
	if (cd "$dir" && autoreconf -fi && ./configure && make -j"$(nproc)" &&
		"${vg[@]}" ./pmemramctl status --json >/dev/null &&
		"${vg[@]}" ./pmemramctl status >/dev/null &&
		"${vg[@]}" ./pmemramctl plan --json --config "$dir/no-such-dir" >/dev/null &&
		vg_daemon_and_changes "$dir" &&
		make -j"$(nproc)" distcheck) >"$log" 2>&1; then
		echo "1 passed, 0 failed"
	else
		tail -n 30 "$log"
		echo "0 passed, 1 failed"
	fi
}

# The Debian package a platform's guest image installs: dpkg-buildpackage -b
# (make check included) as on its suite, then that suite's lintian with no
# error or warning (bookworm's here, trixie's in the trixie build root).  One
# test.
unit_package() {
	local log=$cache/build/lintian-$1.log
	if (ensure_deb "$1" && lint_deb "$1") >"$log" 2>&1; then
		echo "1 passed, 0 failed"
	else
		tail -n 30 "$log"
		echo "0 passed, 1 failed"
	fi
	grep -E '^[EWIP]: ' "$log" || true
}

lint_deb() {
	local changes=${project_deb%.deb}.changes lint=(lintian --fail-on error,warning --pedantic -I) lock
	if [ "$1" = bookworm ]; then
		"${lint[@]}" "$changes"
		return
	fi
	exec {lock}>"$cache/deb/root.lock"
	flock "$lock"
	ensure_build_root "$1"
	rm -rf "$build_root/lint"
	mkdir -p "$build_root/lint"
	cp "$(dirname "$changes")"/* "$build_root/lint/"
	in_build_root /lint "${lint[*]} $(basename "$changes")"
}

# The jobs.  A job is an ID: "unit-NAME" or "selftest" (its output ends with
# "N passed, N failed"), or "vm-RUNNAME.PLATFORM", a line of scenarios.list on
# one of its platforms (passes when run.sh does).
declare -A scen_line scen_alone kernel_of image_of
job_label() {
	case $1 in
	unit-format) echo "format and SPDX checks" ;;
	unit-gcc) echo "unit tests (gcc, ASan+UBSan)" ;;
	unit-clang) echo "unit tests (clang, ASan+UBSan)" ;;
	unit-metrics) echo "metrics scrape" ;;
	unit-monitoring) echo "monitoring rules and dashboard" ;;
	unit-plain) echo "valgrind + distcheck" ;;
	unit-package-*) echo "debian package + lintian (${1#unit-package-})" ;;
	unit-fuzz) echo "fuzz targets" ;;
	selftest) echo "bench self-test" ;;
	vm-*) echo "scenario ${1#vm-}" ;;
	esac
}

# run_scenario RUNNAME.PLATFORM: its line of scenarios.list through run.sh,
# on that platform's kernel and image.  Words of the form @VAR=VALUE are
# scenario environment, "alone" a place in the order, the rest kernel
# command-line arguments.
run_scenario() {
	local scenario topology platforms extra w envargs=() kextra= platform=${1##*.}
	read -r scenario topology platforms extra <<<"${scen_line[$1]}"
	for w in $extra; do
		case $w in
		@*=*) envargs+=(-e "${w#@}") ;;
		alone) ;;
		*) kextra="$kextra $w" ;;
		esac
	done
	PMEMRAM_KERNEL_OUT=${kernel_of[$platform]} PMEMRAM_IMAGE=${image_of[$platform]} \
		"$repo/tests/vm/run.sh" -q -p "$platform" -n "${1%.*}-$platform" -t "$topology" \
		-a "${kextra# }" "${envargs[@]+"${envargs[@]}"}" "$scenario"
}

job_exec() {
	case $1 in
	unit-format) "$repo/tests/format-check.sh" ;;
	# The metrics and NFD files against promtool, node_exporter and NFD's rules, and the
	# monitoring files against promtool and that scrape, from the gcc build that make check made.
	unit-gcc)
		unit_check gcc gcc
		echo "== unit-metrics"
		"$repo/tests/unit/metrics-scrape.sh" "$cache/build/unit-gcc"
		echo "== unit-monitoring"
		"$repo/tests/unit/monitoring-check.sh" "$cache/build/unit-gcc"
		;;
	unit-clang) unit_check clang clang ;;
	unit-plain) unit_plain ;;
	unit-package-*) unit_package "${1#unit-package-}" ;;
	unit-fuzz) "$repo/tests/fuzz/run.sh" ;;
	selftest)
		PMEMRAM_KERNEL_OUT=${kernel_of[trixie]} PMEMRAM_IMAGE=${image_of[trixie]} \
			"$repo/tests/vm/selftest.sh"
		;;
	vm-*) run_scenario "${1#vm-}" ;;
	esac
}

# job_done ID STATUS SECONDS: one line for the job, its counts in the totals.
# A unit job's output may hold several results, each after a line "== ID".
job_done() {
	local id=$1 st=$2 secs=$3 out=$jobdir/$1.out part=$1 text= line verdict
	echo "$secs" >"$timings/$id"
	timing "$(job_part "$id")" "$id" "$secs"
	if [[ $id != vm-* ]]; then
		while IFS= read -r line || [ -n "$line" ]; do
			if [[ $line == "== "* ]]; then
				add_counts "$(job_label "$part")" "$text" "$secs"
				part=${line#== } text=
			else
				text+=$line$'\n'
			fi
		done <"$out"
		add_counts "$(job_label "$part")" "$text" "$secs"
		return
	fi
	verdict=$(head -n 1 "$out")
	! grep -q ' retried' <<<"$verdict" || retried=$((retried + 1))
	if [ "$st" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("scenario ${id#vm-}")
		failed_runs+=("$id")
	fi
	printf '%5ss  %s\n' "$secs" "${verdict:-${id#vm-}: run.sh printed nothing (status $st)}"
}

job_part() {
	case $1 in
	unit-* | selftest) echo "${1%%-*}" ;;
	vm-*) if [ "${scen_alone[${1#vm-}]}" = 1 ]; then echo alone; else echo lanes; fi ;;
	esac
}

# by_duration ID...: the IDs, the longest by the last run first; those never
# timed before the rest, in the order given.
by_duration() {
	local id
	for id in "$@"; do
		printf '%s %s\n' "$(cat "$timings/$id" 2>/dev/null || echo 999999)" "$id"
	done | sort -s -k1,1nr | cut -d' ' -f2
}

# lanes_run N ID...: run the jobs in the order given, at most N at a time,
# each one's output in $jobdir/ID.out; job_done as each ends.
declare -A job_of job_start
lanes_run() {
	local n=$1 id pid st running=0
	shift
	for id in "$@" ''; do
		while [ "$running" -gt 0 ] && { [ -z "$id" ] || [ "$running" -ge "$n" ]; }; do
			st=0
			wait -n -p pid || st=$?
			job_done "${job_of[$pid]}" "$st" $(($(date +%s) - job_start[$pid]))
			running=$((running - 1))
		done
		[ -n "$id" ] || break
		job_exec "$id" >"$jobdir/$id.out" 2>&1 &
		job_of[$!]=$id
		job_start[$!]=$(date +%s)
		running=$((running + 1))
	done
}

jobs_lanes=()
jobs_alone=()
failed_runs=()
if [ "$unit" = 1 ]; then
	jobs_lanes+=(unit-format unit-gcc unit-clang unit-plain unit-fuzz)
fi
# Both platforms' packages, the unit jobs' lintian on each.
[ "$unit" = 0 ] || jobs_lanes+=(unit-package-trixie unit-package-bookworm)
if [ "$vm" = 1 ]; then
	# Each platform's kernel and image, built once for every lane: run.sh
	# takes them as they are.
	for platform in trixie bookworm; do
		s=$(date +%s)
		ensure_kernel "$platform"
		timing setup "kernel $platform (build or cache)" $(($(date +%s) - s))
		s=$(date +%s)
		ensure_image "$platform"
		timing setup "guest image $platform (build or cache)" $(($(date +%s) - s))
		kernel_of[$platform]=$kernel_out
		image_of[$platform]=$image
	done
	# Kernel conventions: checkpatch --strict on every patch of each series.
	s=$(date +%s)
	add_counts checkpatch "$("$repo/kernel/check-series.sh" || true)" $(($(date +%s) - s))
	timing setup "checkpatch of the series" $(($(date +%s) - s))
	while read -r rname scenario topology platforms rest; do
		case $rname in '' | \#*) continue ;; esac
		case $platforms in
		both) platforms="trixie bookworm" ;;
		trixie | bookworm) ;;
		*) bench_die "scenarios.list: $rname: platforms '$platforms' (both, trixie or bookworm)" ;;
		esac
		for platform in $platforms; do
			id=$rname.$platform
			if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qxF -e "$rname" -e "$id"; then
				continue
			fi
			scen_line[$id]="$scenario $topology $platforms $rest"
			scen_alone[$id]=0
			if [[ " $rest " == *" alone "* ]]; then
				scen_alone[$id]=1
				jobs_alone+=("vm-$id")
			else
				jobs_lanes+=("vm-$id")
			fi
		done
	done <"$repo/tests/vm/scenarios.list"
	# The bench must fail when it should.
	[ ${#only[@]} -gt 0 ] || jobs_lanes+=(selftest)
fi

s=$(date +%s)
echo "run-all: ${#jobs_lanes[@]} jobs in $lanes lanes, then ${#jobs_alone[@]} alone"
# shellcheck disable=SC2046 # IDs are single words
lanes_run "$lanes" $(by_duration "${jobs_lanes[@]+"${jobs_lanes[@]}"}")
timing phase "lanes (wall clock)" $(($(date +%s) - s))
s=$(date +%s)
lanes_run 1 "${jobs_alone[@]+"${jobs_alone[@]}"}"
timing phase "alone (wall clock)" $(($(date +%s) - s))

for id in "${failed_runs[@]+"${failed_runs[@]}"}"; do
	echo "== ${id#vm-}"
	cat "$jobdir/$id.out"
done
echo "The ten slowest scenarios:"
awk '$1 == "lanes" || $1 == "alone" { printf "%6ds  %s (%s)\n", $2, substr($3, 4), $1 }' "$jobdir/table" |
	sort -k1,1nr | head -n 10
echo "Time per part:"
awk '$1 == "setup" || $1 == "phase" { s = $2; $1 = $2 = ""; printf "%6ds  %s\n", s, substr($0, 3); next }
	{ sum[$1] += $2; n[$1]++ }
	END { for (p in sum) printf "%6ds  %s: %d job(s), the sum of their times\n", sum[p], p, n[p] }' "$jobdir/table"
printf '%6ds  whole suite\n' $(($(date +%s) - t0))
echo "summary: ${#jobs_lanes[@]} jobs in $lanes lanes and ${#jobs_alone[@]} alone, $retried boot(s) retried, $(($(date +%s) - t0)) s"
for f in "${failures[@]+"${failures[@]}"}"; do echo "failed: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
