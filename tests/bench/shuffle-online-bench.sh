#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: the kernel's cost of onlining a 16 GiB kmem device block by block (125 blocks of
# 128 MiB) on a shuffled node, at shuffle order 10 (MAX_ORDER - 1) and 0 (the lowest), and
# unshuffled for comparison, one boot each in one run (page_alloc.shuffle=1 shuffles node 2,
# where the device lands; page_alloc.shuffle=0 does not).  Prints, per boot, the median ms per
# block of the first 10 blocks and of the last 10, and their ratio: an
# online shuffles only its own block against the zone, so the ratio stays near 1 however many
# blocks are online already.  On the shuffled boots the same for the shuffle walks alone, from
# the shuffle:mm_shuffle_zone_order tracepoint: microseconds and free blocks found per block.  Under
# TCG the absolute times are slow; read the ratios.
#
# Usage: tests/bench/shuffle-online-bench.sh
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../vm/common.sh"

[ $# = 0 ] || bench_die "usage: $0 (no arguments)"
"$repo/tests/deps.sh"
for v in 10 0 off; do
	args="page_alloc.shuffle=1 page_alloc.shuffle_order=$v" env=BENCH_SHUFFLED=1
	[ "$v" = off ] && args=page_alloc.shuffle=0 env=BENCH_SHUFFLED=0
	"$repo/tests/vm/run.sh" -q -T 1200 -M 24G -n "bench-online-shuffled-$v" -a "$args" -e "$env" \
		bench-online-shuffled >&2 || bench_die "the '$v' boot failed; see $cache/runs/bench-online-shuffled-$v"
done

for v in 10 0 off; do
	grep -h -e '^# BENCH per_block_ms' -e '^# BENCH walk_us_found' \
		"$cache/runs/bench-online-shuffled-$v/share/out/result.tap"
done | awk '
function median(a, lo, hi,   i, j, t, n, b) {
	n = 0
	for (i = lo; i <= hi; i++) b[++n] = a[i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
	return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
}
{
	info = ""; n = 0
	for (i = 4; i <= NF; i++) if ($i ~ /=/) info = info " " $i; else { split($i, p, "/"); v[++n] = p[1]; w[n] = p[2] }
	what = $3 == "walk_us_found" ? "  shuffle walks alone, us" : "online, ms"
	if (n < 20) { printf "%s per block%s: only %d blocks\n", what, info, n; next }
	first = median(v, 1, 10); last = median(v, n - 9, n)
	printf "%s per block as the zone grows (%s, %d blocks): first 10 %.2f, last 10 %.2f: ratio %.2f\n",
		what, substr(info, 2), n, first, last, last / first
	if ($3 == "walk_us_found")
		printf "  shuffle walks alone, free blocks found per block: first 10 %d, last 10 %d\n", median(w, 1, 10), median(w, n - 9, n)
}'
