#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# protect = SIZE against demotion on 6.1: the NVDIMM is onlined as RAM on
# node 2, demotion = on, and the class "premium" (nodes = dram: 0-1) runs a
# unit that faults in PREMIUM_MIB (default 256) MiB and then leaves it cold.
# A second unit bound to nodes 0-1 then asks for more than DRAM has free, so
# reclaim demotes cold pages to node 2, cpuset.mems or not.  Premium's pages
# per node (/proc/PID/numa_maps) before and after the pressure, first
# without protection, then with protect = 512M (MemoryLow= on its slice, the
# sum on pmemram.slice), which pmemramd reads back from the cgroup.  What
# this asserts is what 6.1 did in every run: without protection premium
# loses pages to node 2, with it none, and the kernel never had to break
# the protection (memory.events low 0).  Prints "# BENCH protect ..." lines
# for tests/bench/tier-bench.sh.
set -u
. ./lib.sh

plan 21
mib=${PREMIUM_MIB:-256}
work=/usr/lib/pmemram-test/cache-work
cg=/sys/fs/cgroup/pmemram.slice/pmemram-premium.slice
tmp=$(mktemp -d)

# pages NODES PID: the process's anonymous pages on NODES ("0 1").
pages() {
	local want=$1
	anon_nodes "$2" | tr ' ' '\n' | awk -F= -v want=" $want " '
		{ n = substr($1, 2) } index(want, " " n " ") { s += $2 } END { print s + 0 }'
}
# unit_work UNIT MIB ARGS...: a transient service holding MIB MiB, started
# with systemd-run ARGS; its pid once the buffer is faulted in.
unit_work() {
	local unit=$1 size=$2
	shift 2
	systemd-run -q --unit="$unit" -p StandardOutput="file:$tmp/$unit.out" "$@" "$work" hold "$size" >&2 || return 1
	wait_for 600 "grep -q ^ready $tmp/$unit.out" || return 1
	systemctl show -p MainPID --value "$unit"
}
# pressure NAME PID: fill nodes 0-1 beyond their free memory from a unit
# bound to them; report the premium process's pages before and after.
pressure() {
	local name=$1 pid=$2 before after free fill on_dram total
	before=$(anon_nodes "$pid")
	total=$(pages "0 1 2 3" "$pid")
	free=$(numactl -H | awk '$1 == "node" && ($2 == 0 || $2 == 1) && $3 == "free:" { s += $4 } END { print s }')
	fill=$((free + 400))
	note "$name: premium before: $before; filling nodes 0-1 ($free MB free) with $fill MiB"
	unit_work "fill-$name" "$fill" numactl --membind=0,1 >/dev/null || note "$name: the filler did not get ready"
	sleep 5
	after=$(anon_nodes "$pid")
	on_dram=$(pages "0 1" "$pid")
	note "$name: premium after: $after; filler $(anon_nodes "$(systemctl show -p MainPID --value "fill-$name")")"
	note "$name: memory.events of the slice: $(tr '\n' ' ' <$cg/memory.events)"
	echo "# BENCH protect mode=$name mib=$mib pages=$total before=${before// /,} after=${after// /,} dram_pages=$on_dram" \
		"dram_ratio=$(awk -v a="$on_dram" -v t="$total" 'BEGIN { printf "%.3f", t ? a / t : 0 }')"
	systemctl stop "fill-$name"
	last_total=$total last_dram=$on_dram
}

u=$(new_uuid)
must "initialise the label area" init_labels
dev=$(mkns tier devdax all "$u") || bail "cannot create the namespace"
mkdir -p /etc/pmemram/pmemram.conf.d
printf '[global]\ndemotion = on\n\n[claim "tier"]\nmatch = uuid:%s\n\n[class "premium"]\nnodes = dram\n' "$u" \
	>/etc/pmemram/pmemram.conf
ok "pmemramd (re)starts on the configuration" systemctl restart pmemramd.service
n=$(dev_blocks "$dev" | grep -c .)
ok "$dev is onlined on node 2" wait_for 120 "[ \"\$(dev_state $dev)\" = '$n online Movable' ]"
ok "the premium slice allows nodes 0-1" wait_for 60 'grep -qx AllowedMemoryNodes=0-1 /run/systemd/system/pmemram-premium.slice'
is "demotion is on" "$(cat /sys/kernel/mm/numa/demotion_enabled)" true
ok "classes: the conflict line suggests protect = SIZE" \
	sh -c "pmemramctl classes | grep -q 'set demotion = off, or protect = SIZE in the class (MemoryLow= on its slice)'"
is "no MemoryLow= and no pmemram.slice without protect" \
	"$(grep -c MemoryLow /run/systemd/system/pmemram-premium.slice; test -e /run/systemd/system/pmemram.slice && echo exists)" 0

# Without protection.
pid=$(unit_work prem-none "$mib" --slice=pmemram-premium.slice) || bail "the premium unit did not start"
is "premium's $mib MiB is on DRAM" "$(pages "0 1" "$pid")" "$(pages "0 1 2 3" "$pid")"
pressure none "$pid"
ok "without protection demotion moved some of premium's pages to node 2 (${last_dram}/${last_total} on DRAM)" \
	test "$last_dram" -lt "$last_total"
ok "... which are on node 2" test "$(pages 2 "$pid")" -gt 0
systemctl stop prem-none
sync
echo 3 >/proc/sys/vm/drop_caches

# With protect = 512M, set while the premium unit runs.
pid=$(unit_work prem-low "$mib" --slice=pmemram-premium.slice) || bail "the premium unit did not start"
printf '[class "premium"]\nprotect = 512M\n' >/etc/pmemram/pmemram.conf.d/50-protect.conf
must "reload pmemramd" systemctl reload pmemramd.service
ok "pmemramd wrote MemoryLow= into the premium slice" \
	wait_for 60 'grep -qx MemoryLow=536870912 /run/systemd/system/pmemram-premium.slice'
ok "and the sum into pmemram.slice" wait_for 60 'grep -qx MemoryLow=536870912 /run/systemd/system/pmemram.slice'
# pmemramd has systemd reload after writing both files: wait for that.
ok "systemd applied it: memory.low of the slice and of pmemram.slice" wait_for 30 \
	'[ "$(cat $cg/memory.low /sys/fs/cgroup/pmemram.slice/memory.low | tr "\n" " ")" = "536870912 536870912 " ]'
ok "status: pmemramd read it back (protect_in_effect)" wait_for 30 \
	'[ "$(pmemramctl status --json | jq -r ".daemon.daemon.classes[] | select(.class == \"premium\") | \"\(.protect) \(.protect_in_effect)\"")" = "536870912 true" ]'
ok "classes: protect = 512 MiB in effect, and the conflict line says so" \
	sh -c "pmemramctl classes | grep -q 'protect = 512 MiB: memory.low 512 MiB (in effect)' &&
		pmemramctl classes | grep -q 'protect = SIZE is set'"
is "classes --json: protect and memory_low" \
	"$(pmemramctl classes --json | jq -r '.classes[0] | "\(.protect) \(.memory_low)"')" "536870912 536870912"
pressure low "$pid"
is "with protect = 512M every page of premium stayed on DRAM" "$last_dram/$last_total" "$last_total/$last_total"
is "the kernel never had to reclaim below it (memory.events low)" "$(awk '$1 == "low" { print $2 }' $cg/memory.events)" 0

# Taking the protection back removes it from the slice, pmemram.slice and,
# once systemd reloaded (pmemramd asks after the files), the cgroup.
rm /etc/pmemram/pmemram.conf.d/50-protect.conf
must "reload pmemramd" systemctl reload pmemramd.service
ok "the premium slice has no MemoryLow= any more" \
	wait_for 60 '! grep -q MemoryLow /run/systemd/system/pmemram-premium.slice'
ok "pmemram.slice is removed" wait_for 60 '[ ! -e /run/systemd/system/pmemram.slice ]'
ok "memory.low of the running slice is 0 again" wait_for 30 '[ "$(cat $cg/memory.low)" = 0 ]'
ok "status: no protection, none left over" wait_for 30 \
	'[ "$(pmemramctl status --json | jq -r ".daemon.daemon.classes[0] | \"\(.protect) \(.protect_in_effect)\"")" = "0 null" ]'
systemctl stop prem-low
rm -rf "$tmp"
done_testing
