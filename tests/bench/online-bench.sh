#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: how long it takes to bring a devdax device online as Movable RAM
# with pmemramd (pmemramctl reclaim), with daxctl reconfigure-device, and with
# bare sysfs writes (the floor), in one boot each, the methods in turns:
#  - the guest's NVDIMM, 7 blocks of 128 MiB, TRIALS times: the time from the
#    kernel's add uevent to the last block online with pmemramd running;
#    pmemramd's RSS, private dirty memory and wakeups over an idle minute;
#  - a 16 GiB NVDIMM hot-added after boot, 125 blocks, LARGE_TRIALS times,
#    per block; pmemramctl udev-online without the daemon on it against
#    the 7-block device, per block (it must not grow with the device); and
#    the kernel's own cost of each block's online, first 10 against last 10
#    (it must not grow with the blocks already online).
# Prints medians with min..max and the ratios of medians.  Under TCG the
# absolute times are slow; read the ratios.
#
# Usage: tests/bench/online-bench.sh [TRIALS [LARGE_TRIALS]]   (default 5 3;
#        LARGE_TRIALS 0 skips the 16 GiB device)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../vm/common.sh"

trials=${1:-5}
large_trials=${2:-3}
[[ $trials =~ ^[1-9][0-9]*$ ]] || bench_die "TRIALS must be a positive number, not '$trials'"
[[ $large_trials =~ ^[0-9]+$ ]] || bench_die "LARGE_TRIALS must be a number, not '$large_trials'"
"$repo/tests/deps.sh"
"$repo/tests/vm/run.sh" -q -T 1200 -n bench-online -e "BENCH_TRIALS=$trials" bench-online >&2 ||
	bench_die "the benchmark boot failed; see $cache/runs/bench-online"
if [ "$large_trials" -gt 0 ]; then
	"$repo/tests/vm/run.sh" -q -T 2400 -M 24G -n bench-online-large -e "BENCH_TRIALS=$large_trials" \
		bench-online-large >&2 || bench_die "the large benchmark boot failed; see $cache/runs/bench-online-large"
fi

awk '
function val(line, key) { return match(line, key "=[0-9.]+") ? substr(line, RSTART + length(key) + 1, RLENGTH - length(key) - 1) + 0 : -1 }
function sort(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
function spread(a, n,   i, b) {
	if (!n) return "no data"
	for (i = 1; i <= n; i++) b[i] = a[i]
	sort(b, n)
	return sprintf("median %.1f ms, %.1f..%.1f over %d trials", n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2, b[1], b[n], n)
}
/^# BENCH device=/ { dev = $3 " " $4 " " $5 }
/^# BENCH method=/ { m = $3; sub("method=", "", m); k[m]++; t[m, k[m]] = val($0, "ms") }
/^# BENCH uevent trial=/ { nu++; uev[nu] = val($0, "uevent_to_online_ms"); uevk[nu] = val($0, "uevent_to_last_block_online_ms") }
/^# BENCH idle_seconds=/ { idle = $0; sub("^# BENCH ", "", idle) }
/^# BENCH echo_uevents=/ { echo = $0; sub("^# BENCH ", "", echo) }
/^# BENCH breakdown: / { line = $0; sub("^# BENCH breakdown: ", "", line); breakdown = breakdown "  " line "\n" }
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
	printf "add uevent to pmemramd converged, every block verified (pmemramd running): %s\n", spread(uev, nu)
	printf "add uevent to the online uevent of the last block (kernel timestamps): %s\n", spread(uevk, nu)
	printf "after the uevent path converged: %s\n", (echo != "" ? echo : "no data")
	printf "pmemramd reconciles (the last two reclaims):\n%s", (breakdown != "" ? breakdown : "  no data\n")
	printf "pmemramd idle: %s\n", (idle != "" ? idle : "no data")
}' "$cache/runs/bench-online/share/out/result.tap"

[ "$large_trials" -gt 0 ] || exit 0
echo
out=$cache/runs/bench-online-large/share/out
# The table, and for tests/bench/plot.sh each block's timed online beside the methods' median per
# block, into online-large.dat.
awk -v data="$out/online-large.dat" '
function val(line, key) { return match(line, key "=[0-9.]+") ? substr(line, RSTART + length(key) + 1, RLENGTH - length(key) - 1) + 0 : -1 }
function sort(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
function median(m, nb,   i, n, a) {
	n = 0
	for (i = 1; i <= k[m]; i++) if (b[m, i] == nb) a[++n] = t[m, i]
	if (!n) return -1
	sort(a, n)
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^# BENCH device=/ { dev = $3 " " $4 " " $5; big = val($0, "blocks") }
/^# BENCH method=/ { m = $3; sub("method=", "", m); k[m]++; t[m, k[m]] = val($0, "ms"); b[m, k[m]] = val($0, "blocks") }
/^# BENCH per_block_ms / { pb_info = $4 " " $5; pb_n = NF - 5; for (i = 6; i <= NF; i++) pb[i - 5] = $i + 0 }
function median_of(from, to,   i, n, a) {
	n = 0
	for (i = from; i <= to; i++) a[++n] = pb[i]
	sort(a, n)
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	printf "pmemram online benchmark, large device (%s)\n\n", dev
	printf "%-12s %8s %12s %7s\n", "method", "median", "ms per block", "trials"
	split("floor daxctl pmemramd", order, " ")
	for (o = 1; o <= 3; o++) {
		m = order[o]; med[m] = median(m, big)
		if (med[m] < 0) { printf "%-12s %8s\n", m, "no data"; continue }
		printf "%-12s %8.1f %12.2f %7d\n", m, med[m], med[m] / big, k[m]
	}
	if (med["floor"] > 0 && med["daxctl"] > 0 && med["pmemramd"] > 0)
		printf "\nratios per block: daxctl/floor %.2f, pmemramd/floor %.2f, pmemramd/daxctl %.2f\n",
			med["daxctl"] / med["floor"], med["pmemramd"] / med["floor"], med["pmemramd"] / med["daxctl"]
	small = 0
	for (i = 1; i <= k["udev-online"]; i++) if (b["udev-online", i] != big) small = b["udev-online", i]
	ul = median("udev-online", big); us = median("udev-online", small)
	if (ul > 0 && us > 0)
		printf "udev-online without the daemon: %d blocks %.1f ms, %d blocks %.1f ms; per block %.2f vs %.2f ms: ratio %.2f\n",
			big, ul, small, us, ul / big, us / small, (ul / big) / (us / small)
	else
		printf "udev-online without the daemon: no data\n"
	if (pb_n >= 20) {
		first = median_of(1, 10); last = median_of(pb_n - 9, pb_n)
		printf "bare-sysfs online, ms per block as the zone grows (%s): first 10 blocks %.2f, last 10 %.2f: ratio %.2f\n",
			pb_info, first, last, last / first
	} else
		printf "bare-sysfs online per block: no data\n"
	printf "# %s; ms: each block timed alone (%s), then each method'"'"'s median / %d blocks\n", dev, pb_info, big >data
	printf "# block timed floor daxctl pmemramd\n" >data
	for (i = 1; i <= pb_n; i++) {
		printf "%d %s", i, pb[i] >data
		for (o = 1; o <= 3; o++)
			printf "%s", (med[order[o]] > 0 ? sprintf(" %.3f", med[order[o]] / big) : " -") >data
		printf "\n" >data
	}
}' "$out/result.tap"
echo
echo "plot: $("$repo/tests/bench/plot.sh" online "$out/online-large.dat" "$out/online-large.png" \
	"per-block online time as Movable, $(awk '/^# BENCH device=/ { print $3, $4, $5; exit }' "$out/result.tap")")"
