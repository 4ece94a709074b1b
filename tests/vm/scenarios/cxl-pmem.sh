#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A CXL type-3 device's persistent memory as RAM: the cxl tool makes a pmem
# region on memdev mem0, ndctl a devdax namespace on its nvdimm region;
# pmemramd leaves it alone while only another serial is claimed, takes it by
# the memdev's serial (written as cxl list prints it), onlines it as Movable,
# gives it back on release and takes it again, then the same by CXL region
# (claimed with pmemramctl claim --cxl-region).
# daxctl list -M and cxl list, which we did not write, say what happened.
set -u
. ./lib.sh

plan 33
conf=/etc/pmemram/pmemram.conf
base_kb=$(meminfo_kb MemTotal)
bs=$(block_size)

cxl_modules_ok
memdev=$(cxl list -M -m mem0) || bail "cxl list -M -m mem0 failed"
note "memdev: $(jq -c '.[0]' <<<"$memdev")"
serial=$(jq -r '.[0].serial' <<<"$memdev")
is "cxl list: mem0's serial is the one QEMU was given (0x5eed0001)" "$serial" "$((0x5eed0001))"
is "sysfs prints the same serial in hex" "$(cat /sys/bus/cxl/devices/mem0/serial)" 0x5eed0001

cat >"$conf" <<EOC
# written by the cxl-pmem scenario
[claim "other"]
match = cxl-memdev:0x5eed0009
EOC
must "(re)start pmemramd claiming another memdev" systemctl restart pmemramd.service

must "cxl create-region" sh -c "cxl create-region -d decoder0.0 -t pmem -m mem0 >$PMEMRAM_OUT/region.json"
R=$(jq -r '.region' "$PMEMRAM_OUT/region.json")
is "cxl list: $R is committed" "$(cxl list -R -r "$R" | jq -r '.[0].decode_state')" commit
ndr=$(nd_region_of_cxl "$R") || bail "$ndr"
note "CXL region $R, nvdimm region $ndr"
must "ndctl create-namespace on $ndr" \
	sh -c "ndctl create-namespace -r $ndr -m devdax -a 2M >$PMEMRAM_OUT/ns.json"
D=$(jq -r '.daxregion.devices[0].chardev' "$PMEMRAM_OUT/ns.json")
nd=$(dev_blocks "$D" | grep -c .)
note "dax device $D: $(realpath "/sys/bus/dax/devices/$D"), $nd blocks"
ok "$D hangs below the CXL root's nvdimm bridge" \
	sh -c "realpath /sys/bus/dax/devices/$D | grep -q '/root0/nvdimm-bridge0/ndbus[0-9]*/$ndr/'"
ok "daemon: $D ignored while only another serial is claimed" \
	wait_for 10 '[ "$(daemon_verdict "$D")" = "ignored unclaimed" ]'
is "$D stays on device_dax" "$(dev_driver "$D")" device_dax

cat >"$conf" <<EOC
# written by the cxl-pmem scenario
[claim "other"]
match = cxl-memdev:0x5eed0009

[claim "cxl"]
match = cxl-memdev:$serial
EOC
must "reload pmemramd with a claim on mem0's serial" systemctl reload pmemramd.service
ok "$D comes online as Movable" wait_for 30 '[ "$(dev_state "$D")" = "$nd online Movable" ]'
is "daemon: $D converged" "$(daemon_verdict "$D")" "converged none"
is "daemon: $D matched by cxl-memdev, claim cxl" "$(pmemramctl status --json |
	jq -r --arg d "$D" '.daemon.reconcile.plan.devices[] | select(.device == $d) | "\(.matched_by) \(.claim)"')" \
	"cxl-memdev cxl"
is "status --json: $D is on $R, memdev 0x5eed0001" "$(pmemramctl status --json |
	jq -c --arg d "$D" '.daemon.reconcile.plan.devices[] | select(.device == $d) | .cxl')" \
	"{\"region\":\"$R\",\"memdevs\":[\"0x5eed0001\"]}"
ok "pmemramctl status says so" sh -c "pmemramctl status | grep -qx ' *on CXL $R, memdev 0x5eed0001'"
# A user cannot read an nvdimm region's range: the claim that pmemramd matched does not match.
ok "pmemramctl plan as a user: the CXL origin needs root to read" sh -c \
	"setpriv --reuid=nobody --regid=nogroup --clear-groups pmemramctl plan 2>&1 | grep -q \
	\"^Claim 'cxl' matches no device: CXL origin of dax[0-9.]* needs root to read: /sys/bus/nd/devices/region[0-9]*/resource\\.\$\""
daxjson=$(daxctl_dev "$D" -M) || bail "daxctl list -M -d $D failed"
note "daxctl: $daxjson"
is "daxctl list -M: system-ram, all blocks online, movable" "$(daxctl_ram "$daxjson")" "system-ram $nd/$nd true"
is "daxctl list -M: target node 1 (the fixed memory window's)" "$(jq -r '.target_node' <<<"$daxjson")" 1
region=$(cxl list -R -r "$R" | jq -c '.[0]') || bail "cxl list -R -r $R failed"
note "cxl: $region"
ok "daxctl's mapping lies inside cxl list's range of $R" \
	jq -e --argjson r "$region" '.mappings[0] as $m |
		$m.start >= $r.resource and $m.end < $r.resource + $r.size' <<<"$daxjson"
is "MemTotal grew by $D's blocks" "$(meminfo_kb MemTotal)" "$((base_kb + nd * bs / 1024))"
is "numactl -H: node 1 has that memory" "$(node_mem_mb 1)" "$((nd * bs >> 20))"
is "/proc/iomem: System RAM (kmem) < $D < $R < CXL Window 0" \
	"$(iomem_chain "System RAM (kmem)" | sed 's/ < namespace[0-9.]*//')" \
	"System RAM (kmem) < $D < $R < Persistent Memory < CXL Window 0"

ok "pmemramctl release $D" pmemramctl release "$D"
is "$D back on device_dax" "$(dev_driver "$D")" device_dax
is "daxctl list: $D is devdax again" "$(daxctl_dev "$D" | jq -r .mode)" devdax
is "MemTotal is back to the baseline" "$(meminfo_kb MemTotal)" "$base_kb"
must "pmemramctl reconcile" pmemramctl reconcile
is "a reconcile leaves the held $D alone" "$(daemon_verdict "$D")" "ignored held"
ok "pmemramctl reclaim $D" pmemramctl reclaim "$D"
is "$D online again, Movable" "$(dev_state "$D")" "$nd online Movable"

# The same by CXL region name (not stable across boots: cxl assigns the next free number).
ok "release $D again" pmemramctl release "$D"
echo "# written by the cxl-pmem scenario: no claims" >"$conf"
must "pmemramctl claim by-region --cxl-region $R" pmemramctl claim by-region --cxl-region "$R"
ok "pmemramctl reclaim $D" pmemramctl reclaim "$D"
is "$D online as Movable, claimed by $R" "$(dev_state "$D") $(pmemramctl status --json |
	jq -r --arg d "$D" '.daemon.reconcile.plan.devices[] | select(.device == $d) | .matched_by')" \
	"$nd online Movable cxl-region"
ok "give $D back" pmemramctl release "$D"

done_testing
