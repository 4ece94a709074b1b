#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: what page allocator shuffling costs.  Boots the
# nvdimm+hmat-direct guest twice in one run, shuffling on (HMAT) and off
# (page_alloc.shuffle=0), and prints per variant: the boot shuffle time per
# GiB of boot memory, the time to hot-add the 1 GiB NVDIMM through kmem
# (onlining shuffles it) per GiB, and the page-fault throughput of a fresh
# 512 MiB buffer, with the on/off ratios.  Under TCG the absolute figures
# are slow; the ratios are what to read.
#
# Usage: tests/bench/shuffle-bench.sh [ROUNDS]   (default 5 fault-in rounds)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../vm/common.sh"

rounds=${1:-5}
"$repo/tests/deps.sh"
for v in on off; do
	append=
	[ "$v" = off ] && append=page_alloc.shuffle=0
	"$repo/tests/vm/run.sh" -q -n "bench-shuffle-$v" -a "$append" \
		-e "BENCH_ROUNDS=$rounds" bench-shuffle >&2 ||
		bench_die "the '$v' boot failed; see $cache/runs/bench-shuffle-$v"
done

# Median of the values of KEY in variant V's fault lines of one THP mode.
awk -v rounds="$rounds" '
function val(line, key,   m) { return match(line, key "=[0-9.]+") ? substr(line, RSTART + length(key) + 1, RLENGTH - length(key) - 1) + 0 : -1 }
function median(arr, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
	return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
FNR == 1 { v = (FILENAME ~ /-on\// ? "on" : "off") }
/^# BENCH shuffle=/ { state[v] = $3 " " $4 }
/^# BENCH boot_gap_ms=/ { gap[v] = val($0, "boot_gap_ms"); bootgib[v] = val($0, "boot_mem_kb") / 1048576 }
/^# BENCH hotadd_ms=/ { hot[v] = val($0, "hotadd_ms"); hotgib[v] = val($0, "hotadd_kb") / 1048576 }
/^# BENCH fault / {
	t = val($0, "fault_ms"); mode = ($0 ~ /variant=no-thp/) ? "no-thp" : "thp"
	n[v, mode]++; f[v, mode, n[v, mode]] = t; spread_min[v, mode] = (n[v, mode] == 1 || t < spread_min[v, mode]) ? t : spread_min[v, mode]
	spread_max[v, mode] = (t > spread_max[v, mode]) ? t : spread_max[v, mode]
}
END {
	printf "shuffle-bench: nvdimm+hmat-direct, TCG, %d fault-in rounds per variant\n", rounds
	printf "  on:  %s\n  off: %s\n\n", state["on"], state["off"]
	printf "%-44s %12s %12s %8s\n", "figure", "shuffle on", "shuffle off", "on/off"
	for (x in gap) pg[x] = gap[x] / bootgib[x]
	printf "%-44s %12.1f %12.1f %8.2f\n", "boot: gap after the decision, ms per GiB", pg["on"], pg["off"], pg["off"] ? pg["on"] / pg["off"] : 0
	printf "%-44s %12.1f\n", "  boot shuffle cost (on - off), ms per GiB", pg["on"] - pg["off"]
	for (x in hot) ph[x] = hot[x] / hotgib[x]
	printf "%-44s %12.1f %12.1f %8.2f\n", "hot-add through kmem, ms per GiB", ph["on"], ph["off"], ph["on"] / ph["off"]
	split("thp no-thp", ms, " ")
	for (k = 1; k <= 2; k++) {
		mode = ms[k]
		for (x in state) { m = n[x, mode]; for (i = 1; i <= m; i++) a[i] = f[x, mode, i]; med[x] = median(a, m); tp[x] = 512 / (med[x] / 1000) }
		printf "%-44s %12.0f %12.0f %8.2f\n", "fault-in 512 MiB (" mode "), MiB/s, median", tp["on"], tp["off"], tp["on"] / tp["off"]
		printf "%-44s %5.0f-%-6.0f %5.0f-%-6.0f\n", "  fault-in time range over rounds, ms", spread_min["on", mode], spread_max["on", mode], spread_min["off", mode], spread_max["off", mode]
	}
}' "$cache/runs/bench-shuffle-on/share/out/result.tap" "$cache/runs/bench-shuffle-off/share/out/result.tap"
