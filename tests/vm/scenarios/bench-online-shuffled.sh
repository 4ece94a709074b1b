#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark scenario (tests/bench/shuffle-online-bench.sh reads its "# BENCH" lines; run.sh needs
# --maxmem 24G): the kernel's cost of onlining each block of a 16 GiB NVDIMM hot-added after
# boot (node 2, 125 blocks of 128 MiB), shuffled or not, at the shuffle order the boot's
# page_alloc.shuffle_order= chose.  Each block's online shuffles only that block against the
# zone, so it must not cost more for the blocks already online.  The device is onlined block by
# block BENCH_ROUNDS times, offlined whole between rounds; the TCG timings are noisy, and the
# rounds give the bench a median.  On a shuffled node the shuffle walks themselves are traced
# (shuffle:mm_shuffle_zone_order): their time and the free blocks they found, per block.
#   BENCH_SHUFFLED    1 if the node is shuffled (page_alloc.shuffle=1), 0 if not
#                     (page_alloc.shuffle=0), "switch" to switch node 2 alone through its sysfs
#                     switch, on in odd rounds and off in even ones, on a boot that shuffles no
#                     other node: shuffled and unshuffled onlines of the same boot
#   BENCH_ROUNDS      rounds (default 3)
#   BENCH_LARGE_MIB   size of the hot-added NVDIMM in MiB (default 16384)
# pmemramd is kept stopped: the kernel's cost alone, without a daemon reacting to each block's
# uevents or applying its shuffle policy to node 2.
set -u
. ./lib.sh

size_mib=${BENCH_LARGE_MIB:-16384}
mode=${BENCH_SHUFFLED:-1}
rounds=${BENCH_ROUNDS:-3}
case $mode in 0 | 1 | switch) ;; *) bail "BENCH_SHUFFLED is 0, 1 or switch, not '$mode'" ;; esac
plan $((rounds * 4))

must "keep pmemramd stopped" sh -c "systemctl mask --runtime pmemramd.service && systemctl stop pmemramd.service"
big_devdax "$size_mib"
dev=$big_dev
blocks=$(dev_blocks "$dev")
n=$(echo "$blocks" | grep -c .)
must "load kmem" modprobe kmem
floor_bind "$dev" || bail "cannot bind kmem to $dev"
udevadm settle --timeout=600 || bail "udev did not settle after binding kmem to $dev"
node=$(cat "/sys/bus/dax/devices/$dev/target_node")
switch=/sys/devices/system/node/node$node/shuffle/enabled
[ "$mode" != switch ] || [ "$(cat /sys/devices/system/node/node0/shuffle/enabled)" = 0 ] ||
	bail "BENCH_SHUFFLED=switch wants a boot that does not shuffle node 0"
tracefs_mount

for r in $(seq "$rounds"); do
	shuffled=$mode
	if [ "$mode" = switch ]; then
		shuffled=$((r % 2))
		echo "$shuffled" >"$switch" || bail "cannot switch node $node's shuffling to $shuffled"
	fi
	swaps=$(vmstat shuffle_swap)
	shuffle_trace_start || bail "cannot enable $shuffle_event"
	# shellcheck disable=SC2086 # one word per block
	online_timed $blocks
	shuffle_trace_stop
	ok "round $r: all $n blocks online" test "${#per_block[@]}" -eq "$n"
	# One line per zone and order walked, "node=N zone=Z order=O range=(S ~ E) nr_free=F
	# found=W swaps=X ns=T"; a block's walks share its range.  Per block in onlining order:
	# the walks' total time in microseconds and the free blocks (of the orders walked) they
	# found.
	walks=$(shuffle_walks | grep "^node=$node " | awk '
		{ r = $0; sub(/.*range=/, "", r); sub(/\).*/, "", r)
		  for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		  if (!(r in us)) order_of[++n] = r
		  us[r] += f["ns"] / 1000; found[r] += f["found"] }
		END { for (i = 1; i <= n; i++) printf "%s%.0f/%d", (i > 1 ? " " : ""), us[order_of[i]], found[order_of[i]] }')
	if [ "$shuffled" = 1 ]; then
		is "round $r: each block's online walks were traced" "$(wc -w <<<"$walks")" "$n"
		ok "round $r: the onlines shuffled pages (shuffle_swap grew)" \
			test "$(vmstat shuffle_swap)" -gt "$swaps"
	else
		is "round $r: no shuffle walks traced" "$walks" ""
		is "round $r: the onlines shuffled nothing" "$(vmstat shuffle_swap)" "$swaps"
	fi
	is "round $r: node $node shuffled: $shuffled" "$(cat "$switch")" "$shuffled"
	note "BENCH per_block_ms node=$node shuffled=$shuffled round=$r order=$(cat /sys/kernel/mm/shuffle/order) swaps=$(($(vmstat shuffle_swap) - swaps)) ${per_block[*]}"
	[ -z "$walks" ] || note "BENCH walk_us_found node=$node round=$r order=$(cat /sys/kernel/mm/shuffle/order) $walks"
	[ "$r" = "$rounds" ] && break
	for b in $blocks; do
		echo offline >"/sys/devices/system/memory/memory$b/state" || bail "cannot offline memory$b"
	done
done

done_testing
