#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The seed cover letter's path, by hand: memmap=nn!ss declares legacy
# persistent memory, ndctl turns it into a dax device, kmem is bound through
# the dax bus's new_id/bind files and the blocks are onlined by writing
# online_movable into each block's state.  On Debian 13, whose kernel
# onlines hot-added memory itself, the administrator first sets
# auto_online_blocks to offline, as the cover letter's path needs.
set -u
. ./lib.sh

if [ "$PMEMRAM_PLATFORM" = trixie ]; then
	plan 12
	is "Debian 13's kernel onlines hot-added memory itself" \
		"$(cat /sys/devices/system/memory/auto_online_blocks)" online
	echo offline >/sys/devices/system/memory/auto_online_blocks
else
	plan 11
fi
dev=dax0.0
dax=/sys/bus/dax/devices/$dev
drivers=/sys/bus/dax/drivers
bs=$(block_size)

ok "memmap= made a legacy pmem region" grep -q "Persistent Memory (legacy)" /proc/iomem
must "create a dax namespace on the legacy region" \
	ndctl create-namespace -fe namespace0.0 -m dax -a 2M
ok "$dev exists" test -e "$dax"
is "$dev targets node 1, the node memmap= emptied" "$(cat "$dax/target_node")" 1
before_kb=$(meminfo_kb MemTotal)

must "load kmem" modprobe kmem
must "unbind $dev from device_dax" sh -c "echo $dev > $drivers/device_dax/unbind"
must "drop the device_dax id" sh -c "echo $dev > $drivers/device_dax/remove_id"
must "add the kmem id" sh -c "echo $dev > $drivers/kmem/new_id"
# new_id attaches the driver already; bind only if it did not.
if [ "$(basename "$(readlink "$dax/driver" 2>/dev/null)")" != kmem ]; then
	must "bind $dev to kmem" sh -c "echo $dev > $drivers/kmem/bind"
fi
is "$dev is bound to kmem" "$(basename "$(readlink "$dax/driver")")" kmem

blocks=$(kmem_blocks)
nblocks=$(echo "$blocks" | grep -c .)
note "block size $((bs >> 20)) MiB, kmem added $nblocks block(s): $(echo $blocks)"
ok "kmem added at least one memory block" test "$nblocks" -ge 1
is "the added blocks start offline" \
	"$(echo "$blocks" | zones_of_blocks | cut -d' ' -f1 | sort -u)" offline
is "MemTotal does not count offline blocks" "$(meminfo_kb MemTotal)" "$before_kb"

for b in $blocks; do
	must "online block $b" sh -c "echo online_movable > /sys/devices/system/memory/memory$b/state"
done
is "every block is online in zone Movable" \
	"$(echo "$blocks" | zones_of_blocks | sort | uniq -c | sed 's/^ *//')" \
	"$nblocks online Movable"
is "MemTotal grew by exactly the onlined blocks" \
	"$(($(meminfo_kb MemTotal) - before_kb))" "$((nblocks * bs / 1024))"

chain=$(iomem_chain "System RAM (kmem)")
note "iomem: $chain"
is "/proc/iomem nests System RAM (kmem) under $dev" "$(echo "$chain" | cut -d'<' -f2 | xargs)" "$dev"
ok "/proc/iomem has $dev under the legacy pmem region" grep -q "< Persistent Memory (legacy)" <<<"$chain"

done_testing
