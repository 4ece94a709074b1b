#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A CXL memdev whose region is not there at boot (QEMU does not keep one
# across boots, as a machine whose firmware does not reassemble them) gets
# it back from pmemram's configuration: a claim by its serial with
# create-region = pmem and create = devdax makes the pmem region, its devdax
# namespace and onlines it as Movable.  Without the opt-in the memdev is left
# alone; a restart changes nothing; release and reclaim work as for any
# device; pmemramd killed in the middle of making the region finishes it on
# its next start, and one killed between making the region and naming it
# adopts that region on its next start.  cxl list, ndctl list and daxctl
# list, which we did not write, say what happened.
set -u
. ./lib.sh

plan 36
conf=/etc/pmemram/pmemram.conf
base_kb=$(meminfo_kb MemTotal)
cxl=/sys/bus/cxl/devices

cxl_modules_ok
regions() { find "$cxl/" -maxdepth 1 -name 'region*' -printf '%f\n' | sort | paste -sd' ' -; }
is "no CXL region at boot" "$(regions)" ""
serial=$(cat "$cxl/mem0/serial")
is "mem0's serial is the one QEMU was given" "$serial" 0x5eed0001

# The dax devices below the CXL root's nvdimm bridge.
cxl_dax() {
	local d
	for d in /sys/bus/dax/devices/dax*; do
		[ -e "$d" ] && realpath "$d" | grep -q '/root0/nvdimm-bridge0/' && basename "$d"
	done
}

# Without create-region the claim matches nothing and nothing is made.
printf '[claim "cxl"]\nmatch = cxl-memdev:%s\n' "$serial" >"$conf"
must "(re)start pmemramd with a claim on mem0 without create-region" systemctl restart pmemramd.service
must "pmemramctl reconcile" pmemramctl reconcile
is "without create-region no region is made" "$(regions)" ""
is "pmemramctl plan: the claim matches nothing" "$(pmemramctl plan --json | jq -r '.unmatched_claims | join(",")')" cxl

# With it: the plan shows the creation before anything is done.
printf '[claim "cxl"]\nmatch = cxl-memdev:%s\ncreate-region = pmem\ncreate = devdax\nonline = movable\n' \
	"$serial" >"$conf"
pmemramctl plan --json >"$PMEMRAM_OUT/plan.json"
is "pmemramctl plan: create-cxl-region of mem0, 512 MiB on decoder0.0" \
	"$(jq -r '.actions[0] | "\(.action) \(.device) \(.size) \(.root_decoder) \(.claim)"' "$PMEMRAM_OUT/plan.json")" \
	"create-cxl-region mem0 536870912 decoder0.0 cxl"
ur=$(jq -r '.actions[0].uuid' "$PMEMRAM_OUT/plan.json")
is "pmemramctl plan: mem0 pending, matched by cxl-memdev" \
	"$(jq -r '.devices[] | select(.device == "mem0") | "\(.verdict) \(.matched_by)"' "$PMEMRAM_OUT/plan.json")" \
	"pending cxl-memdev"
is "a plan makes nothing" "$(regions)" ""

must "reload pmemramd with create-region = pmem" systemctl reload pmemramd.service
# shellcheck disable=SC2016 # expanded by wait_for
ok "a dax device appears below the CXL root and comes online as Movable" \
	wait_for 60 'D=$(cxl_dax) && [ -n "$D" ] && [ "$(dev_state "$D")" = "$(dev_blocks "$D" | grep -c .) online Movable" ]'
D=$(cxl_dax)
nd=$(dev_blocks "$D" | grep -c .)
note "dax device $D: $(realpath "/sys/bus/dax/devices/$D"), $nd blocks"
R=$(regions)
cxl list -R -m mem0 >"$PMEMRAM_OUT/regions.json"
is "cxl list -R -m mem0: one region $R, committed, 512 MiB, one way" \
	"$(jq -r '.[] | "\(.region) \(.decode_state) \(.size) \(.interleave_ways)"' "$PMEMRAM_OUT/regions.json")" \
	"$R commit 536870912 1"
is "$R has the UUID the plan gave" "$(cat "$cxl/$R/uuid")" "$ur"
ndctl list -N >"$PMEMRAM_OUT/namespaces.json"
is "ndctl list -N: one devdax namespace named after the claim" \
	"$(jq -r '[.[] | select(.name == "cxl")] | map("\(.mode) \(.chardev)") | join(",")' "$PMEMRAM_OUT/namespaces.json")" \
	"devdax $D"
daxjson=$(daxctl_dev "$D" -M) || bail "daxctl list -M -d $D failed"
note "daxctl: $daxjson"
is "daxctl list -M: system-ram, all blocks online, movable" "$(daxctl_ram "$daxjson")" "system-ram $nd/$nd true"
# shellcheck disable=SC2016 # jq's variables
ok "daxctl's mapping lies inside cxl list's range of $R" \
	jq -e --slurpfile r "$PMEMRAM_OUT/regions.json" '.mappings[0] as $m | $r[0][0] as $r |
		$m.start >= $r.resource and $m.end < $r.resource + $r.size' <<<"$daxjson"
is "MemTotal grew by $D's blocks" "$(meminfo_kb MemTotal)" "$((base_kb + nd * $(block_size) / 1024))"
is "status --json: $D converged, on $R, memdev $serial, matched by cxl-memdev" "$(pmemramctl status --json |
	jq -c --arg d "$D" '.daemon.reconcile.plan.devices[] | select(.device == $d) | [.verdict, .matched_by, .cxl]')" \
	"[\"converged\",\"cxl-memdev\",{\"region\":\"$R\",\"memdevs\":[\"$serial\"]}]"
ok "the journal tells the region's creation" \
	sh -c "journalctl -b -u pmemramd | grep -q 'mem0: created CXL region $R on decoder0.0'"

# A restart changes nothing: no second region, no second namespace.
must "restart pmemramd" systemctl restart pmemramd.service
must "pmemramctl reconcile" pmemramctl reconcile
is "after a restart: still one region, one namespace named cxl, $D online" \
	"$(regions) $(ndctl list -N | jq '[.[] | select(.name == "cxl")] | length') $(dev_state "$D")" \
	"$R 1 $nd online Movable"
is "a further plan has nothing to do" "$(pmemramctl plan --json | jq '.actions | length')" 0

ok "pmemramctl release $D" pmemramctl release "$D"
is "$D back on device_dax, its region kept" "$(dev_driver "$D") $(regions)" "device_dax $R"
ok "pmemramctl reclaim $D" pmemramctl reclaim "$D"
is "$D online again, Movable" "$(dev_state "$D")" "$nd online Movable"

# Killed in the middle of making the region: pmemramd runs by hand (its udev
# rule, which starts the service, set aside as ns-kill.sh does) under strace,
# which sends it SIGKILL at its first write of the endpoint decoder's DPA size.
rules=95-pmemram-start.rules
must "stop pmemramd" systemctl stop pmemramd.service
mkdir -p /run/udev/rules.d
ln -sf /dev/null "/run/udev/rules.d/$rules"
must "set pmemramd's udev rule aside" udevadm control --reload
must "give $D back to device_dax" daxctl reconfigure-device -m devdax -f "$D"
must "destroy its namespace" ndctl destroy-namespace -f "$(ndctl list -N | jq -r '.[] | select(.name == "cxl") | .dev')"
must "destroy $R" cxl destroy-region -f "$R"
is "no region left" "$(regions)" ""
trace=$PMEMRAM_OUT/kill.trace
rc=0
timeout 60 strace -f -y -o "$trace" -e trace=write -e inject=write:signal=KILL:when=1 \
	-P "$cxl/decoder2.0/dpa_size" /usr/sbin/pmemramd >"$PMEMRAM_OUT/kill.log" 2>&1 || rc=$?
is "pmemramd killed by SIGKILL at its write to decoder2.0/dpa_size" \
	"$rc $(grep -c ' write(' "$trace") $(tail -n 1 "$trace" | sed 's/^[0-9]* *//')" "137 1 +++ killed by SIGKILL +++"
R=$(regions)
is "left: one region $R, with the claim's UUID, no target, not committed" \
	"$(wc -w <<<"$R") $(cat "$cxl/$R/uuid") $(cat "$cxl/$R/target0") $(cat "$cxl/$R/commit")" "1 $ur  0"
is "pmemramctl plan: finish $R" "$(pmemramctl plan --json | jq -r '.devices[] | select(.device == "mem0") | .text')" \
	"finish CXL region $R (512 MiB) of mem0, left without its memdev"
rm -f "/run/udev/rules.d/$rules"
must "put pmemramd's udev rule back" udevadm control --reload
must "start pmemramd" systemctl start pmemramd.service
# shellcheck disable=SC2016 # expanded by wait_for
ok "$R finished, its dax device online as Movable" \
	wait_for 60 'D=$(cxl_dax) && [ -n "$D" ] && [ "$(dev_state "$D")" = "$nd online Movable" ]'
is "still one region $R, committed, one namespace named cxl" \
	"$(regions) $(cat "$cxl/$R/commit") $(ndctl list -N | jq '[.[] | select(.name == "cxl")] | length')" "$R 1 1"

# Killed between making the region and giving it its UUID, where nothing in
# the region tells it pmemram's: pmemramd recorded the name the root decoder
# gives the next region (its create_pmem_region) first, and its next start
# adopts that region instead of making a second one.
D=$(cxl_dax)
must "stop pmemramd" systemctl stop pmemramd.service
ln -sf /dev/null "/run/udev/rules.d/$rules"
must "set pmemramd's udev rule aside" udevadm control --reload
must "give $D back to device_dax" daxctl reconfigure-device -m devdax -f "$D"
must "destroy its namespace" ndctl destroy-namespace -f "$(ndctl list -N | jq -r '.[] | select(.name == "cxl") | .dev')"
must "destroy $R" cxl destroy-region -f "$R"
next=$(cat "$cxl/decoder0.0/create_pmem_region")
uuid_file=$(realpath "$cxl/decoder0.0")/$next/uuid
record=/run/pmemram/cxl-region-$serial
trace=$PMEMRAM_OUT/kill-uuid.trace
rc=0
timeout 60 strace -f -y -o "$trace" -e trace=write -e inject=write:signal=KILL:when=1 \
	-P "$uuid_file" /usr/sbin/pmemramd >"$PMEMRAM_OUT/kill-uuid.log" 2>&1 || rc=$?
is "pmemramd killed by SIGKILL at its write of $next's UUID" \
	"$rc $(grep -c ' write(' "$trace") $(tail -n 1 "$trace" | sed 's/^[0-9]* *//')" "137 1 +++ killed by SIGKILL +++"
is "left: one region $next, without UUID, size or target; the record names it" \
	"$(regions) $(cat "$cxl/$next/uuid") $(cat "$cxl/$next/size") $(cat "$cxl/$next/target0") $(cat "$record")" \
	"$next 00000000-0000-0000-0000-000000000000 0x0  decoder0.0 $next"
rm -f "/run/udev/rules.d/$rules"
must "put pmemramd's udev rule back" udevadm control --reload
must "start pmemramd" systemctl start pmemramd.service
# The recorded region is bare and in pmem mode (its uuid attribute is
# writable: Debian 12's libcxl cannot say the mode, sysfs does): adopted.
# shellcheck disable=SC2016 # expanded by wait_for
ok "$next adopted and finished, its dax device online as Movable" \
	wait_for 60 'D=$(cxl_dax) && [ -n "$D" ] && [ "$(dev_state "$D")" = "$nd online Movable" ]'
is "still one region, $next, with the plan's UUID, committed; the record gone" \
	"$(regions) $(cat "$cxl/$next/uuid") $(cat "$cxl/$next/commit") $([ -e "$record" ] && echo kept)" \
	"$next $ur 1 "

done_testing
