#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: the kernel's cost of onlining a 16 GiB kmem device block by block (125 blocks of
# 128 MiB) on a shuffled node, at shuffle order 10 (MAX_ORDER - 1) and 0 (the lowest), and
# unshuffled for comparison, one boot each in one run (page_alloc.shuffle=1 shuffles node 2,
# where the device lands; page_alloc.shuffle=0 does not), five rounds of the 125 onlines each.
# A fourth boot shuffles node 2 alone through its sysfs switch, on and off in turns over ten
# rounds: shuffled and unshuffled onlines of one boot.  An online shuffles only its own block
# against the zone, so its cost should not grow with the blocks already online.  Prints, per
# boot and state, the medians over the rounds of: ms per block for the first 10 blocks and the
# last 10, their ratio, and the least-squares growth in ms per block per 100 blocks already
# online.  On the shuffled rounds the same for the shuffle walks alone, from the
# shuffle:mm_shuffle_zone_order tracepoint: microseconds and free blocks found per block.
# Under TCG the absolute times are slow and noisy; read the ratios.
#
# Usage: tests/bench/shuffle-online-bench.sh
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../vm/common.sh"
# bookworm unless PMEMRAM_PLATFORM says otherwise: the shuffle series runs on 6.1 until its 6.12 port.
export PMEMRAM_PLATFORM=${PMEMRAM_PLATFORM:-bookworm}

[ $# = 0 ] || bench_die "usage: $0 (no arguments)"
"$repo/tests/deps.sh"
boots="10 0 off switch"
for v in $boots; do
	case $v in
	off) args=page_alloc.shuffle=0 envs=(-e BENCH_SHUFFLED=0 -e BENCH_ROUNDS=5) ;;
	switch) args=page_alloc.shuffle_order=10 envs=(-e BENCH_SHUFFLED=switch -e BENCH_ROUNDS=10) ;;
	*) args="page_alloc.shuffle=1 page_alloc.shuffle_order=$v" envs=(-e BENCH_SHUFFLED=1 -e BENCH_ROUNDS=5) ;;
	esac
	"$repo/tests/vm/run.sh" -q -T 1200 -M 24G -n "bench-online-shuffled-$v" -a "$args" "${envs[@]}" \
		bench-online-shuffled >&2 || bench_die "the '$v' boot failed; see $cache/runs/bench-online-shuffled-$v"
done

for v in $boots; do
	grep -h -e '^# BENCH per_block_ms' -e '^# BENCH walk_us_found' \
		"$cache/runs/bench-online-shuffled-$v/share/out/result.tap" | sed "s/^/boot=$v /"
done | awk '
function median(a, n,   i, j, t, b) {
	for (i = 1; i <= n; i++) b[i] = a[i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
	return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
}
function range_median(a, lo, hi,   i, b, n) {
	n = 0
	for (i = lo; i <= hi; i++) b[++n] = a[i]
	return median(b, n)
}
# Least-squares slope of a[1..n] against the index.
function slope(a, n,   i, sx, sy, sxy, sxx) {
	for (i = 1; i <= n; i++) { sx += i; sy += a[i]; sxy += i * a[i]; sxx += i * i }
	return (n * sxy - sx * sy) / (n * sxx - sx * sx)
}
{
	boot = substr($1, 6); kind = $4; n = 0; shuffled = 1; order = ""
	delete v; delete w
	for (i = 5; i <= NF; i++) {
		if ($i ~ /^shuffled=/) shuffled = substr($i, 10)
		else if ($i ~ /^order=/) order = substr($i, 7)
		else if ($i !~ /=/) { split($i, p, "/"); v[++n] = p[1]; w[n] = p[2] }
	}
	if (n < 20) { printf "boot %s, %s: only %d blocks\n", boot, kind, n; bad = 1; next }
	k = boot SUBSEP kind SUBSEP shuffled
	if (!(k in rounds)) { keys[++nk] = k; ord[k] = order; nblocks[k] = n }
	r = ++rounds[k]
	first[k, r] = range_median(v, 1, 10); last[k, r] = range_median(v, n - 9, n)
	ratio[k, r] = last[k, r] / first[k, r]; grow[k, r] = slope(v, n) * 100
	if (kind == "walk_us_found") { wfirst[k, r] = range_median(w, 1, 10); wlast[k, r] = range_median(w, n - 9, n) }
}
END {
	for (i = 1; i <= nk; i++) {
		k = keys[i]; split(k, f, SUBSEP); m = rounds[k]
		for (r = 1; r <= m; r++) { a[r] = first[k, r]; b[r] = last[k, r]; c[r] = ratio[k, r]; d[r] = grow[k, r] }
		what = f[2] == "walk_us_found" ? "  shuffle walks alone, us" : "online, ms"
		printf "boot %s (%s, order %s), %s per block, %d blocks, median of %d rounds: first 10 %.2f, last 10 %.2f, ratio %.2f [", \
			f[1], f[3] ? "node shuffled" : "node not shuffled", ord[k], what, nblocks[k], m, median(a, m), median(b, m), median(c, m)
		for (r = 1; r <= m; r++) printf "%s%.2f", (r > 1 ? " " : ""), c[r]
		printf "]; growth %+.2f per 100 blocks online\n", median(d, m)
		if (f[2] == "walk_us_found") {
			for (r = 1; r <= m; r++) { a[r] = wfirst[k, r]; b[r] = wlast[k, r] }
			printf "  shuffle walks alone, free blocks found per block: first 10 %d, last 10 %d\n", median(a, m), median(b, m)
		}
	}
	exit bad
}'
