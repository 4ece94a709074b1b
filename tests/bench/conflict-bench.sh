#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: conflicts in a direct-mapped memory-side cache with and without
# page allocator shuffling, the seed's case for shuffling, after aging the
# allocator the way servers do.  For each aging workload of cache-work
# (anon: allocate, free in random order, keep a few chunks; pagecache: read a
# file 1.5x the node's free memory, so reclaim frees in LRU order; forks:
# short children with anonymous memory and preads of that file), one run of
# the nvdimm+hmat-direct guest (node 1: 1 GiB behind a 128 MiB direct-mapped
# cache), booted twice: with HMAT, node 1 shuffled (on); then with
# numa=nohmat, node 1 unshuffled (off) and, after the aged measurement,
# switched on live through nodeN/shuffle/enabled (off, then on live).  In each
# boot, on node 1: a fresh process with a buffer of 3x and of 0.75x the cache,
# TRIALS times each, measured with `pmemramctl cache-report` (HMAT's cache, or
# without HMAT a modelled one of the same size); then the same with the aging
# workload running.
#
# Prints, per workload, size and phase, shuffle off, on, and off then on
# live: the simulated conflict rate under uniform and Zipf access
# (direct-mapped misses minus fully associative LRU misses, per access) as
# median and range over the trials, and the slots used against the ideal,
# with what uniform random placement would give; then whether aging without
# shuffling raised the conflicts and left them above aging with shuffling
# (the seed's claim), from the medians and ranges.  Placement, not timing:
# the figures do not depend on how fast TCG runs.
#
# Usage: tests/bench/conflict-bench.sh [TRIALS [ROUNDS [WORKLOAD...]]]
#   TRIALS    trials per phase and size (default 3)
#   ROUNDS    rounds of each aging workload (default 4)
#   WORKLOAD  anon, pagecache, forks (default: all three)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../vm/common.sh"
# bookworm unless PMEMRAM_PLATFORM says otherwise: the shuffle series runs on 6.1 until its 6.12 port.
export PMEMRAM_PLATFORM=${PMEMRAM_PLATFORM:-bookworm}

trials=${1:-3}
rounds=${2:-4}
shift $(($# < 2 ? $# : 2))
workloads=("$@")
[ $# -gt 0 ] || workloads=(anon pagecache forks)
"$repo/tests/deps.sh"

# report WORKLOAD BOOT1 BOOT2 DATA: the tables and the verdict of one run; the conflict rates
# for tests/bench/plot.sh into DATA.
report() {
	awk -v workload="$1" -v data="$4" '
function val(line, key,   m) { return match(line, " " key "=[-0-9.e]+") ? substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) + 0 : "" }
function word(line, key) { return match(line, " " key "=[^ ]+") ? substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) : "" }
function sort(arr, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t } }
# The trials of (column, phase, size, metric) sorted into a[1..n]; returns n.
function trials(c, p, s, k, a,   i, n) {
	n = cnt[c, p, s]
	for (i = 1; i <= n; i++) a[i] = x[c, p, s, k, i]
	sort(a, n)
	return n
}
function median(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
# Median, min and max in per cent, or "- - -", for the plot.
function triple(c, p, s, k,   a, n) {
	n = trials(c, p, s, k, a)
	return n ? sprintf("%.3f %.3f %.3f", 100 * median(a, n), 100 * a[1], 100 * a[n]) : "- - -"
}
# Median [min,max] over the trials, in per cent.
function stat(c, p, s, k,   a, n) {
	n = trials(c, p, s, k, a)
	return n ? sprintf("%6.2f [%6.2f,%6.2f]", 100 * median(a, n), 100 * a[1], 100 * a[n]) : sprintf("%22s", "-")
}
# How the uniform conflict rate at size s of (c1, p1) compares with (c2, p2):
# "higher" when its median is higher, "ranges apart" when, with two trials
# or more each, its lowest trial is above the highest of the other too.
function cmp(c1, p1, c2, p2, s,   a, b, n, m) {
	n = trials(c1, p1, s, "uniform", a); m = trials(c2, p2, s, "uniform", b)
	if (!n || !m) return "not measured"
	if (median(a, n) <= median(b, m)) return sprintf("not higher (%.2f vs %.2f)", 100 * median(a, n), 100 * median(b, m))
	return sprintf("higher (%.2f vs %.2f, %s)", 100 * median(a, n), 100 * median(b, m),
		n < 2 || m < 2 ? "one trial, no spread" : a[1] > b[m] ? "ranges apart" : "ranges overlap")
}
# Boots: with HMAT node 1 is shuffled (on); with numa=nohmat it is not (off),
# and its live phase is the third column.
/^# BENCH state / { col = word($0, "node_shuffle") ~ /^1\// ? "on" : "off"; state[col] = $0; sub(/^# BENCH state /, "", state[col]); cachemib = val($0, "cache_mib") }
/^# BENCH aging / { aging[col] = $0; sub(/^# BENCH aging /, "", aging[col]) }
/^# BENCH live / { live = $0; sub(/^# BENCH /, "", live) }
/^# BENCH conflict / {
	p = word($0, "phase"); s = word($0, "size")
	c = col
	if (p == "live") { c = "live"; p = "aged" }
	n = ++cnt[c, p, s]
	split("uniform zipf slot_use random_slot_use", keys, " ")
	for (k in keys) x[c, p, s, keys[k], n] = val($0, keys[k])
}
END {
	printf "== aging workload %s: node 1 behind a %s MiB direct-mapped cache\n", workload, cachemib
	printf "  on (HMAT):         %s\n  off (numa=nohmat): %s\n", state["on"], state["off"]
	printf "  aging, on:  %s\n  aging, off: %s\n  %s\n", aging["on"], aging["off"], live
	printf "median [min,max] over the trials, per cent; \"off, then on live\": aged off, then node 1 switched on through sysfs\n"
	split("3x 0.75x", sizes, " "); split("fresh aged", phases, " ")
	split("uniform zipf slot_use random_slot_use", keys, " ")
	split("conflict rate, uniform access|conflict rate, Zipf access|cache slots used / ideal|  uniform random placement: expected", names, "|")
	for (si = 1; si <= 2; si++) {
		s = sizes[si]
		printf "\nbuffer %s the cache\n%-40s %-6s %22s %22s %22s\n", s, "", "", "shuffle off", "shuffle on", "off, then on live"
		for (ki = 1; ki <= 4; ki++)
			for (pi = 1; pi <= 2; pi++)
				printf "%-40s %-6s %22s %22s %22s\n", (pi == 1 ? names[ki] : ""), phases[pi], stat("off", phases[pi], s, keys[ki]), stat("on", phases[pi], s, keys[ki]), stat("live", phases[pi], s, keys[ki])
	}
	# The seed (3x, uniform): 8% fresh, 21% aged unshuffled, 11% aged shuffled.
	printf "\n%s, 3x, uniform conflict rate:\n", workload
	printf "  aged off against fresh off:        %s\n", cmp("off", "aged", "off", "fresh", "3x")
	printf "  aged off against aged on:          %s\n", cmp("off", "aged", "on", "aged", "3x")
	printf "  aged off against switched on live: %s\n", cmp("off", "aged", "live", "aged", "3x")
	rise = cmp("off", "aged", "off", "fresh", "3x")
	worse = cmp("off", "aged", "on", "aged", "3x")
	printf "verdict %s: aged-off worse than aged-on: %s; the seed (aging raises conflicts unshuffled, shuffling keeps them lower) %s\n",
		workload, worse ~ /apart/ ? "yes" : worse ~ /^higher/ ? "by the median only, the ranges overlap" : "no",
		rise ~ /apart/ && worse ~ /apart/ ? "reproduces" : "does not reproduce"
	# Two blocks, uniform then Zipf: a row per size and phase, off, on and live.
	printf "# %s: conflict rate, per cent: median min max of off, on, off then on live\n", workload >data
	for (ki = 1; ki <= 2; ki++) {
		printf "%s# %s access\n", (ki > 1 ? "\n\n" : ""), keys[ki] >data
		for (si = 1; si <= 2; si++)
			for (pi = 1; pi <= 2; pi++)
				printf "\"%s %s\" %s %s %s\n", sizes[si], phases[pi], triple("off", phases[pi], sizes[si], keys[ki]),
					triple("on", phases[pi], sizes[si], keys[ki]), triple("live", phases[pi], sizes[si], keys[ki]) >data
	}
}' "$2" "$3"
}

t0=$(date +%s)
runs=()
for w in "${workloads[@]}"; do
	case $w in anon | pagecache | forks) ;; *) bench_die "unknown workload '$w' (anon, pagecache, forks)" ;; esac
	# One run, two boots: with HMAT (node 1 on), then numa=nohmat (off, then on live).
	bench_log "aging workload $w"
	"$repo/tests/vm/run.sh" -q -n "bench-conflict-$w" -T 3600 -a page_alloc.shuffle=auto -e "BENCH_TRIALS=$trials" \
		-e "BENCH_CHURN_ROUNDS=$rounds" -e "BENCH_AGING=$w" -e BENCH_NOHMAT_BOOT=1 bench-conflict >&2 ||
		bench_die "the benchmark run of $w failed; see $cache/runs/bench-conflict-$w"
	runs+=("$w")
done
printf 'conflict-bench: %d trials, %d aging rounds, %d s\n' "$trials" "$rounds" $(($(date +%s) - t0))
plots=()
for w in "${runs[@]}"; do
	out=$cache/runs/bench-conflict-$w/share/out
	echo
	report "$w" "$out/result.boot1.tap" "$out/result.boot2.tap" "$out/conflict.dat"
	plots+=("$("$repo/tests/bench/plot.sh" conflict "$out/conflict.dat" "$out/conflict.png" \
		"conflict rate of node 1's direct-mapped cache, aging workload $w, buffer 3x and 0.75x the cache")")
done
echo
printf 'plot: %s\n' "${plots[@]}"
