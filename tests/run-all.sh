#!/bin/bash
# Run every pmemram test: install what is missing, build the project and run
# the unit tests, build (or reuse) the kernel and guest image, and run every
# VM scenario in tests/vm/scenarios.list.
#
# Usage: tests/run-all.sh [--unit-only | --vm-only] [SCENARIO-RUN-NAME...]
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
	-h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
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

if [ "$unit" = 1 ]; then
	# Unit tests in a scratch copy of the tree, so the work tree stays clean.
	ubuild=$cache/build/unit
	rm -rf "$ubuild"
	mkdir -p "$ubuild"
	(cd "$repo" && git ls-files -co --exclude-standard -z) |
		rsync -a --from0 --files-from=- "$repo/" "$ubuild/"
	s=$(date +%s)
	ulog=$cache/build/unit.log
	if (cd "$ubuild" && autoreconf -fi && ./configure --enable-sanitizers &&
		make -j"$(nproc)" && make check) >"$ulog" 2>&1; then
		:
	else
		tail -n 40 "$ulog"
		echo "unit tests FAILED (log: $ulog)"
	fi
	# The test-suite summary is the source of truth for the counts.
	summary=$(find "$ubuild" -name test-suite.log | head -n 1)
	if [ -n "$summary" ]; then
		up=$(sed -n 's/^# PASS: *//p' "$summary" | head -n 1)
		uf=$(($(sed -n 's/^# FAIL: *//p' "$summary" | head -n 1) + $(sed -n 's/^# ERROR: *//p' "$summary" | head -n 1)))
		passed=$((passed + ${up:-0}))
		failed=$((failed + uf))
		[ "$uf" = 0 ] || failures+=("unit tests: $uf failed (see $summary)")
		echo "unit: ${up:-0} passed, $uf failed"
	else
		failed=$((failed + 1))
		failures+=("unit tests did not run (see $ulog)")
	fi
	timing "unit build + make check" $(($(date +%s) - s))
fi

if [ "$vm" = 1 ]; then
	s=$(date +%s)
	ensure_kernel
	timing "kernel (build or cache)" $(($(date +%s) - s))
	# Kernel conventions: checkpatch --strict on every patch of the series.
	s=$(date +%s)
	cs=$("$repo/kernel/check-series.sh" || true)
	grep -v '^ok ' <<<"$cs" | grep -v 'passed, .* failed$' || true
	cp=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' <<<"$cs")
	cf=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' <<<"$cs")
	if [ -z "$cp" ]; then
		failed=$((failed + 1))
		failures+=("kernel/check-series.sh did not finish")
	else
		passed=$((passed + cp))
		failed=$((failed + cf))
		[ "$cf" = 0 ] || failures+=("checkpatch: $cf patch(es)")
		echo "checkpatch: $cp passed, $cf failed"
	fi
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
fi

timing "whole suite" $(($(date +%s) - t0))
for f in "${failures[@]+"${failures[@]}"}"; do echo "failed: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
