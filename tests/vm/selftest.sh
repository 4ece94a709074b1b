#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Show that the bench fails when it should: a failed assertion, a kernel
# Call Trace with all assertions passing, a hung scenario (with its vCPUs'
# kernel symbols) and a failure in the
# first of two boots must each make
# run.sh fail, with the reason in its report.  Ends with "N passed, N failed".
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

passed=0
failed=0
# expect_fail SCENARIO REGEX [run.sh options...]: REGEX may be several lines, each to be found.
expect_fail() {
	local scenario=$1 want=$2 out rc=0 found=1 w
	shift 2
	out=$("$repo/tests/vm/run.sh" -q -n "selftest-${scenario##*/}" "$@" "$scenario" 2>&1) || rc=$?
	while IFS= read -r w; do
		grep -qE -- "$w" <<<"$out" || found=0
	done <<<"$want"
	if [ "$rc" = 1 ] && [ "$found" = 1 ]; then
		passed=$((passed + 1))
		echo "ok selftest $scenario: failed as it should (/$want/)"
	else
		failed=$((failed + 1))
		echo "FAIL selftest $scenario: run.sh exited $rc, wanted 1 and /$want/ in:"
		sed 's/^/    /' <<<"$out" | head -n 20
	fi
}

expect_fail selftest/failing-assertion 'not ok 2 - deliberately wrong'
expect_fail selftest/kernel-trace 'kernel trouble in .*Call Trace'
# A hung guest also leaves where its vCPUs were, by kernel symbol.
expect_fail selftest/hang 'timed out after 60s
vCPUs just before the timeout: [a-z_0-9.]+\+0x[0-9a-f]+ x[0-9]+' -T 60
expect_fail selftest/failing-first-boot 'boot 1: 1 assertion\(s\) failed'
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
