#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Tiering classes under the real pmemramd and systemd: the NVDIMM's memory is
# onlined on node 2 through a claim; the class "economy" (nodes = pmem) gets
# a slice with AllowedMemoryNodes=2, "premium" (nodes = dram) one with 0-1.
# A unit in each slice and a process started with pmemramctl run have their
# anonymous memory only on their class's nodes (/proc/PID/numa_maps).  A
# class naming a node that does not exist is an error that changes nothing,
# and demotion = on turns the kernel's demotion on, which makes premium a
# conflict (demotion may move its pages to node 2).  A second NVDIMM
# hot-added on node 3 (topology nvdimm+spare-node) extends the economy slice
# to 2-3 while its unit keeps running.  pmemramctl classes and the status
# reply show each class's memory per node (memory.numa_stat of its slice
# cgroup), none of it outside the class's nodes, and each node's demote
# counters.
set -u
. ./lib.sh

plan 37
work=/usr/lib/pmemram-test/cache-work
tmp=$(mktemp -d)

# only_on PID NODES...: the process has anonymous pages, and only on NODES.
only_on() {
	local pid=$1 got n ok=1
	shift
	got=$(anon_nodes "$pid")
	echo "pid $pid anonymous pages: $got (allowed: $*)"
	[ -n "$got" ] || return 1
	for n in $(grep -o 'N[0-9]*=' <<<"$got" | tr -d 'N='); do
		[[ " $* " == *" $n "* ]] || ok=0
	done
	[ "$ok" = 1 ]
}
# unit_work UNIT SLICE MIB: a transient service in SLICE holding MIB MiB; its pid.
unit_work() {
	systemd-run -q --unit="$1" --slice="$2" -p StandardOutput="file:$tmp/$1.out" "$work" hold "$3" >&2 || return 1
	wait_for 120 "grep -q ^ready $tmp/$1.out" || return 1
	systemctl show -p MainPID --value "$1"
}

u=$(new_uuid)
must "initialise the label area" init_labels
dev=$(mkns tier devdax all "$u") || bail "cannot create the namespace"
mkdir -p /etc/pmemram
cat >/etc/pmemram/pmemram.conf <<EOF
[global]
demotion = on

[claim "tier"]
match = uuid:$u

[claim "hot"]
match = region:region1

[class "economy"]
nodes = pmem

[class "premium"]
nodes = dram
mode = preferred
EOF
# The udev rule started pmemramd when the namespace appeared, before the
# configuration existed: restart it on the configuration.
ok "pmemramd (re)starts on the configuration" systemctl restart pmemramd.service
n=$(dev_blocks "$dev" | grep -c .)
if ! wait_for 120 "[ \"\$(dev_state $dev)\" = '$n online Movable' ]"; then
	note "target_node $(cat /sys/bus/dax/devices/$dev/target_node), state $(dev_state "$dev")"
	journalctl -b -u pmemramd --no-pager | tail -n 30 >&2
	pmemramctl status >&2
fi
is "$dev is onlined Movable on node 2" "$(dev_state "$dev") node $(cat /sys/bus/dax/devices/$dev/target_node)" \
	"$n online Movable node 2"

slice=/run/systemd/system/pmemram-economy.slice
ok "pmemramd wrote the economy slice" wait_for 60 "grep -qx AllowedMemoryNodes=2 $slice"
is "the premium slice allows nodes 0-1" "$(sed -n 's/^AllowedMemoryNodes=//p' /run/systemd/system/pmemram-premium.slice)" 0-1
is "classes: economy resolves to node 2, premium to 0-1" \
	"$(pmemramctl classes --json | jq -r '[.classes[] | "\(.class)=\(.nodes)"] | join(" ")')" "economy=2 premium=0-1"
is "status: pmemramd's classes carry no error" \
	"$(pmemramctl status --json | jq -r '[.daemon.daemon.classes[] | "\(.class):\(.nodes):\(.error)"] | join(" ")')" \
	"economy:2:null premium:0-1:null"
is "demotion = on turned the kernel's demotion on" "$(cat /sys/kernel/mm/numa/demotion_enabled)" true
is "status reports it" "$(pmemramctl status --json | jq -r .daemon.daemon.demotion_enabled)" true
# Demotion ignores cpuset.mems on 6.1: premium (DRAM) may lose pages to node 2, economy cannot.
is "classes: premium's pages may be demoted to node 2" \
	"$(pmemramctl classes --json | jq -r '[.classes[] | "\(.class)=\(.demotion_escape_nodes)"] | join(" ")')" \
	"economy=null premium=2"
ok "pmemramd journals the conflict for premium" wait_for 10 \
	'journalctl -b -u pmemramd MESSAGE_ID=fa252bbf9c5747bb8b9f7d0f2730832d PMEMRAM_CLASS=premium -o cat | grep -q "node(s) 2"'

# A unit in each class's slice.
epid=$(unit_work econ-work pmemram-economy.slice 64) || bail "the economy unit did not start"
is "systemd put the economy slice on node 2 (cpuset.mems.effective)" \
	"$(cat /sys/fs/cgroup/pmemram.slice/pmemram-economy.slice/cpuset.mems.effective)" 2
ok "the economy unit's memory is only on node 2" only_on "$epid" 2
ppid=$(unit_work prem-work pmemram-premium.slice 64) || bail "the premium unit did not start"
ok "the premium unit's memory is only on nodes 0-1" only_on "$ppid" 0 1

# What each class uses, from its slice cgroup's memory.numa_stat: at least the
# 64 MiB its unit holds, on its own nodes, nothing outside them.
usage='[.classes[] | "\(.class)=\(if .class == "economy" then .memory_per_node["2"] else .memory_per_node["0"] + .memory_per_node["1"] end >= 67108864),\(.outside_nodes),\(.bytes_outside)"] | join(" ")'
note "classes: $(pmemramctl classes --json | jq -c '[.classes[] | {class, memory_per_node, outside_nodes, bytes_outside}]')"
is "classes: economy's memory is on node 2, premium's on 0-1, none outside" \
	"$(pmemramctl classes --json | jq -r "$usage")" "economy=true,null,0 premium=true,null,0"
ok "classes marks no class OUTSIDE its nodes" sh -c "pmemramctl classes >$tmp/usage.out && grep -q 'memory: node 0' $tmp/usage.out && ! grep -q OUTSIDE $tmp/usage.out"
is "status: pmemramd reports the same" "$(pmemramctl status --json | jq -r ".daemon.daemon | $usage")" \
	"economy=true,null,0 premium=true,null,0"
# The counters since pmemramd started: a number where the kernel counts one
# (6.1 counts pgdemote_* for the system alone, pgpromote_success only with
# CONFIG_NUMA_BALANCING), null where it does not.
kinds() {
	local c out=
	for c in pgdemote_kswapd pgdemote_direct pgpromote_success; do
		grep -q "^$c " "$1" && out+=number, || out+=null,
	done
	echo "${out%,}"
}
want="system:$(kinds /proc/vmstat)"
for n in 0 1 2; do
	want+=" $n:$(kinds /sys/devices/system/node/node$n/vmstat)"
done
types='[.pgdemote_kswapd, .pgdemote_direct, .pgpromote_success] | map(type) | join(",")'
note "status: $(pmemramctl status --json | jq -c .daemon.daemon.tiering_counters)"
is "status: the counters since the start, where the kernel has them" \
	"$(pmemramctl status --json | jq -r ".daemon.daemon.tiering_counters | ([\"system:\" + (.system | $types)] + [.nodes[] | \"\\(.node):\" + ($types)]) | join(\" \")")" \
	"$want"
is "status: the demote counters are reported (numbers)" \
	"$(pmemramctl status --json | jq -r '.daemon.daemon.tiering_counters.system | "\(.pgdemote_kswapd | type),\(.pgdemote_direct | type)"')" \
	"number,number"
note "classes: $(pmemramctl classes | sed -n '/^promote and demote/,$p' | tr '\n' '|')"

# A process outside systemd, through pmemramctl run.
pmemramctl run --class economy -- "$work" hold 64 >"$tmp/run.out" &
rpid=$!
ok "pmemramctl run --class economy starts the command" wait_for 120 "grep -q ^ready $tmp/run.out"
ok "its memory is only on node 2" only_on "$rpid" 2
is "classes lists the unit and the process in economy" \
	"$(pmemramctl classes --json | jq -r '.classes[] | select(.class == "economy") | "\(.units | join(",")) \(.run_processes | join(","))"')" \
	"econ-work.service $rpid"
kill "$rpid"
wait "$rpid" 2>/dev/null

# A class naming a node that does not exist: an error, nothing changed.
before=$(cat /run/systemd/system/pmemram-*.slice | md5sum)
mkdir -p /etc/pmemram/pmemram.conf.d
printf '[class "bad"]\nnodes = 0,7\n' >/etc/pmemram/pmemram.conf.d/50-bad.conf
must "reload pmemramd" systemctl reload pmemramd.service
ok "pmemramd loaded the class after the reload" \
	wait_for 30 'pmemramctl status --json | jq -e ".daemon.daemon.classes[] | select(.class == \"bad\")"'
is "status names the missing node" \
	"$(pmemramctl status --json | jq -r '.daemon.daemon.classes[] | select(.class == "bad") | .error')" \
	"node 7 does not exist or has no memory (nodes with memory: 0-2)"
ok "pmemramctl classes fails on it (exit 4), naming node 7" \
	sh -c "pmemramctl classes >$tmp/classes.out; [ \$? = 4 ] && grep -q 'ERROR: node 7 does not exist' $tmp/classes.out"
ok "pmemramctl run --class bad runs nothing (exit 4)" sh -c "pmemramctl run --class bad -- touch $tmp/ran; [ \$? = 4 ] && [ ! -e $tmp/ran ]"
is "no slice for it, the others unchanged" "$(test -e /run/systemd/system/pmemram-bad.slice && echo exists; cat /run/systemd/system/pmemram-*.slice | md5sum)" "$before"
is "the units kept running" "$(systemctl is-active econ-work prem-work | tr '\n' ' ')" "active active "
ok "journal: the class error has PMEMRAM_CLASS=bad" \
	wait_for 10 "journalctl -b PMEMRAM_CLASS=bad -o cat | grep -q 'node 7'"
rm -f /etc/pmemram/pmemram.conf.d/50-bad.conf
must "reload without the bad class" systemctl reload pmemramd.service

# A policy class: the slice can only fence it, and pmemramctl classes says so.
mkdir -p "$tmp/policy"
printf '[class "spill"]\nnodes = dram\nmode = preferred\n' >"$tmp/policy/pmemram.conf"
ok "classes says mode preferred is pmemramctl run's alone" \
	sh -c "pmemramctl classes --config $tmp/policy | grep -q 'mode preferred: for pmemramctl run only; units in the slice are confined to its'"
is "pmemramd's status says which class's mode its slice carries" \
	"$(pmemramctl status --json | jq -r '[.daemon.daemon.classes[] | "\(.class)=\(.mode),\(.mode_in_slice)"] | join(" ")')" \
	"economy=bind,true premium=preferred,false"
is "... and --json that the slice does not carry it" \
	"$(pmemramctl classes --config "$tmp/policy" --json | jq -r '.classes[0] | "\(.mode) \(.mode_in_slice)"')" "preferred false"

# A second NVDIMM on a node of its own: the economy slice follows.
bs=$(block_size)
since=$(systemctl show -p ActiveEnterTimestampMonotonic --value econ-work)
reply=$(host_request nvdimm-add nvdimm1 $((4 * bs >> 20)) 3) || bail "hot-add failed: $reply"
ok "region1 appears" wait_for 60 '[ -d /sys/bus/nd/devices/region1 ]'
nmem=$(cut -d, -f1 /sys/bus/nd/devices/region1/mapping0)
must "disable region1" ndctl disable-region region1
must "initialise the labels of $nmem" ndctl init-labels "$nmem"
must "enable region1" ndctl enable-region region1
ndctl create-namespace -r region1 -m devdax -a 2M -s $((3 * bs)) >"$PMEMRAM_OUT/ns-hot.json" ||
	bail "cannot create a devdax namespace on region1"
hot=$(jq -r '.daxregion.devices[0].chardev' "$PMEMRAM_OUT/ns-hot.json")
is "$hot targets node 3" "$(cat /sys/bus/dax/devices/$hot/target_node)" 3
ok "pmemramd onlined $hot and the economy slice now allows 2-3" \
	wait_for 120 'grep -qx AllowedMemoryNodes=2-3 /run/systemd/system/pmemram-economy.slice'
ok "systemd applied it to the running slice" \
	wait_for 60 '[ "$(cat /sys/fs/cgroup/pmemram.slice/pmemram-economy.slice/cpuset.mems.effective)" = 2-3 ]'
is "the economy unit was not restarted" \
	"$(systemctl show -p MainPID --value econ-work) $(systemctl show -p ActiveEnterTimestampMonotonic --value econ-work)" \
	"$epid $since"
is "premium is still 0-1" "$(sed -n 's/^AllowedMemoryNodes=//p' /run/systemd/system/pmemram-premium.slice)" 0-1
systemctl stop econ-work prem-work
rm -rf "$tmp"
done_testing
