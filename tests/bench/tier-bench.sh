#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: tiering classes.  Boots the nvdimm+hmat-direct guest, onlines
# the NVDIMM on node 2 through pmemramd, and runs tier-bench (a pointer chase
# for latency, a streaming sum for bandwidth, over a 64 MiB buffer) under
# pmemramctl run in the classes "premium" (dram) and "economy" (pmem),
# TRIALS times each; then moves a unit holding 256 MiB from economy's node
# to DRAM by changing the class, and reports pages migrated per second.
# Under TCG every node is the same host memory, so the ratios show that
# placement is right and costs nothing by itself, not what pmem would cost.
# A second boot runs the tiering-protect scenario: with demotion on, how much
# of a cold 256 MiB premium (dram) unit stays on DRAM while another unit
# fills DRAM, without protection and with protect = 512M.  A third boot
# runs tiering-promotion: with promotion = on, how fast NUMA balancing
# brings a hot 64 MiB buffer from node 2 back to DRAM, in pages per second,
# against the class change's explicit migration of the first boot.  A fourth
# runs tiering-weighted: a 1 GiB buffer faulted by a weighted-interleave
# class with weights 3:1 (Linux 6.9 and later), its pages per node from
# numa_maps against 3:1.
#
# Usage: tests/bench/tier-bench.sh [TRIALS]   (default 3)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../vm/common.sh"

trials=${1:-3}
"$repo/tests/deps.sh"
"$repo/tests/vm/run.sh" -q -n bench-tiering -T 1800 -e "BENCH_TRIALS=$trials" bench-tiering >&2 ||
	bench_die "the benchmark run failed; see $cache/runs/bench-tiering"
"$repo/tests/vm/run.sh" -q -n bench-tiering-protect -T 1800 tiering-protect >&2 ||
	bench_die "the protection run failed; see $cache/runs/bench-tiering-protect"
"$repo/tests/vm/run.sh" -q -n bench-tiering-promotion -T 1800 tiering-promotion >&2 ||
	bench_die "the promotion run failed; see $cache/runs/bench-tiering-promotion"
"$repo/tests/vm/run.sh" -q -n bench-tiering-weighted -T 1800 tiering-weighted >&2 ||
	bench_die "the weighted interleave run failed; see $cache/runs/bench-tiering-weighted"

awk -v trials="$trials" '
function val(line, key) { return match(line, " " key "=[0-9.]+") ? substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) + 0 : -1 }
function median(arr, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
	return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
/^# BENCH tier / {
	c = ($0 ~ /class=economy/) ? "economy" : "premium"; n[c]++
	ch[c, n[c]] = val($0, "chase_ns"); st[c, n[c]] = val($0, "stream_mbps")
	match($0, / nodes=[^ ]*/); nodes[c] = substr($0, RSTART + 7, RLENGTH - 7)
}
/^# BENCH migrate / { mig = $0; sub(/^# BENCH migrate /, "", mig) }
END {
	printf "tier-bench: nvdimm+hmat-direct, TCG, %d runs per class, 64 MiB buffers\n\n", trials
	printf "%-34s %12s %12s %10s\n", "figure (median, [min,max])", "premium", "economy", "econ/prem"
	for (k = 1; k <= 2; k++) {
		name = k == 1 ? "pointer chase, ns per load" : "stream, MB/s"
		for (c in n) {
			lo[c] = hi[c] = -1
			for (i = 1; i <= n[c]; i++) { v = (k == 1 ? ch[c, i] : st[c, i]); a[i] = v; if (lo[c] < 0 || v < lo[c]) lo[c] = v; if (v > hi[c]) hi[c] = v }
			med[c] = median(a, n[c])
		}
		printf "%-34s %12.1f %12.1f %10.2f\n", name, med["premium"], med["economy"], med["economy"] / med["premium"]
		printf "%-34s [%5.0f,%5.0f] [%5.0f,%5.0f]\n", "", lo["premium"], hi["premium"], lo["economy"], hi["economy"]
	}
	printf "%-34s %12s %12s\n", "pages per node (last run)", nodes["premium"], nodes["economy"]
	printf "\nmoving a running unit from economy (node 2) to dram: %s\n", mig
}' "$cache/runs/bench-tiering/share/out/result.tap"

awk '
function val(line, key) { return match(line, " " key "=[^ ]+") ? substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) : "" }
/^# BENCH protect / { m = val($0, "mode"); ratio[m] = val($0, "dram_ratio"); after[m] = val($0, "after"); mib = val($0, "mib") }
END {
	printf "\npremium (dram) class under DRAM pressure, demotion on, %s MiB left cold:\n", mib
	printf "%-34s %12s  %s\n", "protection", "on DRAM", "pages per node after"
	printf "%-34s %12.3f  %s\n", "none", ratio["none"], after["none"]
	printf "%-34s %12.3f  %s\n", "protect = 512M (MemoryLow=)", ratio["low"], after["low"]
	printf "%-34s %12.2f\n", "residency, protected / none", (ratio["none"] > 0 ? ratio["low"] / ratio["none"] : 0)
}' "$cache/runs/bench-tiering-protect/share/out/result.tap"

awk '
function val(line, key) { return match(line, " " key "=[^ ]+") ? substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) : "" }
FILENAME ~ /bench-tiering\/share/ && /^# BENCH migrate / { mig = val($0, "pages_per_s") }
/^# BENCH promote / { pps = val($0, "pages_per_s"); pages = val($0, "promoted"); ms = val($0, "ms"); mib = val($0, "mib") }
END {
	printf "\npromotion = on (NUMA balancing, kernel.numa_balancing = 2), a hot %s MiB buffer moved to node 2:\n", mib
	printf "%-34s %12s pages in %s ms: %s pages/s\n", "promoted back to DRAM", pages, ms, pps
	printf "%-34s %12s pages/s\n", "explicit migration (class change)", mig
	printf "%-34s %12.2f\n", "promotion / explicit migration", (mig > 0 ? pps / mig : 0)
}' "$cache/runs/bench-tiering/share/out/result.tap" "$cache/runs/bench-tiering-promotion/share/out/result.tap"

awk '
function val(line, key) { return match(line, " " key "=[^ ]+") ? substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) : "" }
/^# BENCH weighted / { w = val($0, "weights"); n1 = val($0, "node1"); n2 = val($0, "node2"); r = val($0, "ratio"); e = val($0, "error_pct"); mib = val($0, "mib") }
END {
	printf "\nweighted interleave, weights %s, a %s MiB buffer faulted under pmemramctl run:\n", w, mib
	printf "%-34s %12s %12s %10s\n", "pages per node", "node 1", "node 2", "ratio"
	printf "%-34s %12s %12s %10s\n", "", n1, n2, r
	printf "%-34s %12s %%\n", "off 3:1 by", e
}' "$cache/runs/bench-tiering-weighted/share/out/result.tap"
