#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: conflicts in a direct-mapped memory-side cache with and without
# page allocator shuffling, the seed's case for shuffling.  Boots the
# nvdimm+hmat-direct guest (node 1: 1 GiB behind a 128 MiB direct-mapped
# cache) twice: shuffling on (HMAT autodetection), then off
# (page_alloc.shuffle=0 on the second boot's command line).  In each boot,
# on node 1: a fresh process with a buffer of
# 3x and of 0.75x the cache, TRIALS times each, measured with
# `pmemramctl cache-report`; then an aging workload (cache-work churn:
# allocate, free in random order, keep a few chunks) and the same again.
#
# Prints, per size and phase, shuffle off against on: the simulated conflict
# rate under uniform and Zipf access (direct-mapped misses minus fully
# associative LRU misses, per access) as median and range over the trials,
# and the slots used against the ideal, with what uniform random placement
# would give.  Placement, not timing: the figures do not depend on how fast
# TCG runs.
#
# Usage: tests/bench/conflict-bench.sh [TRIALS [CHURN_ROUNDS]]  (default 3, 4)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../vm/common.sh"

trials=${1:-3}
rounds=${2:-4}
"$repo/tests/deps.sh"
# One run, two boots: the first with HMAT autodetection (on), then
# page_alloc.shuffle=0.
"$repo/tests/vm/run.sh" -q -n bench-conflict -T 3600 -e "BENCH_TRIALS=$trials" \
	-e "BENCH_CHURN_ROUNDS=$rounds" -e BENCH_SWITCH_POLICY=1 bench-conflict >&2 ||
	bench_die "the benchmark run failed; see $cache/runs/bench-conflict"
out=$cache/runs/bench-conflict/share/out

awk -v trials="$trials" -v rounds="$rounds" '
function val(line, key,   m) { return match(line, " " key "=[-0-9.e]+") ? substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) + 0 : "" }
function median(arr, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
	return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
# Median and range of metric k over the trials of (variant, phase, size), in per cent.
function stat(v, p, s, k,   i, a, n, lo, hi) {
	n = cnt[v, p, s]
	if (n == 0) return sprintf("%19s", "-")
	for (i = 1; i <= n; i++) { a[i] = x[v, p, s, k, i]; if (i == 1 || a[i] < lo) lo = a[i]; if (i == 1 || a[i] > hi) hi = a[i] }
	return sprintf("%6.2f [%5.2f,%5.2f]", 100 * median(a, n), 100 * lo, 100 * hi)
}
/^# BENCH state / { v = ($0 ~ / shuffle=1 /) ? "on" : "off"; state[v] = $4 " " $5 " " $6; cachemib = val($0, "cache_mib") }
/^# BENCH switch / { switched = $0; sub(/^# BENCH switch /, "", switched) }
/^# BENCH churn / { churn[v] = $0; sub(/^# BENCH churn /, "", churn[v]) }
/^# BENCH conflict / {
	match($0, / phase=[a-z]+/); p = substr($0, RSTART + 7, RLENGTH - 7)
	match($0, / size=[0-9.x]+/); s = substr($0, RSTART + 6, RLENGTH - 6)
	n = ++cnt[v, p, s]
	split("uniform zipf slot_use random_slot_use", keys, " ")
	for (k in keys) x[v, p, s, keys[k], n] = val($0, keys[k])
}
END {
	printf "conflict-bench: nvdimm+hmat-direct, node 1 behind a %s MiB direct-mapped cache; %d trials, %d churn rounds\n", cachemib, trials, rounds
	printf "  off: %s\n  on:  %s\n", state["off"], state["on"]
	printf "  aging, off: %s\n  aging, on:  %s\n", churn["off"], churn["on"]
	printf "  second boot: %s\n\n", switched
	printf "median [min,max] over the trials, per cent\n"
	split("3x 0.75x", sizes, " "); split("fresh aged", phases, " ")
	split("uniform zipf slot_use random_slot_use", keys, " ")
	split("conflict rate, uniform access|conflict rate, Zipf access|cache slots used / ideal|  uniform random placement: expected", names, "|")
	for (si = 1; si <= 2; si++) {
		s = sizes[si]
		printf "\nbuffer %s the cache\n%-40s %-7s %19s %19s\n", s, "", "", "shuffle off", "shuffle on"
		for (ki = 1; ki <= 4; ki++)
			for (pi = 1; pi <= 2; pi++)
				printf "%-40s %-7s %19s %19s\n", (pi == 1 ? names[ki] : ""), phases[pi], stat("off", phases[pi], s, keys[ki]), stat("on", phases[pi], s, keys[ki])
	}
}' "$out/result.boot1.tap" "$out/result.boot2.tap"
