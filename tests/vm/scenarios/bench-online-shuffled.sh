#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark scenario (tests/bench/shuffle-online-bench.sh reads its "# BENCH" lines; run.sh needs
# --maxmem 24G): the kernel's cost of onlining each block of a 16 GiB NVDIMM hot-added after
# boot (node 2, 125 blocks of 128 MiB) on a shuffled node, at the shuffle order the boot's
# page_alloc.shuffle_order= chose.  Each block's online shuffles only that block against the
# zone, so it must not cost more for the blocks already online.  Booted with
# page_alloc.shuffle=0 it gives the same figures without shuffling, for comparison.  On a
# shuffled node the shuffle walks themselves are traced (shuffle:mm_shuffle_zone_order): their
# time and the free blocks they found, per block.
#   BENCH_SHUFFLED    1 (default) if the node is expected shuffled, 0 if not
#   BENCH_LARGE_MIB   size of the hot-added NVDIMM in MiB (default 16384)
set -u
. ./lib.sh

size_mib=${BENCH_LARGE_MIB:-16384}
shuffled=${BENCH_SHUFFLED:-1}
plan 4

big_devdax "$size_mib"
dev=$big_dev
blocks=$(dev_blocks "$dev")
n=$(echo "$blocks" | grep -c .)
must "load kmem" modprobe kmem
floor_bind "$dev" || bail "cannot bind kmem to $dev"
udevadm settle --timeout=600 || bail "udev did not settle after binding kmem to $dev"
node=$(cat "/sys/bus/dax/devices/$dev/target_node")
swaps=$(vmstat shuffle_swap)
tracing=/sys/kernel/tracing
[ -e $tracing/trace ] || mount -t tracefs nodev $tracing
event=$tracing/events/shuffle/mm_shuffle_zone_order
: >$tracing/trace
echo 1 >$event/enable || bail "cannot enable $event"
per_block=()
for b in $blocks; do
	t0=$EPOCHREALTIME
	echo online_movable >"/sys/devices/system/memory/memory$b/state" || bail "cannot online memory$b"
	per_block+=("$(ms "$t0" "$EPOCHREALTIME")")
done
echo 0 >$event/enable
ok "all $n blocks online" test "${#per_block[@]}" -eq "$n"
# One line per zone and order walked, "node=N zone=Z order=O range=(S ~ E) nr_free=F
# found=W swaps=X ns=T"; a block's walks share its range.  Per block in onlining order: the
# walks' total time in microseconds and the free blocks (of the orders walked) they found.
walks=$(grep -o "node=$node .*" $tracing/trace | awk '
	{ r = $0; sub(/.*range=/, "", r); sub(/\).*/, "", r)
	  for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	  if (!(r in us)) order_of[++n] = r
	  us[r] += f["ns"] / 1000; found[r] += f["found"] }
	END { for (i = 1; i <= n; i++) printf "%s%.0f/%d", (i > 1 ? " " : ""), us[order_of[i]], found[order_of[i]] }')
if [ "$shuffled" = 1 ]; then
	is "each block's online walks were traced" "$(wc -w <<<"$walks")" "$n"
else
	is "no shuffle walks traced" "$walks" ""
fi
is "node $node shuffled: $shuffled" "$(cat "/sys/devices/system/node/node$node/shuffle/enabled")" "$shuffled"
if [ "$shuffled" = 1 ]; then
	ok "the onlines shuffled pages (shuffle_swap grew)" \
		test "$(vmstat shuffle_swap)" -gt "$swaps"
else
	is "the onlines shuffled nothing" "$(vmstat shuffle_swap)" "$swaps"
fi
note "BENCH per_block_ms node=$node shuffled=$shuffled order=$(cat /sys/kernel/mm/shuffle/order) swaps=$(($(vmstat shuffle_swap) - swaps)) ${per_block[*]}"
[ -z "$walks" ] || note "BENCH walk_us_found node=$node order=$(cat /sys/kernel/mm/shuffle/order) $walks"

done_testing
