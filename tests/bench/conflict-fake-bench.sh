#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: the seed's contrived case for shuffling.  numa=fake=8U splits
# node 1 of the nvdimm+hmat-direct guest (1 GiB behind a 128 MiB
# direct-mapped cache) into eight nodes of the cache's size, and two
# instances of one working set run on two of them, so that unshuffled they
# alias slot for slot.  Two boots in one run: numa=nohmat (both nodes
# unshuffled, then switched on live through nodeN/shuffle/enabled) and
# numa=nohmat page_alloc.shuffle=1 (every node shuffled at boot).  For
# working sets of 0.5x and 0.25x the cache per instance, prints the modelled
# conflict rates and slot use of both instances behind the one cache, median
# and range over the trials, and what uniform random placement would give.
#
# Usage: tests/bench/conflict-fake-bench.sh [TRIALS]  (default 3)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../vm/common.sh"
# bookworm unless PMEMRAM_PLATFORM says otherwise: the shuffle series runs on 6.1 until its 6.12 port.
export PMEMRAM_PLATFORM=${PMEMRAM_PLATFORM:-bookworm}

trials=${1:-3}
[[ $trials =~ ^[1-9][0-9]*$ ]] || bench_die "usage: $0 [TRIALS]: TRIALS must be a positive number, not '$trials'"
"$repo/tests/deps.sh"
for v in unshuffled shuffled; do
	args="numa=nohmat numa=fake=8U"
	[ "$v" = shuffled ] && args+=" page_alloc.shuffle=1"
	"$repo/tests/vm/run.sh" -q -T 1800 -n "bench-conflict-fake-$v" -a "$args" -e "BENCH_TRIALS=$trials" \
		bench-conflict-fake >&2 || bench_die "the $v boot failed; see $cache/runs/bench-conflict-fake-$v"
done

awk -v trials="$trials" '
function val(line, key) { return match(line, " " key "=[-0-9.e]+") ? substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) + 0 : "" }
function median(arr, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
	return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
# Median and range of metric k over the trials of (column, size), in per cent.
function stat(c, s, k,   i, a, n, lo, hi) {
	n = cnt[c, s]
	if (n == 0) return sprintf("%19s", "-")
	for (i = 1; i <= n; i++) { a[i] = x[c, s, k, i]; if (i == 1 || a[i] < lo) lo = a[i]; if (i == 1 || a[i] > hi) hi = a[i] }
	return sprintf("%6.2f [%5.2f,%5.2f]", 100 * median(a, n), 100 * lo, 100 * hi)
}
/^# BENCH state / { shuffled = ($0 !~ /reason=default-off/); state[shuffled] = $0; sub(/^# BENCH state /, "", state[shuffled]) }
/^# BENCH conflict / {
	match($0, / phase=[a-z]+/); p = substr($0, RSTART + 7, RLENGTH - 7)
	match($0, / size=[0-9.x]+/); s = substr($0, RSTART + 6, RLENGTH - 6)
	c = shuffled ? "boot" : (p == "live" ? "live" : "off")
	n = ++cnt[c, s]
	split("uniform zipf slot_use random_slot_use", keys, " ")
	for (k in keys) x[c, s, keys[k], n] = val($0, keys[k])
}
END {
	printf "conflict-fake-bench: node 1 split by numa=fake=8U, two instances on two of its nodes, %d trials\n", trials
	printf "  unshuffled boot: %s\n  shuffled boot:   %s\n", state[0], state[1]
	printf "median [min,max] over the trials, per cent\n"
	split("0.5x 0.25x", sizes, " ")
	split("uniform zipf slot_use random_slot_use", keys, " ")
	split("conflict rate, uniform access|conflict rate, Zipf access|cache slots used / ideal|  uniform random placement: expected", names, "|")
	for (si = 1; si <= 2; si++) {
		s = sizes[si]
		printf "\neach instance %s the cache\n%-40s %19s %19s %19s\n", s, "", "unshuffled", "switched on live", "shuffled at boot"
		for (ki = 1; ki <= 4; ki++)
			printf "%-40s %19s %19s %19s\n", names[ki], stat("off", s, keys[ki]), stat("live", s, keys[ki]), stat("boot", s, keys[ki])
	}
}' "$cache/runs/bench-conflict-fake-unshuffled/share/out/result.tap" \
	"$cache/runs/bench-conflict-fake-shuffled/share/out/result.tap"
