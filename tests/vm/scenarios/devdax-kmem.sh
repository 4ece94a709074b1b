#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The seed behaviour, driven by the real ndctl and daxctl: an NVDIMM
# namespace becomes a dax device, then System RAM on its own node, then goes
# back to devdax and gives the memory back.  Debian 12's kernel leaves
# hot-added memory offline; Debian 13's onlines it in the kernel's own zone,
# so there daxctl refuses until the administrator sets the policy to
# offline, as its error asks.
set -u
. ./lib.sh

dev=dax0.0
dax=/sys/bus/dax/devices/$dev
bs=$(block_size)
knob=/sys/devices/system/memory/auto_online_blocks

if [ "$PMEMRAM_PLATFORM" = trixie ]; then
	plan 19
	is "Debian 13's kernel onlines hot-added memory itself" "$(cat "$knob")" online
else
	plan 17
	is "kernel leaves hot-added memory offline" "$(cat "$knob")" offline
fi
must "create a devdax namespace" \
	ndctl create-namespace -f -e namespace0.0 -m devdax -a 2M
ok "$dev exists" test -e "$dax"
is "$dev starts on device_dax" "$(basename "$(readlink "$dax/driver")")" device_dax
is "$dev targets node 2" "$(cat "$dax/target_node")" 2
if [ "$PMEMRAM_PLATFORM" = trixie ]; then
	out=$(daxctl reconfigure-device --mode=system-ram "$dev" 2>&1)
	note "$out"
	ok "daxctl refuses under that policy, and says why" \
		grep -q "kernel policy will auto-online memory, aborting" <<<"$out"
	echo offline >"$knob"
	is "$dev is still on device_dax" "$(basename "$(readlink "$dax/driver")")" device_dax
fi

before_kb=$(meminfo_kb MemTotal)
ok "daxctl reconfigure-device --mode=system-ram $dev" \
	daxctl reconfigure-device --mode=system-ram "$dev"
is "$dev is bound to kmem" "$(basename "$(readlink "$dax/driver")")" kmem

blocks=$(kmem_blocks)
nblocks=$(echo "$blocks" | grep -c .)
note "block size $((bs >> 20)) MiB, $nblocks block(s) onlined: $(echo $blocks)"
ok "at least one memory block was added" test "$nblocks" -ge 1
after_kb=$(meminfo_kb MemTotal)
is "MemTotal grew by exactly the onlined blocks" \
	"$((after_kb - before_kb))" "$((nblocks * bs / 1024))"
is "every block of $dev is online in zone Movable" \
	"$(echo "$blocks" | zones_of_blocks | sort | uniq -c | sed 's/^ *//')" \
	"$nblocks online Movable"
is "every block of $dev belongs to node 2" \
	"$(echo "$blocks" | while read -r b; do ls -d /sys/devices/system/memory/memory$b/node2; done | grep -c .)" \
	"$nblocks"
is "numactl -H shows node 2 with that memory" "$(node_mem_mb 2)" "$((nblocks * bs >> 20))"

# /proc/iomem: System RAM (kmem) is a child of dax0.0, itself inside
# Persistent Memory.
chain=$(iomem_chain "System RAM (kmem)")
note "iomem: $chain"
is "/proc/iomem nests System RAM (kmem) under $dev" "$(echo "$chain" | cut -d'<' -f2 | xargs)" "$dev"
ok "/proc/iomem has $dev under Persistent Memory" grep -q "< Persistent Memory" <<<"$chain"

tier0=$(memtier_of_node 0 || echo none)
tier2=$(memtier_of_node 2 || echo none)
note "node 0 in $tier0, node 2 in $tier2"
ok "node 2 got a memory tier of its own" test "$tier2" != none -a "$tier2" != "$tier0"

ok "daxctl reconfigure-device --mode=devdax -f $dev" \
	daxctl reconfigure-device --mode=devdax -f "$dev"
is "$dev is back on device_dax" "$(basename "$(readlink "$dax/driver")")" device_dax
is "MemTotal is back to where it started" "$(meminfo_kb MemTotal)" "$before_kb"

done_testing
