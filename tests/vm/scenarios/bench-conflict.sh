#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Conflicts in node 1's direct-mapped memory-side cache, as pmemramctl
# cache-report models them for a buffer of 3x and of 0.75x the cache: on a
# fresh allocator, then after aging it with a churn workload.  Guest half of
# tests/bench/conflict-bench.sh, which boots once with shuffling off and once
# on; in the suite one quick trial checks cache-report itself.  Prints
# "# BENCH conflict ..." lines.
#   BENCH_TRIALS        trials per phase and size (default 3)
#   BENCH_CHURN_ROUNDS  rounds of the aging workload (default 4; 0: no aging)
#   BENCH_CHURN_MIB     MiB allocated per round (default 512)
#   BENCH_CHURN_KEEP    per mille of the chunks kept each round (default 50)
#   BENCH_SWITCH_POLICY 1: after measuring, boot again with the opposite
#                       page_alloc.shuffle= and measure again
set -u
. ./lib.sh

trials=${BENCH_TRIALS:-3}
rounds=${BENCH_CHURN_ROUNDS:-4}
churn_mib=${BENCH_CHURN_MIB:-512}
keep=${BENCH_CHURN_KEEP:-50}
work=/usr/lib/pmemram-test/cache-work
node=1
phases=fresh
[ "$rounds" -gt 0 ] && phases="fresh aged"
plan $((2 + $(wc -w <<<"$phases") * 2 * trials * 4 + 1))
bench() { echo "# BENCH $*"; }

cache=/sys/devices/system/node/node$node/memory_side_cache/index1
is "node $node's cache is direct-mapped (HMAT indexing 0)" "$(cat $cache/indexing)" 0
cache_mib=$(($(cat $cache/size) >> 20))
ok "node $node's cache has a size" test "$cache_mib" -gt 0
bench "state shuffle=$(cat /sys/kernel/mm/shuffle/enabled) reason=$(cat /sys/kernel/mm/shuffle/reason)" \
	"order=$(cat /sys/kernel/mm/shuffle/order) cache_mib=$cache_mib node_mib=$(node_mem_mb $node)"

tmp=$(mktemp -d)
# start_work OUT ARGS...: run cache-work bound to the node, its stdout in
# OUT, and wait for its "ready"; its pid in work_pid.
work_pid=
start_work() {
	local out=$1
	shift
	numactl --membind=$node "$work" "$@" >"$out" &
	work_pid=$!
	wait_for 900 'grep -q ^ready "$out"' || { stop_work "$work_pid"; return 1; }
}
# stop_work PID: end it and wait until its memory is back.
stop_work() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

# measure PHASE LABEL MIB TRIAL: one buffer, one report, one BENCH line.
measure() {
	local phase=$1 label=$2 mib=$3 trial=$4 pid report pages
	report=$tmp/report-$phase-$label-$trial.json
	start_work "$tmp/hold" hold "$mib" || bail "cache-work hold $mib did not get ready"
	pid=$work_pid
	ok "$phase $label #$trial: cache-report ran" \
		sh -c "pmemramctl cache-report --json --pid $pid --node $node >$report"
	stop_work "$pid"
	pages=$(jq '.nodes[0].pages // 0' "$report")
	# The buffer, plus a few pages of the program's own on the node.
	ok "$phase $label #$trial: the ${mib} MiB buffer is on node $node ($pages pages)" \
		test "$pages" -ge $((mib * 256)) -a "$pages" -le $((mib * 256 + 4096))
	is "$phase $label #$trial: modelled with HMAT's cache" \
		"$(jq -r '"\(.nodes[0].modelled) \(.nodes[0].cache.source) \(.nodes[0].slots)"' "$report")" \
		"true hmat $((cache_mib * 256))"
	ok "$phase $label #$trial: slot use and conflict rates are in range" \
		jq -e '.nodes[0] | .slot_use > 0 and .slot_use <= 1 and ([.uniform.conflict_rate, .zipf.conflict_rate]
			| all(. >= -1 and . <= 1))' "$report"
	bench "conflict phase=$phase size=$label mib=$mib trial=$trial $(jq -r '.nodes[0] |
		"pages=\(.pages) slot_use=\(.slot_use) random_slot_use=\(.expected_random_slot_use)" +
		" uniform=\(.uniform.conflict_rate) zipf=\(.zipf.conflict_rate)" +
		" dm_miss=\(.uniform.direct_mapped_miss_rate) lru_miss=\(.uniform.lru_miss_rate)"' "$report")"
}

churn_pid=
for phase in $phases; do
	if [ "$phase" = aged ]; then
		t0=$(date +%s)
		start_work "$tmp/churn" churn "$churn_mib" "$rounds" "$keep" 0x5eed ||
			bail "the aging workload did not finish"
		churn_pid=$work_pid
		bench "churn rounds=$rounds mib=$churn_mib keep_permille=$keep seconds=$(($(date +%s) - t0))" \
			"$(cat "$tmp/churn") node_free_mib=$(numactl -H | awk -v n=$node '$1 == "node" && $2 == n && $3 == "free:" {print $4}')"
	fi
	for trial in $(seq "$trials"); do
		measure "$phase" 3x $((cache_mib * 3)) "$trial"
		measure "$phase" 0.75x $((cache_mib * 3 / 4)) "$trial"
	done
done
[ -z "$churn_pid" ] || stop_work "$churn_pid"

# Without root the frame numbers are hidden, even in one's own pagemap, and
# cache-report says so.
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
chmod 1777 "$tmp"
"${nobody[@]}" "$work" hold 16 >"$tmp/nobody" &
pid=$!
wait_for 120 'grep -q ^ready "$tmp/nobody"' || bail "cache-work hold 16 as nobody did not get ready"
ok "cache-report as nobody fails, naming the pagemap and root" \
	sh -c "! ${nobody[*]} pmemramctl cache-report --pid $pid 2>$tmp/err &&
		grep 'pagemap shows no page frame numbers: reading them needs root' $tmp/err"
stop_work "$pid"
rm -rf "$tmp"

if [ "${BENCH_SWITCH_POLICY:-0}" = 1 ] && [ "${PMEMRAM_BOOT:-1}" = 1 ]; then
	# The second boot with the opposite: page_alloc.shuffle= on its command
	# line, as a boot parameter (pmemramctl shuffle apply switches a node at
	# runtime on this kernel, which would leave the allocator aged shuffled).
	want=1
	[ "$(cat /sys/kernel/mm/shuffle/enabled)" = 1 ] && want=0
	tr ' ' '\n' </proc/cmdline | grep -v '^page_alloc\.shuffle' | grep . | tr '\n' ' ' >"$PMEMRAM_OUT/next-cmdline"
	echo "page_alloc.shuffle=$want" >>"$PMEMRAM_OUT/next-cmdline"
	bench "switch cmdline=page_alloc.shuffle=$want"
	touch "$PMEMRAM_OUT/reboot-requested"
fi
done_testing
