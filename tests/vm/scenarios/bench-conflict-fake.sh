#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The seed's contrived case for shuffling: node 1 (1 GiB behind a 128 MiB
# direct-mapped cache) split by numa=fake=8U into eight nodes of the cache's
# size, and two instances of one working set, each bound to one of two of
# those nodes.  Unshuffled, both instances take the same offsets of their
# nodes, so their pages land in the same cache slots; pmemramctl
# cache-report models both together behind the one cache (--shared-cache).
# Guest half of tests/bench/conflict-fake-bench.sh, which boots with
# numa=nohmat numa=fake=8U (unshuffled, then both nodes switched on live)
# and again with page_alloc.shuffle=1 (shuffled at boot).  Prints "# BENCH
# ..." lines.
#   BENCH_TRIALS     trials per phase and size (default 3)
#   BENCH_CACHE_MIB  the cache's size (default 128; numa=nohmat hides HMAT's)
#
# numa=fake gives the CPUs their emulated nodes after the workqueue code
# computed each node's possible CPUs, and the kernel says so once, as a
# plain message (no stack trace):
# vm: kernel-message-ok ^\[ *[0-9.]+\] WARNING: workqueue cpumask: online intersect > possible intersect
set -u
. ./lib.sh

trials=${BENCH_TRIALS:-3}
cache_mib=${BENCH_CACHE_MIB:-128}
work=/usr/lib/pmemram-test/cache-work
bench() { echo "# BENCH $*"; }
shuffled() { cat "/sys/devices/system/node/node$1/shuffle/enabled"; }
live=0
[ "$(cat /sys/kernel/mm/shuffle/reason)" = default-off ] && live=1
phases=boot
[ "$live" = 1 ] && phases="boot live"
plan $((4 + $(wc -w <<<"$phases") * trials * 2 * 2 + live * 2))

# The emulated nodes split from node 1: those whose memory blocks lie in
# node 1's physical range, [1 GiB, 2 GiB).
bs=$(block_size)
fake=()
for n in $(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//' | sort -n); do
	d=/sys/devices/system/node/node$n
	b=$(find "$d" -maxdepth 1 -name 'memory[0-9]*' -printf '%f\n' | sed 's/memory//' | sort -n | head -n 1)
	[ -n "$b" ] && [ $((b * bs)) -ge $((1 << 30)) ] && [ $((b * bs)) -lt $((2 << 30)) ] && fake+=("$n")
done
is "numa=fake=8U split node 1 into 8 nodes" "${#fake[@]}" 8 || bail "node 1 is not split in 8: ${fake[*]}"
# Each at most the cache's size (the last one loses what the firmware
# reserves at the top of node 1).
sizes=$(for n in "${fake[@]}"; do node_mem_mb "$n"; done)
ok "none larger than the cache, ${cache_mib} MiB: $(echo $sizes)" \
	test "$(awk -v c="$cache_mib" '$1 <= c' <<<"$sizes" | wc -l)" -eq 8
# Two nodes in the middle of the split: the first holds more of the kernel's own.
a=${fake[3]} b=${fake[4]}
ok "nodes $a and $b are the cache's size" test "$(node_mem_mb "$a")" -gt $((cache_mib - 8)) -a \
	"$(node_mem_mb "$b")" -gt $((cache_mib - 8))
is "nodes $a and $b: shuffled as the boot decided" "$(shuffled "$a") $(shuffled "$b")" \
	"$(cat /sys/kernel/mm/shuffle/enabled) $(cat /sys/kernel/mm/shuffle/enabled)"
bench "state reason=$(cat /sys/kernel/mm/shuffle/reason) nodes=${fake[*]} pair=$a,$b cache_mib=$cache_mib"

shared=$(
	IFS=,
	echo "${fake[*]}"
)
# As cache-report prints it back: consecutive nodes as a range.
shared_list="${fake[0]}-${fake[7]}"
tmp=$(mktemp -d)
# hold NODE MIB OUT: cache-work holding MIB MiB on NODE, its pid in held once it is ready.
held=
hold() {
	local out=$3
	rm -f "$out"
	numactl --membind="$1" "$work" hold "$2" >"$out" &
	held=$!
	wait_for 300 'grep -q ^ready "$out"' || { kill "$held"; return 1; }
}

# measure PHASE LABEL MIB TRIAL: one instance of MIB MiB on each node, modelled together.
measure() {
	local phase=$1 label=$2 mib=$3 trial=$4 pa pb report=$PMEMRAM_OUT/report-$1-$2-$4.json
	hold "$a" "$mib" "$tmp/a" || bail "cache-work hold $mib on node $a did not get ready"
	pa=$held
	hold "$b" "$mib" "$tmp/b" || bail "cache-work hold $mib on node $b did not get ready"
	pb=$held
	ok "$phase $label #$trial: cache-report ran" sh -c "pmemramctl cache-report --json --pid $pa --pid $pb \
		--cache-size ${cache_mib}M --shared-cache $shared >$report"
	numastat -p "$pa" -p "$pb" >"${report%.json}.numastat" 2>&1
	kill "$pa" "$pb"
	wait "$pa" "$pb" 2>/dev/null
	# Both buffers, plus a few pages of each program's own.
	ok "$phase $label #$trial: both buffers modelled behind one cache" \
		jq -e --argjson p $((2 * mib * 256)) --arg shared "$shared_list" '[.nodes[] | select(.shared_cache_nodes)] |
			length == 1 and (.[0] | .modelled and .shared_cache_nodes == $shared and .pages >= $p and
			.pages <= $p + 4096)' "$report"
	bench "conflict phase=$phase size=$label mib=$mib trial=$trial $(jq -r '.nodes[] | select(.shared_cache_nodes) |
		"pages=\(.pages) slot_use=\(.slot_use) random_slot_use=\(.expected_random_slot_use)" +
		" uniform=\(.uniform.conflict_rate) zipf=\(.zipf.conflict_rate)"' "$report")"
}

for phase in $phases; do
	if [ "$phase" = live ]; then
		ok "switch nodes $a and $b on" sh -c "echo 1 >/sys/devices/system/node/node$a/shuffle/enabled &&
			echo 1 >/sys/devices/system/node/node$b/shuffle/enabled"
		is "both shuffled now, at runtime" \
			"$(cat "/sys/devices/system/node/node$a/shuffle/reason") $(shuffled "$a") $(shuffled "$b")" "sysfs 1 1"
	fi
	for trial in $(seq "$trials"); do
		measure "$phase" 0.5x $((cache_mib / 2)) "$trial"
		measure "$phase" 0.25x $((cache_mib / 4)) "$trial"
	done
done
rm -rf "$tmp"
done_testing
