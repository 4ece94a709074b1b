#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# promotion = on and promotion-rate on 6.1: the NVDIMM is onlined as RAM on
# node 2 (a lower memory tier), pmemramd sets kernel.numa_balancing's
# tiering bit and the rate limit, and reads them back.  A process with the
# default memory policy writes to a HOT_MIB (default 64) MiB buffer page by
# page, over and over; its pages are moved to node 2 with migratepages, and
# NUMA balancing's hinting faults bring them back to DRAM (node 0, where it
# runs): its pages per node over time (/proc/PID/numa_maps) and
# pgpromote_success from /proc/vmstat.  The same hot loop in the class
# "economy" (nodes = pmem, a slice confined to node 2) keeps its pages on
# node 2: promotion allocates on the target node within the cpuset only.
# promotion = off then clears the bit and leaves the rest of the sysctl.
# Prints "# BENCH promote ..." for tests/bench/tier-bench.sh.
set -u
. ./lib.sh

plan 15
mib=${HOT_MIB:-64}
work=/usr/lib/pmemram-test/cache-work
tmp=$(mktemp -d)

# pages NODES PID: the process's anonymous pages on NODES ("0 1").
pages() {
	local want=$1
	anon_nodes "$2" | tr ' ' '\n' | awk -F= -v want=" $want " '
		{ n = substr($1, 2) } index(want, " " n " ") { s += $2 } END { print s + 0 }'
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

u=$(new_uuid)
must "initialise the label area" init_labels
dev=$(mkns tier devdax all "$u") || bail "cannot create the namespace"
mkdir -p /etc/pmemram/pmemram.conf.d
printf '[global]\npromotion = on\npromotion-rate = 1024\n\n[claim "tier"]\nmatch = uuid:%s\n\n[class "economy"]\nnodes = pmem\n' \
	"$u" >/etc/pmemram/pmemram.conf
# Debian 13's kernel starts with NUMA balancing on (CONFIG_NUMA_BALANCING_DEFAULT_ENABLED), Debian
# 12's bench kernel without: the tiering bit comes on top of what is there.
if [ "$PMEMRAM_PLATFORM" = trixie ]; then
	b0=1
	is "Debian 13's kernel starts with NUMA balancing" "$(cat /proc/sys/kernel/numa_balancing)" 1
else
	b0=0
	is "the kernel starts without NUMA balancing" "$(cat /proc/sys/kernel/numa_balancing)" 0
fi
b=$((b0 | 2))
ok "pmemramd (re)starts on the configuration" systemctl restart pmemramd.service
n=$(dev_blocks "$dev" | grep -c .)
ok "$dev is onlined on node 2" wait_for 120 "[ \"\$(dev_state $dev)\" = '$n online Movable' ]"
ok "pmemramd set the tiering bit of kernel.numa_balancing ($b0 -> $b)" wait_for 30 "[ \"\$(cat /proc/sys/kernel/numa_balancing)\" = $b ]"
is "and the promotion rate limit" "$(cat /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps)" 1024
is "status: promotion on, 1024 MB/s" \
	"$(pmemramctl status --json | jq -r '"\(.promotion.tiering) \(.promotion.rate_limit_mbps) \(.daemon.daemon.promotion.tiering)"')" \
	"true 1024 true"
ok "status says it in words" sh -c "pmemramctl status | grep -q 'Memory-tier promotion: enabled (kernel.numa_balancing $b), at most 1024 MB/s'"
is "node 2 is in a lower memory tier than node 0" \
	"$([ "$(memtier_of_node 2)" != "$(memtier_of_node 0)" ] && echo lower)" lower

# A hot buffer, moved to node 2, comes back to DRAM.
"$work" hot "$mib" >"$tmp/hot.out" 2>&1 &
hot=$!
ok "the hot loop runs" wait_for 120 "grep -q ^ready $tmp/hot.out"
total=$(pages "0 1 2 3" "$hot")
# Stopped while its pages move: running, it would take hinting faults and be promoted meanwhile.
kill -STOP "$hot"
must "move its pages to node 2" migratepages "$hot" 0,1 2
moved=$(pages 2 "$hot")
note "after migratepages: $(anon_nodes "$hot") of $total pages"
ok "most of the hot buffer is on node 2 now" test "$moved" -gt $((total * 9 / 10))
p0=$(vmstat pgpromote_success) t0=$(now_ms) t_back=
kill -CONT "$hot"
for i in $(seq 60); do
	sleep 2
	note "after $((i * 2)) s: $(anon_nodes "$hot"), pgpromote_success +$(($(vmstat pgpromote_success) - p0))"
	if [ "$(pages 2 "$hot")" -le $((total / 10)) ]; then
		t_back=$(now_ms)
		break
	fi
done
p1=$(vmstat pgpromote_success)
ok "promotion brought 90 % of the hot buffer back to DRAM within 120 s" test -n "$t_back"
ok "pgpromote_success counted it" test "$((p1 - p0))" -ge $((moved - total / 10))
[ -z "$t_back" ] ||
	echo "# BENCH promote mib=$mib pages=$moved promoted=$((p1 - p0)) ms=$((t_back - t0))" \
		"pages_per_s=$(awk -v p="$((p1 - p0))" -v ms="$((t_back - t0))" 'BEGIN { printf "%.0f", ms ? p * 1000 / ms : 0 }')"
kill "$hot"
wait "$hot" 2>/dev/null

# The same hot loop in the economy class: its slice allows node 2 only.
# (pmemramctl run sets the policy and execs the command: same pid)
pmemramctl run --class economy -- "$work" hot "$mib" >"$tmp/econ.out" 2>&1 &
epid=$!
ok "the economy hot loop runs" wait_for 120 "grep -q ^ready $tmp/econ.out"
etotal=$(pages "0 1 2 3" "$epid")
sleep 30
note "economy after 30 s of hot loop: $(anon_nodes "$epid")"
is "every page of the economy class stayed on node 2" "$(pages 2 "$epid")" "$etotal"
kill "$epid"
wait "$epid" 2>/dev/null

# promotion = off clears the bit, and only that bit.
echo 3 >/proc/sys/kernel/numa_balancing
printf '[global]\npromotion = off\n' >/etc/pmemram/pmemram.conf.d/50-off.conf
must "reload pmemramd" systemctl reload pmemramd.service
ok "promotion = off clears bit 2 and keeps bit 1" wait_for 30 '[ "$(cat /proc/sys/kernel/numa_balancing)" = 1 ]'
rm -rf "$tmp" /etc/pmemram/pmemram.conf.d/50-off.conf
done_testing
