#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest half of tests/bench/shuffle-bench.sh: figures for one boot, printed
# as "# BENCH key=value" lines.  Run with shuffling per node (HMAT: node 1),
# on every node (page_alloc.shuffle=1) and off (page_alloc.shuffle=0).
#   BENCH_ROUNDS  fault-in repetitions per variant (default 5)
set -u
. ./lib.sh

rounds=${BENCH_ROUNDS:-5}
probe=/usr/lib/pmemram-test/pagemap-contig
plan 6
bench() { echo "# BENCH $*"; }

bench "shuffle=$(cat /sys/kernel/mm/shuffle/enabled) reason=$(cat /sys/kernel/mm/shuffle/reason) nodes=$(cat /sys/kernel/mm/shuffle/nodes)"

# Boot shuffle.  page_alloc.shuffle=1: page_alloc_init_late() logs the
# decision and shuffles every node's free memory, then the boot goes on, so
# the gap to the next kernel message holds the shuffle (and the same little
# else with it off).  HMAT: hmat.c asks for node 1 at its initcall and the
# node's shuffle runs between its request line and "shuffling enabled".
since() { # since REGEX-FROM REGEX-TO: ms between the first lines matching each (TO: next line if empty)
	dmesg | awk -v from="$1" -v to="$2" '
		function ts(l) { return substr(l, 2, index(l, "]") - 2) + 0 }
		!found && $0 ~ from { t = ts($0); found = 1; next }
		found && (to == "" || $0 ~ to) { printf "%.3f", (ts($0) - t) * 1000; exit }'
}
node_kb() { awk '$3 == "MemTotal:" { print $4 }' "/sys/devices/system/node/node$1/meminfo"; }
case $(cat /sys/kernel/mm/shuffle/reason) in
hmat)
	gap=$(since 'acpi/hmat: node 1: direct-mapped' 'shuffle: node 1: shuffling enabled')
	shuffled_kb=$(node_kb 1)
	;;
cmdline)
	gap=$(since 'shuffle: page allocator shuffling' '')
	shuffled_kb=$(meminfo_kb MemTotal)
	;;
*)
	gap=$(since 'shuffle: page allocator shuffling' '')
	shuffled_kb=0
	;;
esac
ok "boot shuffle gap measured" test -n "$gap"
bench "boot_gap_ms=$gap boot_shuffled_kb=$shuffled_kb node1_kb=$(node_kb 1)"

# The bench boots with trace_event=shuffle:mm_shuffle_zone_order (and
# trace_clock=global, so that no clock switch empties the buffer), which
# then holds every walk the boot made: per node, the walks (one per zone
# and order) and their time.  The nodes walked are those shuffled.
tracefs_mount
is "the boot traced shuffle:mm_shuffle_zone_order" "$(cat $shuffle_event/enable)" 1
shuffle_trace_stop
walks=$(shuffle_walks | awk '
	{ n = substr($1, 6); walks[n]++; for (i = 2; i <= NF; i++) if ($i ~ /^ns=/) ns[n] += substr($i, 4) }
	END { for (n = 0; n < 3; n++) printf " node%d_walks=%d node%d_ms=%.2f", n, walks[n], n, ns[n] / 1e6 }')
walked= expected=
for n in 0 1 2; do
	[[ "$walks " =~ " node${n}_walks=0 " ]] || walked+=${walked:+,}$n
	node_in_list "$n" "$(cat /sys/kernel/mm/shuffle/nodes)" &&
		node_in_list "$n" "$(cat /sys/devices/system/node/has_memory)" && expected+=${expected:+,}$n
done
is "the boot walked the shuffled nodes with memory" "$walked" "$expected"
bench "boot_walks$walks"

boot_kb=$(meminfo_kb MemTotal)

# Hot-add of node 2 (no memory-side cache): online_pages() shuffles each
# block as it comes up, if node 2 is shuffled.
must "create a devdax namespace" ndctl create-namespace -f -e namespace0.0 -m devdax -a 2M
t0=$(date +%s%N)
ok "daxctl reconfigure-device --mode=system-ram" daxctl reconfigure-device --mode=system-ram dax0.0
t1=$(date +%s%N)
added_kb=$(($(meminfo_kb MemTotal) - boot_kb))
bench "hotadd_ms=$(((t1 - t0) / 1000000)) hotadd_kb=$added_kb"

# Page-fault throughput of a fresh 512 MiB buffer on node 0 (DRAM, no
# memory-side cache), with and without THP, several rounds each; the probe's
# line also says how physically contiguous the buffer came out (ratio) and
# whether THP backed it.
fails=0
for thp in thp no-thp; do
	opt=
	[ "$thp" = no-thp ] && opt=--no-thp
	for r in $(seq "$rounds"); do
		a0=$(vmstat thp_fault_alloc) f0=$(vmstat thp_fault_fallback)
		line=$(numactl --membind=0 "$probe" $opt 512 4) || fails=$((fails + 1))
		bench "fault variant=$thp round=$r $line thp_alloc=$(($(vmstat thp_fault_alloc) - a0)) thp_fallback=$(($(vmstat thp_fault_fallback) - f0))"
	done
done
is "every fault-in round ran" "$fails" 0
ok "node 0 still has free memory" test "$(numactl -H | awk '$1 == "node" && $2 == 0 && $3 == "free:" {print $4}')" -gt 100

done_testing
