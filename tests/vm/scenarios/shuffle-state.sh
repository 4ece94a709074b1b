#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The page allocator shuffle decision as the patched kernel reports it, for
# one topology and command line.  Expectations come from the scenario list:
#   EXPECT_ENABLED  1 or 0
#   EXPECT_REASON   hmat, cmdline, forced-off or default-off
#   EXPECT_ORDER    the effective shuffle order (default 10, MAX_ORDER - 1)
#   EXPECT_HMAT     the node HMAT names as direct-mapped, or "none"
#   EXPECT_LOG      an extended regex the kernel log must match (optional)
set -u
. ./lib.sh

: "${EXPECT_ENABLED:?}" "${EXPECT_REASON:?}" "${EXPECT_HMAT:?}"
EXPECT_ORDER=${EXPECT_ORDER:-10}
EXPECT_LOG=${EXPECT_LOG:-}

plan 9
sys=/sys/kernel/mm/shuffle
klog=$(dmesg)
note "cmdline: $(cat /proc/cmdline)"
note "$(grep -E 'shuffle: |HMAT: node' <<<"$klog" | sed 's/^\[[ 0-9.]*\] //' | tr '\n' ';')"

is "$sys/enabled" "$(cat $sys/enabled)" "$EXPECT_ENABLED"
is "$sys/reason" "$(cat $sys/reason)" "$EXPECT_REASON"
is "$sys/order" "$(cat $sys/order)" "$EXPECT_ORDER"
yn=N
[ "$EXPECT_ENABLED" = 1 ] && yn=Y
is "page_alloc.shuffle parameter shows the effective state" \
	"$(cat /sys/module/page_alloc/parameters/shuffle)" "$yn"
is "page_alloc.shuffle_order parameter shows the effective order" \
	"$(cat /sys/module/page_alloc/parameters/shuffle_order)" "$EXPECT_ORDER"

state=disabled
[ "$EXPECT_ENABLED" = 1 ] && state=enabled
is "the kernel logs its decision exactly once" \
	"$(grep -cE "shuffle: page allocator shuffling $state, reason: $EXPECT_REASON, order: $EXPECT_ORDER\$" <<<"$klog")" 1

hmat_lines=$(grep -E 'direct-mapped memory-side cache of [0-9]+ bytes, requesting page allocator shuffling' <<<"$klog" |
	sed -n 's/.*HMAT: node \([0-9]*\):.*/\1/p' | tr '\n' ' ' | xargs)
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
