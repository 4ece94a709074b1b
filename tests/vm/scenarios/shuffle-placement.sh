#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Where a fresh 256 MiB anonymous buffer lands physically, node by node: on
# the memory-only node 1 (behind the memory-side cache) at boot, and on node 2
# (no cache) after its NVDIMM is hot-added through kmem.  Neighbouring 4 MiB
# pieces are physically consecutive for most of the buffer on a node that is
# not shuffled (ratio >= 0.8) and almost never on one that is (ratio <= 0.05).
# Then node 2's shuffling is switched at runtime through
# nodeN/shuffle/enabled: on (its free memory shuffled once, the next buffer
# random), and off again; under page_alloc.shuffle=0 the write is refused.
#   EXPECT_NODE1  1 if node 1 is shuffled, else 0
#   EXPECT_NODE2  1 if node 2 is shuffled once it has memory, else 0
set -u
. ./lib.sh

: "${EXPECT_NODE1:?}" "${EXPECT_NODE2:?}"
probe=/usr/lib/pmemram-test/pagemap-contig
pages=$((256 << 20 >> 12))

# measure NODE: run the probe bound to NODE, print its key=value line.
measure() { numactl --membind="$1" "$probe" 256 4; }
field() { sed -n "s/.*\\b$1=\\([0-9.]*\\).*/\\1/p" <<<"$2"; }
# within SHUFFLED RATIO: the ratio is on the side of the threshold SHUFFLED
# (1 or 0) expects.
within() {
	if [ "$1" = 1 ]; then
		awk -v r="$2" 'BEGIN { exit !(r <= 0.05) }'
	else
		awk -v r="$2" 'BEGIN { exit !(r >= 0.8) }'
	fi
}
want() { if [ "$1" = 1 ]; then echo "<= 0.05"; else echo ">= 0.8"; fi; }
node2=/sys/devices/system/node/node2/shuffle
forced_off=0
grep -qw 'page_alloc\.shuffle=0' /proc/cmdline && forced_off=1
plan $((11 + forced_off))

is "node 1 shuffled: $EXPECT_NODE1" "$(cat /sys/devices/system/node/node1/shuffle/enabled)" "$EXPECT_NODE1"

m1=$(measure 1) || bail "pagemap-contig on node 1 failed"
note "boot memory, node 1: $m1"
is "the whole buffer is on node 1" "$(field node1 "$m1")" "$pages"
ok "boot memory on node 1: consecutive-piece ratio $(field ratio "$m1") $(want "$EXPECT_NODE1")" \
	within "$EXPECT_NODE1" "$(field ratio "$m1")"

must "create a devdax namespace" ndctl create-namespace -f -e namespace0.0 -m devdax -a 2M
daxctl_admin # trixie: daxctl refuses under auto_online_blocks "online"
must "hot-add it through kmem" daxctl reconfigure-device --mode=system-ram dax0.0
ok "node 2 has memory" test "$(node_mem_mb 2)" -gt 256
is "node 2 shuffled: $EXPECT_NODE2" "$(cat $node2/enabled)" "$EXPECT_NODE2"

m2=$(measure 2) || bail "pagemap-contig on node 2 failed"
note "hot-added memory, node 2: $m2"
is "the whole buffer is on node 2" "$(field node2 "$m2")" "$pages"
ok "hot-added memory on node 2: consecutive-piece ratio $(field ratio "$m2") $(want "$EXPECT_NODE2")" \
	within "$EXPECT_NODE2" "$(field ratio "$m2")"

# The runtime switch, on node 2 (whatever it was, it ends up on, then off).
swaps=$(vmstat shuffle_swap)
if [ "$forced_off" = 1 ]; then
	ok "page_alloc.shuffle=0: enabling node 2 is refused" \
		sh -c "! echo 1 >$node2/enabled 2>/dev/null"
	is "node 2 stays off, forced-off" "$(cat $node2/enabled) $(cat $node2/reason)" "0 forced-off"
	is "nothing was shuffled" "$(vmstat shuffle_swap)" "$swaps"
	ok "disabling is allowed" sh -c "echo 0 >$node2/enabled"
else
	t0=$(date +%s.%N)
	must "enable node 2 at runtime" sh -c "echo 1 >$node2/enabled"
	note "enabling node 2 took $(ms "$t0" "$(date +%s.%N)") ms, shuffle_swap +$(($(vmstat shuffle_swap) - swaps))"
	expect_reason=sysfs
	[ "$EXPECT_NODE2" = 1 ] && expect_reason=$(cat $node2/reason)
	is "node 2 on, reason $expect_reason" "$(cat $node2/enabled) $(cat $node2/reason)" "1 $expect_reason"
	if [ "$EXPECT_NODE2" = 1 ]; then
		is "already on: nothing shuffled again" "$(vmstat shuffle_swap)" "$swaps"
	else
		ok "its free memory was shuffled (shuffle_swap grew)" test "$(vmstat shuffle_swap)" -gt "$swaps"
	fi
	m3=$(measure 2) || bail "pagemap-contig on node 2 failed"
	note "node 2 after the runtime switch: $m3"
	ok "node 2 after enabling: consecutive-piece ratio $(field ratio "$m3") <= 0.05" within 1 "$(field ratio "$m3")"
	must "disable node 2 at runtime" sh -c "echo 0 >$node2/enabled"
fi
is "node 2 off, reason sysfs or forced-off" "$(cat $node2/enabled) $(cat $node2/reason)" \
	"0 $([ "$forced_off" = 1 ] && echo forced-off || echo sysfs)"

done_testing
