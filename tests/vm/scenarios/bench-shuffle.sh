#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest half of tests/bench/shuffle-bench.sh: figures for one boot, printed
# as "# BENCH key=value" lines.  Run once with shuffling on and once off.
#   BENCH_ROUNDS  fault-in repetitions per variant (default 5)
set -u
. ./lib.sh

rounds=${BENCH_ROUNDS:-5}
probe=/usr/lib/pmemram-test/pagemap-contig
plan 4
bench() { echo "# BENCH $*"; }

bench "shuffle=$(cat /sys/kernel/mm/shuffle/enabled) reason=$(cat /sys/kernel/mm/shuffle/reason)"

# Boot shuffle: page_alloc_init_late() logs the decision, shuffles every
# node's free memory, then the boot goes on; the gap to the next kernel
# message holds the shuffle (and the same little else with it off).
gap=$(dmesg | awk '
	/shuffle: page allocator shuffling/ { t = substr($0, 2, index($0, "]") - 2) + 0; found = 1; next }
	found { printf "%.3f", (substr($0, 2, index($0, "]") - 2) + 0 - t) * 1000; exit }')
ok "boot shuffle gap measured" test -n "$gap"
boot_kb=$(meminfo_kb MemTotal)
bench "boot_gap_ms=$gap boot_mem_kb=$boot_kb"

# Hot-add: online_pages() shuffles each block's zone as it comes up.
must "create a devdax namespace" ndctl create-namespace -f -e namespace0.0 -m devdax -a 2M
t0=$(date +%s%N)
ok "daxctl reconfigure-device --mode=system-ram" daxctl reconfigure-device --mode=system-ram dax0.0
t1=$(date +%s%N)
added_kb=$(($(meminfo_kb MemTotal) - boot_kb))
bench "hotadd_ms=$(((t1 - t0) / 1000000)) hotadd_kb=$added_kb"

# Page-fault throughput of a fresh 512 MiB buffer on node 0, with and
# without THP, several rounds each.
fails=0
for thp in thp no-thp; do
	opt=
	[ "$thp" = no-thp ] && opt=--no-thp
	for r in $(seq "$rounds"); do
		line=$(numactl --membind=0 "$probe" $opt 512 4) || fails=$((fails + 1))
		bench "fault variant=$thp round=$r $line"
	done
done
is "every fault-in round ran" "$fails" 0
ok "node 0 still has free memory" test "$(numactl -H | awk '$1 == "node" && $2 == 0 && $3 == "free:" {print $4}')" -gt 100

done_testing
