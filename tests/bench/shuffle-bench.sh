#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: what page allocator shuffling costs, per node against global.
# Boots the nvdimm+hmat-direct guest three times in one run: shuffling per
# node as HMAT decides under page_alloc.shuffle=auto (node 1, behind the
# memory-side cache, only), on every node (page_alloc.shuffle=1, what 6.1
# could do) and off
# (page_alloc.shuffle=0), each tracing shuffle:mm_shuffle_zone_order from boot.
# Prints per variant: the boot shuffle time per GiB shuffled (from the log,
# and from the traced walks, per node), the time to hot-add the 1 GiB NVDIMM
# of node 2 (no cache) through kmem per GiB, and for node 0 (DRAM, no cache)
# the page-fault throughput of a fresh 512 MiB buffer, how physically
# contiguous it came out, and THP faults that fell back; with ratios against
# "off".  Under TCG the absolute figures are slow; the ratios are what to
# read.
#
# Usage: tests/bench/shuffle-bench.sh [ROUNDS]   (default 5 fault-in rounds)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../vm/common.sh"
# bookworm unless PMEMRAM_PLATFORM says otherwise: the shuffle series runs on 6.1 until its 6.12 port.
export PMEMRAM_PLATFORM=${PMEMRAM_PLATFORM:-bookworm}

rounds=${1:-5}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || bench_die "usage: $0 [ROUNDS]: ROUNDS must be a positive number, not '$rounds'"
"$repo/tests/deps.sh"
for v in node all off; do
	# trace_clock=global: on a clock the kernel finds unstable (TCG) it
	# switches the trace clock to global at late_initcall, and a clock
	# switch empties the buffer, the boot's walks with it.
	append="trace_event=shuffle:mm_shuffle_zone_order trace_clock=global"
	[ "$v" = node ] && append+=" page_alloc.shuffle=auto"
	[ "$v" = all ] && append+=" page_alloc.shuffle=1"
	[ "$v" = off ] && append+=" page_alloc.shuffle=0"
	"$repo/tests/vm/run.sh" -q -n "bench-shuffle-$v" -a "$append" \
		-e "BENCH_ROUNDS=$rounds" bench-shuffle >&2 ||
		bench_die "the '$v' boot failed; see $cache/runs/bench-shuffle-$v"
done

awk -v rounds="$rounds" '
function val(line, key,   m) { return match(line, key "=[0-9.]+") ? substr(line, RSTART + length(key) + 1, RLENGTH - length(key) - 1) + 0 : -1 }
function median(arr, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
	return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
function row3(name, fmt, a, b, c) {
	printf "%-46s " fmt " " fmt " " fmt "\n", name, a, b, c
}
FNR == 1 { v = FILENAME; sub(/.*bench-shuffle-/, "", v); sub(/\/.*/, "", v) }
/^# BENCH shuffle=/ { state[v] = $3 " " $4 " " $5 }
/^# BENCH boot_gap_ms=/ { gap[v] = val($0, "boot_gap_ms"); shufgib[v] = val($0, "boot_shuffled_kb") / 1048576 }
/^# BENCH boot_walks/ { for (i = 0; i < 3; i++) { walks[v, i] = val($0, "node" i "_walks"); wms[v, i] = val($0, "node" i "_ms") } }
/^# BENCH hotadd_ms=/ { hot[v] = val($0, "hotadd_ms"); hotgib[v] = val($0, "hotadd_kb") / 1048576 }
/^# BENCH fault / {
	mode = ($0 ~ /variant=no-thp/) ? "no-thp" : "thp"; k = ++n[v, mode]
	f[v, mode, k] = val($0, "fault_ms"); r[v, mode, k] = val($0, "ratio")
	fb[v, mode] += val($0, "thp_fallback"); al[v, mode] += val($0, "thp_alloc")
	lo[v, mode] = (k == 1 || f[v, mode, k] < lo[v, mode]) ? f[v, mode, k] : lo[v, mode]
	hi[v, mode] = (f[v, mode, k] > hi[v, mode]) ? f[v, mode, k] : hi[v, mode]
}
END {
	printf "shuffle-bench: nvdimm+hmat-direct, TCG, %d fault-in rounds per variant\n", rounds
	printf "  node: %s\n  all:  %s\n  off:  %s\n\n", state["node"], state["all"], state["off"]
	printf "%-46s %12s %12s %12s\n", "figure", "per node", "all nodes", "off"
	row3("boot: memory shuffled, GiB", "%12.2f", shufgib["node"], shufgib["all"], shufgib["off"])
	row3("boot: shuffle gap, ms", "%12.1f", gap["node"], gap["all"], gap["off"])
	# per node: the gap is the node'"'"'s shuffle alone (request to "enabled"); all nodes: the gap
	# after the decision, less what follows it with shuffling off.
	pg["node"] = shufgib["node"] > 0 ? gap["node"] / shufgib["node"] : 0
	pg["all"] = shufgib["all"] > 0 ? (gap["all"] - gap["off"]) / shufgib["all"] : 0
	row3("  boot shuffle cost, ms per GiB shuffled", "%12.1f", pg["node"], pg["all"], 0)
	# The boot walks themselves, from the tracepoint: per node, walks (zones x orders) and ms.
	for (i = 0; i < 3; i++)
		printf "%-46s %5d/%-6.1f %5d/%-6.1f %5d/%-6.1f\n", "boot: node " i " walks traced / ms", walks["node", i], wms["node", i], walks["all", i], wms["all", i], walks["off", i], wms["off", i]
	row3("  traced walks, ms per GiB shuffled", "%12.2f", shufgib["node"] > 0 ? (wms["node", 0] + wms["node", 1] + wms["node", 2]) / shufgib["node"] : 0,
		shufgib["all"] > 0 ? (wms["all", 0] + wms["all", 1] + wms["all", 2]) / shufgib["all"] : 0, 0)
	for (x in hot) ph[x] = hot[x] / hotgib[x]
	row3("node 2 hot-add through kmem, ms per GiB", "%12.1f", ph["node"], ph["all"], ph["off"])
	row3("  against off", "%12.2f", ph["node"] / ph["off"], ph["all"] / ph["off"], 1)
	split("thp no-thp", ms, " ")
	for (q = 1; q <= 2; q++) {
		mode = ms[q]
		for (x in state) {
			m = n[x, mode]
			for (i = 1; i <= m; i++) { a[i] = f[x, mode, i]; b[i] = r[x, mode, i] }
			tp[x] = 512 / (median(a, m) / 1000); rr[x] = median(b, m)
		}
		row3("node 0 fault-in 512 MiB (" mode "), MiB/s", "%12.0f", tp["node"], tp["all"], tp["off"])
		row3("  against off", "%12.2f", tp["node"] / tp["off"], tp["all"] / tp["off"], 1)
		printf "%-46s %5.0f-%-6.0f %5.0f-%-6.0f %5.0f-%-6.0f\n", "  fault-in time range over rounds, ms", lo["node", mode], hi["node", mode], lo["all", mode], hi["all", mode], lo["off", mode], hi["off", mode]
		row3("  contiguous 4 MiB neighbours, median ratio", "%12.3f", rr["node"], rr["all"], rr["off"])
		if (mode == "thp")
			printf "%-46s %5d/%-6d %5d/%-6d %5d/%-6d\n", "  THP faults that fell back / allocated", fb["node", mode], al["node", mode], fb["all", mode], al["all", mode], fb["off", mode], al["off", mode]
	}
}' "$cache/runs/bench-shuffle-node/share/out/result.tap" "$cache/runs/bench-shuffle-all/share/out/result.tap" \
	"$cache/runs/bench-shuffle-off/share/out/result.tap"
