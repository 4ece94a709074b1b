#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What pmemramd must not take and cannot give back.  A devdax device that a
# program holds open without mapping it (programs open first and map later)
# is refused when a claim appears, naming the program.  Then, once it is RAM,
# a release while a program keeps pages of it spliced into pipes nobody reads
# (Linux 6.1 retries such an offline until the writer gets a signal): the
# offline gives up at the daemon's offline timeout, the blocks already
# offlined go back online, the report names the block and the program, the
# hold is not kept, and pmemramd answers status all the while.
set -u
. ./lib.sh

timeout_s=5
plan 20
conf=/etc/pmemram/pmemram.conf
dropin=/etc/systemd/system/pmemramd.service.d
u=$(new_uuid)

must "initialise the label area" init_labels
mkdir -p /etc/pmemram "$dropin"
: >"$conf"
printf '[Service]\nExecStart=\nExecStart=%s --offline-timeout %d\n' "$(command -v pmemramd)" "$timeout_s" \
	>"$dropin/50-offline-timeout.conf"
must "reload systemd" systemctl daemon-reload
must "start pmemramd with --offline-timeout $timeout_s" systemctl restart pmemramd.service

E=$(mkns nsE devdax 480M "$u") || bail "cannot create the namespace"
n=$(dev_blocks "$E" | grep -c .)
note "$E: $n whole blocks"

# Open, not mapped.
/usr/lib/pmemram-test/dax-map "/dev/$E" 0 >"$PMEMRAM_OUT/dax-open.out" 2>&1 &
holder=$!
ok "dax-map holds /dev/$E open" wait_for 10 'grep -q open "$PMEMRAM_OUT/dax-open.out"'
printf '[claim "pinned"]\nmatch = uuid:%s\n' "$u" >"$conf"
must "reload pmemramd" systemctl reload pmemramd.service
ok "daemon: $E refused as open" wait_for 20 '[ "$(daemon_verdict "$E")" = "refused open" ]'
is "$E stays on device_dax" "$(dev_driver "$E")" device_dax
ok "the refusal names the program" sh -c "pmemramctl status | grep -E '$E .*refused.*held open by pid $holder \\(dax-map\\)'"
kill "$holder"
wait "$holder" 2>/dev/null
must "reconcile once the program is gone" pmemramctl reconcile
is "$E online once free" "$(dev_state "$E")" "$n online Movable"
node=$(cat "/sys/bus/dax/devices/$E/target_node")

# Pages of node $node (all of them $E's) spliced into pipes.
numactl --membind="$node" /usr/lib/pmemram-test/pin-pages 96 8 >"$PMEMRAM_OUT/pin.out" 2>&1 &
pinner=$!
ok "pin-pages spliced pages of node $node into pipes" wait_for 30 'grep -q "^pinned [1-9]" "$PMEMRAM_OUT/pin.out"'
note "$(cat "$PMEMRAM_OUT/pin.out")"

# pmemramctl status with no release running: the command's own time (a process, its sysfs
# reads), against which the answers during the release show the daemon's share.
for i in 1 2 3 4 5; do
	t0=$(date +%s%N)
	pmemramctl status --json >/dev/null 2>&1
	echo "$((($(date +%s%N) - t0) / 1000000))"
done >"$PMEMRAM_OUT/status-idle.txt"
idle_ms=$(sort -n "$PMEMRAM_OUT/status-idle.txt" | sed -n 3p)

# Status all the while: every answer and how long it took.
stop=$PMEMRAM_OUT/status.stop
(
	while [ ! -e "$stop" ]; do
		t0=$(date +%s%N)
		if timeout 5 pmemramctl status --json >/dev/null 2>&1; then r=ok; else r=fail; fi
		echo "$r $((($(date +%s%N) - t0) / 1000000))"
		sleep 0.2
	done >"$PMEMRAM_OUT/status-during-release.txt"
) &
poller=$!

t0=$(date +%s%N)
pmemramctl release --json "$E" >"$PMEMRAM_OUT/release.json" 2>"$PMEMRAM_OUT/release.err"
rc=$?
took_ms=$((($(date +%s%N) - t0) / 1000000))
touch "$stop"
wait "$poller"
note "release took $took_ms ms, exit $rc"
rel=$PMEMRAM_OUT/release.json

ok "the release failed" test "$rc" -ne 0
is "the release was rolled back" "$(jq -r .outcome "$rel")" rolled-back
is "errno is ETIMEDOUT" "$(jq -r .errno "$rel")" 110
failed=$(jq -r '[.blocks[] | select(.status == "failed")] | length' "$rel")
is "exactly one block failed (the attempt stops there)" "$failed" 1
reason=$(jq -r '.blocks[] | select(.status == "failed") | .reason' "$rel")
note "failed block: $reason"
ok "its reason names the timeout" grep -q "did not go offline within $timeout_s s" <<<"$reason"
ok "its reason names the program holding the pages" grep -q "pid $pinner (pin-pages)" <<<"$reason"
ok "the release ended within its bound ($took_ms ms)" test "$took_ms" -lt $(((timeout_s + 60) * 1000))
is "$E is still on kmem" "$(dev_driver "$E")" kmem
is "every block of $E is online in Movable again" "$(dev_state "$E")" "$n online Movable"
ok "daemon: $E is not held, converged" wait_for 30 '[ "$(daemon_verdict "$E")" = "converged none" ]'
answers=$(grep -c . "$PMEMRAM_OUT/status-during-release.txt")
fails=$(grep -c '^fail' "$PMEMRAM_OUT/status-during-release.txt")
worst=$(awk '$1 == "ok" && $2 > m { m = $2 } END { print m + 0 }' "$PMEMRAM_OUT/status-during-release.txt")
median=$(awk '$1 == "ok" { print $2 }' "$PMEMRAM_OUT/status-during-release.txt" | sort -n |
	awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : 0 }')
note "figure: status during the release: $answers asked, $fails failed, median $median ms, slowest $worst ms; with no release, median $idle_ms ms"
ok "status was asked during the release" test "$answers" -ge 3
is "every status during the release was answered" "$fails" 0

kill "$pinner"
wait "$pinner" 2>/dev/null
ok "with the pages free, pmemramctl release $E succeeds" pmemramctl release "$E"
is "$E is back on device_dax" "$(dev_driver "$E")" device_dax

done_testing
