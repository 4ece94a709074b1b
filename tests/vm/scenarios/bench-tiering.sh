#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest half of tests/bench/tier-bench.sh: a pointer chase and a streaming
# loop (tier-bench) run under pmemramctl run in the classes "premium" (dram)
# and "economy" (pmem: the NVDIMM onlined on node 2), TRIALS times each,
# with where each buffer landed; then a unit holding 256 MiB in economy is
# moved to DRAM by changing the class's nodes, and the pages it migrated
# per second are measured.  Prints "# BENCH ..." lines.
#   BENCH_TRIALS  runs per class (default 3)
#   BENCH_MIB     buffer of each run (default 64)
set -u
. ./lib.sh

trials=${BENCH_TRIALS:-3}
mib=${BENCH_MIB:-64}
plan $((3 + 2 * trials + 3))
bench() { echo "# BENCH $*"; }
tmp=$(mktemp -d)

u=$(new_uuid)
must "initialise the label area" init_labels
dev=$(mkns tier devdax all "$u") || bail "cannot create the namespace"
mkdir -p /etc/pmemram/pmemram.conf.d
printf '[claim "tier"]\nmatch = uuid:%s\n\n[class "economy"]\nnodes = pmem\n\n[class "premium"]\nnodes = dram\n' "$u" \
	>/etc/pmemram/pmemram.conf
# The udev rule started pmemramd when the namespace appeared, before the
# configuration existed: restart it on the configuration.
ok "pmemramd (re)starts on the configuration" systemctl restart pmemramd.service
ok "the economy slice allows node 2" wait_for 120 'grep -qx AllowedMemoryNodes=2 /run/systemd/system/pmemram-economy.slice'
ok "the premium slice allows nodes 0-1" wait_for 60 'grep -qx AllowedMemoryNodes=0-1 /run/systemd/system/pmemram-premium.slice'

# on_nodes LINE NODES...: the "nodes=" of a tier-bench line names only NODES.
on_nodes() {
	local n got
	got=$(sed -n 's/.* nodes=//p' <<<"$1" | tr ',' '\n' | cut -d: -f1 | tr -d N)
	[ -n "$got" ] || return 1
	shift
	for n in $got; do [[ " $* " == *" $n "* ]] || return 1; done
}
for t in $(seq "$trials"); do
	for class in premium economy; do
		line=$(pmemramctl run --class "$class" -- /usr/lib/pmemram-test/tier-bench "$mib")
		bench "tier class=$class trial=$t mib=$mib $line"
		want="0 1"
		[ "$class" = economy ] && want=2
		ok "$class #$t: the buffer is on node(s) $want ($line)" on_nodes "$line" $want
	done
done

# Moving a running unit between classes: economy's nodes become dram.
systemd-run -q --unit=mover --slice=pmemram-economy.slice -p StandardOutput="file:$tmp/mover.out" \
	/usr/lib/pmemram-test/cache-work hold 256
wait_for 120 "grep -q ^ready $tmp/mover.out" || bail "the unit to move did not start"
pid=$(systemctl show -p MainPID --value mover)
anon() { awk -v n="N$2=" '/ anon=/ { for (i = 1; i <= NF; i++) if (index($i, n) == 1) s += substr($i, length(n) + 1) } END { print s + 0 }' "/proc/$1/numa_maps"; }
pages=$(anon "$pid" 2)
ok "the unit's 256 MiB is on node 2 ($pages pages)" test "$pages" -ge $((256 * 256))
printf '[class "economy"]\nnodes = dram\n' >/etc/pmemram/pmemram.conf.d/50-move.conf
t0=$(date +%s.%N)
systemctl reload pmemramd.service
wait_for 600 "[ \$(anon $pid 2) -eq 0 ]"
t1=$(date +%s.%N)
# From the reload asked for, and from pmemramd's rewrite of the slice (what
# systemd and the kernel's migration take after it).
written=$(stat -c %.9Y /run/systemd/system/pmemram-economy.slice)
bench "migrate $(awk -v p="$pages" -v a="$t0" -v w="$written" -v b="$t1" 'BEGIN {
	printf "pages=%d seconds=%.2f pages_per_s=%.0f after_slice_seconds=%.2f after_slice_pages_per_s=%.0f", p, b - a, p / (b - a), b - w, p / (b - w) }')" \
	"on_dram=$(($(anon "$pid" 0) + $(anon "$pid" 1)))"
ok "every page moved to DRAM" test "$(anon "$pid" 2)" = 0 -a $(($(anon "$pid" 0) + $(anon "$pid" 1))) -ge "$pages"
is "without restarting the unit" "$(systemctl show -p MainPID --value mover)" "$pid"
systemctl stop mover
rm -rf "$tmp"
done_testing
