#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The page allocator shuffle state as the patched kernel reports it, for one
# topology and command line: the boot decision, the summary in
# /sys/kernel/mm/shuffle and each node's nodeN/shuffle.  Expectations come
# from the scenario list:
#   EXPECT_ENABLED  summary enabled: 1 if any node is shuffled, else 0
#   EXPECT_REASON   summary reason (hmat, cmdline, forced-off, default-off)
#   EXPECT_BOOT     the command line's decision, logged at boot
#                   (cmdline, forced-off or default-off)
#   EXPECT_NODES    NODE:ENABLED:REASON,... for every node with a device
#   EXPECT_ORDER    the effective shuffle order (default 10: MAX_ORDER - 1 on
#                   6.1, MAX_PAGE_ORDER on 6.12)
#   EXPECT_HMAT     the node(s) HMAT asks to shuffle, or "none"
#   EXPECT_LOG      an extended regex the kernel log must match (optional)
set -u
. ./lib.sh

: "${EXPECT_ENABLED:?}" "${EXPECT_REASON:?}" "${EXPECT_BOOT:?}" "${EXPECT_NODES:?}" "${EXPECT_HMAT:?}"
EXPECT_ORDER=${EXPECT_ORDER:-10}
EXPECT_LOG=${EXPECT_LOG:-}

plan 11
sys=/sys/kernel/mm/shuffle
klog=$(dmesg)
note "cmdline: $(cat /proc/cmdline)"
note "$(grep -E 'shuffle: |acpi/hmat: node' <<<"$klog" | sed 's/^\[[ 0-9.]*\] //' | tr '\n' ';')"

is "$sys/enabled" "$(cat $sys/enabled)" "$EXPECT_ENABLED"
is "$sys/reason" "$(cat $sys/reason)" "$EXPECT_REASON"
is "$sys/order" "$(cat $sys/order)" "$EXPECT_ORDER"

# Each node's files, and the summary's node list built from the expectations.
got= want= shuffled=
for n in /sys/devices/system/node/node[0-9]*; do
	got+="${got:+,}${n##*node}:$(cat "$n/shuffle/enabled"):$(cat "$n/shuffle/reason")"
done
for e in ${EXPECT_NODES//,/ }; do
	want+="${want:+,}$e"
	IFS=: read -r node on _ <<<"$e"
	[ "$on" = 1 ] && shuffled+="${shuffled:+,}$node"
done
is "nodeN/shuffle/{enabled,reason} of every node" "$got" "$want"
# The summary lists possible nodes; page_alloc.shuffle=on sets all of them.
if [ "$EXPECT_BOOT" = cmdline ]; then
	shuffled=$(cat /sys/devices/system/node/possible)
fi
is "$sys/nodes" "$(cat $sys/nodes)" "$shuffled"

yn=N
[ "$EXPECT_BOOT" = cmdline ] && yn=Y
is "page_alloc.shuffle parameter shows the boot decision" \
	"$(cat /sys/module/page_alloc/parameters/shuffle)" "$yn"
is "page_alloc.shuffle_order parameter shows the effective order" \
	"$(cat /sys/module/page_alloc/parameters/shuffle_order)" "$EXPECT_ORDER"

state=disabled
[ "$EXPECT_BOOT" = cmdline ] && state=enabled
# Under page_alloc.shuffle=auto (the last occurrence wins) the line says so.
auto=
[ "$(tr ' ' '\n' </proc/cmdline | grep -E '^page_alloc\.shuffle(=|$)' | tail -n 1)" = page_alloc.shuffle=auto ] &&
	auto=", nodes the platform asks for: page_alloc.shuffle=auto"
is "the kernel logs its boot decision exactly once" \
	"$(grep -cE "shuffle: page allocator shuffling $state, reason: $EXPECT_BOOT, order: $EXPECT_ORDER$auto\$" <<<"$klog")" 1

hmat_lines=$(grep -E 'acpi/hmat: node [0-9]+: direct-mapped memory-side cache of [0-9]+ bytes, requesting page allocator shuffling' <<<"$klog" |
	sed -n 's/.*acpi\/hmat: node \([0-9]*\):.*/\1/p' | tr '\n' ' ' | xargs)
is "HMAT direct-mapped cache detection names node(s)" "${hmat_lines:-none}" "$EXPECT_HMAT"

no_match() { ! grep -qE -- "$1" <<<"$klog"; }
if [ -n "$EXPECT_LOG" ]; then
	ok "kernel log matches /$EXPECT_LOG/" grep -qE -- "$EXPECT_LOG" <<<"$klog"
else
	ok "no shuffle parameter complaints in the kernel log" \
		no_match 'invalid value .* for page_alloc|out of range'
fi
is "boot completed with no failed units" "$(systemctl --failed --no-legend --plain | xargs)" ""

done_testing
