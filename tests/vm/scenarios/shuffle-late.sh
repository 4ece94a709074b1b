#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A node behind a direct-mapped memory-side cache that gets its memory only
# after boot: all of node 1 is soft-reserved (memmap=...+0xefffffff), so it
# has no memory at boot and nothing is shuffled.  Onlining its hmem dax
# device through kmem brings the node online; hmat.c then registers its
# cache and asks for the node to be shuffled, and a fresh buffer on it lands
# in random order.
set -u
. ./lib.sh

plan 8
field() { sed -n "s/.*\\b$1=\\([0-9.]*\\).*/\\1/p" <<<"$2"; }
node1=/sys/devices/system/node/node1

is "no node is shuffled at boot" "$(cat /sys/kernel/mm/shuffle/nodes)" ""
mb=$(node_mem_mb 1)
is "node 1 has no memory at boot" "${mb:-0}" 0

dev=
for d in /sys/bus/dax/devices/dax*; do
	[ "$(cat "$d/target_node" 2>/dev/null)" = 1 ] && dev=${d##*/}
done
ok "the soft-reserved range is a dax device of node 1 ($dev)" test -n "$dev"
swaps=$(vmstat shuffle_swap)
must "online it through kmem" daxctl reconfigure-device --mode=system-ram "$dev"
ok "node 1 is shuffled once it has memory" \
	wait_for 10 "[ \"\$(cat $node1/shuffle/enabled 2>/dev/null)\" = 1 ]"
is "node 1's reason" "$(cat $node1/shuffle/reason)" hmat
ok "the kernel logged the request and the switch" sh -c \
	"dmesg | grep -q 'acpi/hmat: node 1: direct-mapped memory-side cache' &&
	 dmesg | grep -q 'shuffle: node 1: shuffling enabled, reason: hmat'"
note "shuffle_swap +$(($(vmstat shuffle_swap) - swaps)) since the online"

m=$(numactl --membind=1 /usr/lib/pmemram-test/pagemap-contig 256 4) || bail "pagemap-contig on node 1 failed"
note "node 1 after the late online: $m"
is "the whole buffer is on node 1" "$(field node1 "$m")" $((256 << 20 >> 12))
ok "consecutive-piece ratio $(field ratio "$m") <= 0.05" \
	awk -v r="$(field ratio "$m")" 'BEGIN { exit !(r <= 0.05) }'

done_testing
