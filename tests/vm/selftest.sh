#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Show that the bench fails when it should: a failed assertion, a kernel
# Call Trace with all assertions passing, a hung scenario (with its vCPUs'
# kernel symbols), a failure in the first of two boots and QEMU dying
# before the scenario starts must each make run.sh fail, with the reason in
# its report; a boot that stands still before the scenario starts is retried
# once, and the scenario then runs; twice fails.  Ends with "N passed, N
# failed".
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# The cases run side by side: the kernel and the image are made once, before them.
if [ -z "${PMEMRAM_KERNEL_OUT:-}" ] || [ -z "${PMEMRAM_IMAGE:-}" ]; then
	ensure_image
	export PMEMRAM_KERNEL_OUT=$kernel_out PMEMRAM_IMAGE=$image
fi
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
# expect_fail RUN SCENARIO REGEX [run.sh options...]: run SCENARIO as run RUN; REGEX may be
# several lines, each to be found.  The verdict goes to $results/RUN (one that did not finish
# says so), so that cases can run side by side.
expect_fail() {
	local run=$1 scenario=$2 want=$3 out rc=0 found=1 w
	shift 3
	echo "FAIL selftest $run: did not finish" >"$results/$run"
	out=$("$repo/tests/vm/run.sh" -q -n "$run" "$@" "$scenario" 2>&1) || rc=$?
	while IFS= read -r w; do
		grep -qE -- "$w" <<<"$out" || found=0
	done <<<"$want"
	if [ "$rc" = 1 ] && [ "$found" = 1 ]; then
		echo "ok selftest $run: failed as it should (/$want/)"
	else
		echo "FAIL selftest $run: run.sh exited $rc, wanted 1 and /$want/ in:"
		sed 's/^/    /' <<<"$out" | head -n 20
	fi >"$results/$run"
}
# on_qemu NAME TIMES ACTION: run ACTION PID NAME on each of the first TIMES QEMUs of run NAME
# as soon as it starts; it watches for 10 minutes, longer than a boot limit and a boot (a retry's
# QEMU starts only when the boot before it reached the limit).
on_qemu() {
	local n=0 pid seen= tries=0
	while [ "$n" -lt "$2" ] && [ "$tries" -lt 3000 ]; do
		pid=$(pgrep -f "^qemu-system-x86_64 .*/runs/$1/" | head -n 1 || true)
		if [ -n "$pid" ] && [ "$pid" != "$seen" ]; then
			"$3" "$pid" "$1"
			seen=$pid n=$((n + 1))
		fi
		sleep 0.2
		tries=$((tries + 1))
	done
}
# crash_qemu PID: SIGSEGV, as QEMU 7.2's multi-threaded TCG now and then did itself.
crash_qemu() { kill -SEGV "$1" 2>/dev/null || true; }
# stop_vcpus PID NAME: pause the guest through the QEMU monitor, as a boot whose vCPU lost its
# timer stands still: the QEMU lives on, the scenario never starts.
stop_vcpus() {
	local i sock=$cache/runs/$2/monitor.sock
	for ((i = 0; i < 100; i++)); do
		if [ -S "$sock" ] && printf 'stop\n' | socat -t 1 - "UNIX-CONNECT:$sock" >/dev/null 2>&1; then
			return
		fi
		sleep 0.1
	done
}

# The three cases that wait for a limit (a guest that sleeps or stands still, costing no CPU)
# run in the background, beside the others.  The limits leave room for boots: seven guests
# start at once beside a lane's scenario on two cores, and on a slow host a boot then takes
# two minutes (CI failed once with 60 s and 40 s, each case's guest still booting).
# A hung guest also leaves where its vCPUs were, by kernel symbol.
expect_fail selftest-hang selftest/hang 'timed out after 300s
vCPUs just before the timeout: [a-z_0-9.]+\+0x[0-9a-f]+ x[0-9]+' -T 300 &
# A boot that stands still before its scenario starts is killed at the boot limit and retried
# once; twice fails the run.
(
	export PMEMRAM_BOOT_LIMIT=240
	on_qemu selftest-hung-once 1 stop_vcpus &
	expect_fail selftest-hung-once selftest/failing-assertion 'not ok 2 - deliberately wrong
note: boot 1 retried: in the first attempt, hung before the scenario started'
	wait
) &
(
	export PMEMRAM_BOOT_LIMIT=240
	on_qemu selftest-hung-twice 2 stop_vcpus &
	expect_fail selftest-hung-twice selftest/failing-assertion \
		'boot 1: hung before the scenario started, twice \(see console.failed1.2.log\)'
	wait
) &
expect_fail selftest-failing-assertion selftest/failing-assertion 'not ok 2 - deliberately wrong'
expect_fail selftest-kernel-trace selftest/kernel-trace 'kernel trouble in .*Call Trace'
expect_fail selftest-failing-first-boot selftest/failing-first-boot 'boot 1: 1 assertion\(s\) failed'
# A QEMU that dies is no longer retried: with one TCG thread nothing explains it.
on_qemu selftest-crash 1 crash_qemu &
expect_fail selftest-crash selftest/failing-assertion 'qemu exited with status 139'
wait

cat "$results"/*
passed=$(cat "$results"/* | grep -c '^ok ' || true)
echo "$passed passed, $(($(ls "$results" | wc -l) - passed)) failed"
[ "$passed" = "$(ls "$results" | wc -l)" ]
