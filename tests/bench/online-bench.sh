#!/bin/bash
# Benchmark: how long it takes to bring the guest's NVDIMM (its devdax device,
# 7 blocks of 128 MiB) online as Movable RAM with pmemramd, with daxctl
# reconfigure-device, and with bare sysfs writes (the floor), in one boot,
# TRIALS times each in turns; the time from the kernel's add uevent to the
# last block online with pmemramd running; pmemramd's RSS and wakeups over
# an idle minute.  Prints medians with min..max and the ratios of medians.
# Under TCG the absolute times are slow; read the ratios.
#
# Usage: tests/bench/online-bench.sh [TRIALS]   (default 5)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../vm/common.sh"

trials=${1:-5}
[[ $trials =~ ^[1-9][0-9]*$ ]] || bench_die "TRIALS must be a positive number, not '$trials'"
"$repo/tests/deps.sh"
"$repo/tests/vm/run.sh" -q -T 1200 -n bench-online -e "BENCH_TRIALS=$trials" bench-online >&2 ||
	bench_die "the benchmark boot failed; see $cache/runs/bench-online"

awk '
function val(line, key) { return match(line, key "=[0-9.]+") ? substr(line, RSTART + length(key) + 1, RLENGTH - length(key) - 1) + 0 : -1 }
function sort(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
/^# BENCH device=/ { dev = $3 " " $4 " " $5 }
/^# BENCH method=/ { m = $3; sub("method=", "", m); k[m]++; t[m, k[m]] = val($0, "ms") }
/^# BENCH uevent_to_online_ms=/ { uev = val($0, "uevent_to_online_ms") }
/^# BENCH idle_seconds=/ { idle = $0; sub("^# BENCH ", "", idle) }
/^# BENCH echo_uevents=/ { echo = $0; sub("^# BENCH ", "", echo) }
END {
	printf "pmemram online benchmark (%s)\n\n", dev
	printf "%-9s %8s %18s %7s\n", "method", "median", "min..max (ms)", "trials"
	split("floor daxctl pmemramd", order, " ")
	for (o = 1; o <= 3; o++) {
		m = order[o]; n = k[m]
		if (!n) { printf "%-9s %8s\n", m, "no data"; continue }
		for (i = 1; i <= n; i++) a[i] = t[m, i]
		sort(a, n)
		med[m] = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		printf "%-9s %8.1f %8.1f..%-8.1f %7d\n", m, med[m], a[1], a[n], n
	}
	if (med["floor"] > 0 && med["daxctl"] > 0 && med["pmemramd"] > 0) {
		printf "\nratios of medians: daxctl/floor %.2f, pmemramd/floor %.2f, pmemramd/daxctl %.2f\n",
			med["daxctl"] / med["floor"], med["pmemramd"] / med["floor"], med["pmemramd"] / med["daxctl"]
	}
	printf "udev add event to last block online (pmemramd running): %s ms\n", (uev >= 0 ? uev : "no data")
	printf "after the uevent path converged: %s\n", (echo != "" ? echo : "no data")
	printf "pmemramd idle: %s\n", (idle != "" ? idle : "no data")
}' "$cache/runs/bench-online/share/out/result.tap"
