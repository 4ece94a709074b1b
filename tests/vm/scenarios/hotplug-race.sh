#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Memory blocks that come and go under pmemramd and a reader.  A large
# NVDIMM, hot-added and made a devdax namespace that no claim names, is
# turned into System RAM and back by daxctl, round after round, as an
# administrator would, while pmemramd answers every memory uevent and
# `pmemramctl status` reads every block in a loop.  A block's directory and
# "add" uevent exist before the kernel gives it a node; a read of its
# valid_zones in that window oopses 6.1 (zone_for_pfn_range on node -1),
# so neither may read it there.  run.sh fails the run on any oops.
#   RACE_ROUNDS  add/remove rounds (default 6)
#   RACE_MIB     size of the hot-added NVDIMM in MiB (default 4096)
set -u
. ./lib.sh

rounds=${RACE_ROUNDS:-6}
size_mib=${RACE_MIB:-4096}
plan $((6 + 2 * rounds))
bs=$(block_size)

# Nothing claimed: the device is the administrator's, pmemramd only watches.
mkdir -p /etc/pmemram
: >/etc/pmemram/pmemram.conf
must "restart pmemramd on an empty configuration" systemctl restart pmemramd.service
restarts_before=$(systemctl show -P NRestarts pmemramd.service)

big_devdax "$size_mib"
dev=$big_dev
n=$(dev_blocks "$dev" | grep -c .)
note "$dev on region1: $n whole blocks"
ok "$dev holds at least 16 blocks" test "$n" -ge 16

# The reader: pmemramctl status over every block, as fast as it goes.
stop=$PMEMRAM_OUT/reader.stop
(
	while [ ! -e "$stop" ]; do
		if pmemramctl status --json >/dev/null 2>>"$PMEMRAM_OUT/reader.err"; then
			echo ok
		else
			echo fail
		fi
	done >"$PMEMRAM_OUT/reader.txt"
) &
reader=$!

# A round that makes no progress for 150 s has the kernel print every
# blocked task and every CPU's stack (SysRq w and l) before run.sh's
# timeout, so that a hang leaves its stacks in the kernel log.
progress=$PMEMRAM_OUT/round.progress
touch "$progress"
(
	echo 1 >/proc/sys/kernel/sysrq
	while sleep 10; do
		[ $(($(date +%s) - $(stat -c %Y "$progress"))) -ge 150 ] || continue
		echo w >/proc/sysrq-trigger
		echo l >/proc/sysrq-trigger
		touch "$progress"
	done
) &
watchdog=$!
daxctl_admin # daxctl reconfigures the device in every round

for ((i = 1; i <= rounds; i++)); do
	touch "$progress"
	daxctl reconfigure-device --mode=system-ram "$dev" >/dev/null 2>>"$PMEMRAM_OUT/daxctl.err" ||
		note "round $i: daxctl reconfigure-device --mode=system-ram failed"
	touch "$progress"
	is "round $i: all $n blocks of $dev online as Movable" "$(dev_state "$dev")" "$n online Movable"
	daxctl reconfigure-device --mode=devdax -f "$dev" >/dev/null 2>>"$PMEMRAM_OUT/daxctl.err" ||
		note "round $i: daxctl reconfigure-device --mode=devdax failed"
	is "round $i: $dev is back on device_dax, its blocks removed" \
		"$(dev_driver "$dev") $(dev_state "$dev")" "device_dax $n absent"
done

kill "$watchdog"
touch "$stop"
wait "$reader"
reads=$(grep -c . "$PMEMRAM_OUT/reader.txt")
failed_reads=$(grep -c fail "$PMEMRAM_OUT/reader.txt")
note "reader: $reads status reads, $failed_reads failed"
ok "the reader read the blocks at least once a round" test "$reads" -ge "$rounds"
is "no status read failed while blocks came and went" "$failed_reads" 0
is "pmemramd is still running" "$(systemctl is-active pmemramd.service)" active
is "pmemramd was not restarted" "$(systemctl show -P NRestarts pmemramd.service)" "$restarts_before"
is "pmemramd left the unclaimed $dev alone" "$(daemon_verdict "$dev")" "ignored unclaimed"

done_testing
