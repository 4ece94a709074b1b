#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Conflicts in node 1's direct-mapped memory-side cache, as pmemramctl
# cache-report models them for a buffer of 3x and of 0.75x the cache: on a
# fresh allocator, then after aging it with a workload that keeps running.
# Where node 1 boots unshuffled and switchable (reason default-off, as with
# numa=nohmat), a third phase, live: node 1's shuffling switched on through
# sysfs after the aged measurement, and the same again.  Guest half of
# tests/bench/conflict-bench.sh, which boots once with HMAT (shuffling on) and
# once with numa=nohmat (off, then live); in the suite one quick trial checks
# cache-report itself.  Prints "# BENCH ..." lines.
#   BENCH_AGING         the aging workload (cache-work): anon (churn, the
#                       default), pagecache (reading a file 1.5x the node's
#                       free memory) or forks (short children, anonymous
#                       memory and preads of that file)
#   BENCH_TRIALS        trials per phase and size (default 3)
#   BENCH_CHURN_ROUNDS  rounds of the aging workload (default 4; 0: no aging)
#   BENCH_CHURN_MIB     anon: MiB allocated per round (default 512)
#   BENCH_CHURN_KEEP    anon: per mille of the chunks kept each round (default 50)
#   BENCH_FORKS         forks: children per round (default 64)
#   BENCH_FORKS_ALIVE   forks: children alive at once, at most (default 8)
#   BENCH_CACHE_MIB     the cache modelled (cache-report --cache-size) when
#                       HMAT reports none, as with numa=nohmat (default 128)
#   BENCH_NOHMAT_BOOT   1: after measuring with HMAT, boot again with
#                       numa=nohmat and measure again
set -u
. ./lib.sh

aging=${BENCH_AGING:-anon}
trials=${BENCH_TRIALS:-3}
rounds=${BENCH_CHURN_ROUNDS:-4}
churn_mib=${BENCH_CHURN_MIB:-512}
keep=${BENCH_CHURN_KEEP:-50}
forks=${BENCH_FORKS:-64}
alive=${BENCH_FORKS_ALIVE:-8}
work=/usr/lib/pmemram-test/cache-work
node=1
nodedir=/sys/devices/system/node/node$node
case $aging in anon | pagecache | forks) ;; *) bail "BENCH_AGING=$aging: not anon, pagecache or forks" ;; esac
node_state=$(cat $nodedir/shuffle/enabled)/$(cat $nodedir/shuffle/reason)
phases=fresh
[ "$rounds" -gt 0 ] && phases="fresh aged"
[ "$rounds" -gt 0 ] && [ "$node_state" = 0/default-off ] && phases="fresh aged live"
nphases=$(wc -w <<<"$phases")
# 2 on the cache, 4 per measurement, 1 as nobody; pagecache's FilePages
# check; the live switch's write and reason.
checks_age=0
[ "$aging" = pagecache ] && [ "$rounds" -gt 0 ] && checks_age=1
plan $((2 + nphases * 2 * trials * 4 + 1 + checks_age + 2 * (nphases == 3)))
bench() { echo "# BENCH $*"; }
node_file_kb() { awk '$3 == "FilePages:" {print $4}' "/sys/devices/system/node/node$1/meminfo"; }

cache=$nodedir/memory_side_cache/index1
if [ -d "$cache" ]; then
	is "node $node's cache is direct-mapped (HMAT indexing 0)" "$(cat $cache/indexing)" 0
	cache_mib=$(($(cat $cache/size) >> 20))
	source=hmat
	report_opts=()
else
	# numa=nohmat: no cache in sysfs; cache-report models one of the
	# size HMAT would have reported.
	is "node $node reports no memory-side cache: HMAT is off (numa=nohmat)" \
		"$(tr ' ' '\n' </proc/cmdline | grep -x numa=nohmat)" numa=nohmat
	cache_mib=${BENCH_CACHE_MIB:-128}
	source=option
	report_opts=(--cache-size "${cache_mib}M")
fi
ok "node $node's cache has a size" test "$cache_mib" -gt 0
bench "state node_shuffle=$node_state shuffle=$(cat /sys/kernel/mm/shuffle/enabled)" \
	"reason=$(cat /sys/kernel/mm/shuffle/reason) order=$(cat /sys/kernel/mm/shuffle/order)" \
	"cache_mib=$cache_mib cache_source=$source node_mib=$(node_mem_mb $node) aging=$aging"

tmp=$(mktemp -d)
# start_work OUT ARGS...: run cache-work bound to the node, its stdout in
# OUT, and wait for its "ready"; its pid in work_pid.
work_pid=
start_work() {
	local out=$1
	shift
	rm -f "$out"
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
		sh -c "pmemramctl cache-report --json ${report_opts[*]} --pid $pid --node $node >$report"
	stop_work "$pid"
	pages=$(jq '.nodes[0].pages // 0' "$report")
	# The buffer, plus a few pages of the program's own on the node.
	ok "$phase $label #$trial: the ${mib} MiB buffer is on node $node ($pages pages)" \
		test "$pages" -ge $((mib * 256)) -a "$pages" -le $((mib * 256 + 4096))
	is "$phase $label #$trial: modelled with the cache of source $source" \
		"$(jq -r '"\(.nodes[0].modelled) \(.nodes[0].cache.source) \(.nodes[0].slots)"' "$report")" \
		"true $source $((cache_mib * 256))"
	ok "$phase $label #$trial: slot use and conflict rates are in range" \
		jq -e '.nodes[0] | .slot_use > 0 and .slot_use <= 1 and ([.uniform.conflict_rate, .zipf.conflict_rate]
			| all(. >= -1 and . <= 1))' "$report"
	bench "conflict phase=$phase size=$label mib=$mib trial=$trial $(jq -r '.nodes[0] |
		"pages=\(.pages) slot_use=\(.slot_use) random_slot_use=\(.expected_random_slot_use)" +
		" uniform=\(.uniform.conflict_rate) zipf=\(.zipf.conflict_rate)" +
		" dm_miss=\(.uniform.direct_mapped_miss_rate) lru_miss=\(.uniform.lru_miss_rate)"' "$report")"
}

# age: start the aging workload (its memory, or its page cache, stays until
# the end); its pid in age_pid.  The file of pagecache and forks lies on the
# root file system (ext4; /tmp may be a tmpfs, whose holes are no page cache),
# sparse, 1.5x the node's free memory.
age_file=/var/tmp/bench-conflict-age
age_pid=
age() {
	local t0 free file_kb file_mib=0
	t0=$(date +%s)
	free=$(node_free_mb $node)
	file_kb=$(node_file_kb $node)
	if [ "$aging" != anon ]; then
		file_mib=$((free * 3 / 2))
		rm -f "$age_file"
		truncate -s "${file_mib}M" "$age_file" || bail "cannot create $age_file"
	fi
	case $aging in
	anon) start_work "$tmp/age" churn "$churn_mib" "$rounds" "$keep" 0x5eed ;;
	pagecache) start_work "$tmp/age" pagecache "$age_file" "$rounds" ;;
	forks) start_work "$tmp/age" forks "$age_file" $((rounds * forks)) "$alive" 0x5eed ;;
	esac || bail "the aging workload $aging did not finish"
	age_pid=$work_pid
	if [ "$aging" = pagecache ]; then
		# Reading the holes of the sparse file fills the node's page cache.
		ok "reading a sparse file of $file_mib MiB put at least half the node's ${free} MiB free into its page cache" \
			test $((($(node_file_kb $node) - file_kb) / 1024)) -ge $((free / 2))
	fi
	bench "aging workload=$aging rounds=$rounds churn_mib=$churn_mib keep_permille=$keep forks=$forks alive=$alive" \
		"file_mib=$file_mib seconds=$(($(date +%s) - t0)) $(cat "$tmp/age")" \
		"node_free_mib_before=$free node_free_mib=$(node_free_mb $node)" \
		"node_file_mib_before=$((file_kb / 1024)) node_file_mib=$(($(node_file_kb $node) / 1024))"
}

for phase in $phases; do
	case $phase in
	aged) age ;;
	live)
		# The runtime switch: one shuffle of the node's free memory, and
		# shuffled from then on, the aging workload still running.
		ok "node $node's shuffling switched on live" sh -c "echo 1 >$nodedir/shuffle/enabled"
		is "node $node is shuffled, reason sysfs" "$(cat $nodedir/shuffle/enabled)/$(cat $nodedir/shuffle/reason)" 1/sysfs
		bench "live node_shuffle=$(cat $nodedir/shuffle/enabled)/$(cat $nodedir/shuffle/reason) node_free_mib=$(node_free_mb $node)"
		;;
	esac
	for trial in $(seq "$trials"); do
		measure "$phase" 3x $((cache_mib * 3)) "$trial"
		measure "$phase" 0.75x $((cache_mib * 3 / 4)) "$trial"
	done
done
[ -z "$age_pid" ] || stop_work "$age_pid"
rm -f "$age_file"

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

if [ "${BENCH_NOHMAT_BOOT:-0}" = 1 ] && [ "${PMEMRAM_BOOT:-1}" = 1 ]; then
	# The second boot without HMAT: node 1 boots unshuffled (default-off)
	# and can be switched on live, which page_alloc.shuffle=0 would forbid.
	tr ' ' '\n' </proc/cmdline | grep -v '^numa=' | grep . | tr '\n' ' ' >"$PMEMRAM_OUT/next-cmdline"
	echo numa=nohmat >>"$PMEMRAM_OUT/next-cmdline"
	bench "switch cmdline=numa=nohmat"
	touch "$PMEMRAM_OUT/reboot-requested"
fi
done_testing
