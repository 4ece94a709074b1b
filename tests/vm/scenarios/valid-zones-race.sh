#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Reading valid_zones while memory blocks are being added.  The kernel makes
# a hot-added block's sysfs directory (and sends its "add" uevent) before it
# links the block to its node; 6.1 without the series' memory-block patch
# takes the node id -1 in that window, and a read of valid_zones oopses in
# zone_for_pfn_range().  Two readers read every block's valid_zones as fast
# as a shell can (no fork per read), one per vCPU, while daxctl turns a large
# hot-added devdax namespace into System RAM and back, round after round.
# No pmemram program takes part: this is the kernel's path, as any tool
# (lsmem, an inventory agent) would hit it.  run.sh fails the run on any oops;
# an oopsed reader keeps the block's sysfs file busy, so the next removal
# would hang: each step has a deadline.
#   RACE_ROUNDS  add/remove rounds (default 8)
#   RACE_MIB     size of the hot-added NVDIMM in MiB (default 4096)
set -u
. ./lib.sh

rounds=${RACE_ROUNDS:-8}
size_mib=${RACE_MIB:-4096}
plan $((2 + 2 * rounds))

big_devdax "$size_mib"
dev=$big_dev
n=$(dev_blocks "$dev" | grep -c .)
note "$dev on region1: $n whole blocks"
ok "$dev holds at least 16 blocks" test "$n" -ge 16

# within SECONDS CMD...: run CMD, giving up (and bailing out) when it has not
# ended after SECONDS: a task stuck in the kernel cannot be killed.
within() {
	local seconds=$1 limit=$(($1 * 5)) pid
	shift
	"$@" >/dev/null 2>>"$PMEMRAM_OUT/steps.err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		[ "$limit" -gt 0 ] || bail "still running after $seconds s, stuck in the kernel: $*"
		limit=$((limit - 1))
		sleep 0.2
	done
	wait "$pid"
}

stop=$PMEMRAM_OUT/readers.stop
reader() {
	local f z reads=0
	while [ ! -e "$stop" ]; do
		for f in /sys/devices/system/memory/memory*/valid_zones; do
			# A block removed since the glob: the redirection fails, quietly.
			read -r z 2>/dev/null <"$f" && reads=$((reads + 1))
		done
	done
	echo "$reads" >"$PMEMRAM_OUT/reader.$1"
}
reader 1 &
r1=$!
reader 2 &
r2=$!
daxctl_admin # daxctl reconfigures the device in every round

for ((i = 1; i <= rounds; i++)); do
	within 300 daxctl reconfigure-device --mode=system-ram "$dev"
	is "round $i: all $n blocks of $dev online as Movable" "$(dev_state "$dev")" "$n online Movable"
	within 300 daxctl reconfigure-device --mode=devdax -f "$dev"
	is "round $i: $dev is back on device_dax, its blocks removed" \
		"$(dev_driver "$dev") $(dev_state "$dev")" "device_dax $n absent"
done

touch "$stop"
wait "$r1" "$r2"
note "valid_zones reads: $(cat "$PMEMRAM_OUT/reader.1") and $(cat "$PMEMRAM_OUT/reader.2")"
ok "both readers read valid_zones and ended" test -s "$PMEMRAM_OUT/reader.1" -a -s "$PMEMRAM_OUT/reader.2"

done_testing
