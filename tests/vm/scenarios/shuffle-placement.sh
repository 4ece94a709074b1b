#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Where a fresh 256 MiB anonymous buffer lands physically, with and without
# page allocator shuffling: on the memory-only node 1 at boot, and on node 2
# after its NVDIMM is hot-added through kmem.  Neighbouring 4 MiB pieces are
# physically consecutive for most of the buffer when shuffling is off
# (ratio >= 0.8) and almost never when it is on (ratio <= 0.05).
#   EXPECT_SHUFFLED  1 or 0
set -u
. ./lib.sh

: "${EXPECT_SHUFFLED:?}"
plan 6
probe=/usr/lib/pmemram-test/pagemap-contig
pages=$((256 << 20 >> 12))

# measure NODE: run the probe bound to NODE, print its key=value line.
measure() { numactl --membind="$1" "$probe" 256 4; }
field() { sed -n "s/.*\\b$1=\\([0-9.]*\\).*/\\1/p" <<<"$2"; }
# within RATIO: the ratio is on the expected side of the threshold.
within() {
	if [ "$EXPECT_SHUFFLED" = 1 ]; then
		awk -v r="$1" 'BEGIN { exit !(r <= 0.05) }'
	else
		awk -v r="$1" 'BEGIN { exit !(r >= 0.8) }'
	fi
}
want=">= 0.8"
[ "$EXPECT_SHUFFLED" = 1 ] && want="<= 0.05"

is "shuffling is $EXPECT_SHUFFLED" "$(cat /sys/kernel/mm/shuffle/enabled)" "$EXPECT_SHUFFLED"

m1=$(measure 1) || bail "pagemap-contig on node 1 failed"
note "boot memory, node 1: $m1"
is "the whole buffer is on node 1" "$(field node1 "$m1")" "$pages"
ok "boot memory on node 1: consecutive-piece ratio $(field ratio "$m1") $want" \
	within "$(field ratio "$m1")"

must "create a devdax namespace" ndctl create-namespace -f -e namespace0.0 -m devdax -a 2M
must "hot-add it through kmem" daxctl reconfigure-device --mode=system-ram dax0.0
ok "node 2 has memory" test "$(node_mem_mb 2)" -gt 256

m2=$(measure 2) || bail "pagemap-contig on node 2 failed"
note "hot-added memory, node 2: $m2"
is "the whole buffer is on node 2" "$(field node2 "$m2")" "$pages"
ok "hot-added memory on node 2: consecutive-piece ratio $(field ratio "$m2") $want" \
	within "$(field ratio "$m2")"
# For the record only: this one reuses the memory the first buffer freed.
note "node 2 again, no THP, memory no longer fresh: $(numactl --membind=2 "$probe" --no-thp 256 4)"

done_testing
