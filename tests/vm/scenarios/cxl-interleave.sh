#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A pmem region interleaved over two CXL type-3 devices as RAM: the cxl tool
# makes a 2-way region over the host bridge's two root ports, ndctl a devdax
# namespace on its nvdimm region.  A cxl-memdev claim on one memdev's serial
# does not take it (refused memdev-unclaimed, naming the other serial), since
# half of its memory lies on the other memdev; claims on both serials take it
# as Movable; it is given back on release, then taken by the region's name.
# cxl list, ndctl and daxctl, which we did not write, say what happened.
set -u
. ./lib.sh

plan 33
conf=/etc/pmemram/pmemram.conf
base_kb=$(meminfo_kb MemTotal)
bs=$(block_size)

cxl_modules_ok
ok "cxl list: two memdevs" wait_for 10 '[ "$(cxl list -M | jq length)" = 2 ]'
memdevs=$(cxl list -M) || bail "cxl list -M failed"
note "memdevs: $(jq -c . <<<"$memdevs")"
is "cxl list: the serials QEMU was given (0x5eed0001, 0x5eed0002)" \
	"$(jq -c '[.[].serial] | sort' <<<"$memdevs")" "[$((0x5eed0001)),$((0x5eed0002))]"
# cxl_pci probes asynchronously: the memdev names need not follow the serials.
ma=$(jq -r --argjson s $((0x5eed0001)) '.[] | select(.serial == $s) | .memdev' <<<"$memdevs")
mb=$(jq -r --argjson s $((0x5eed0002)) '.[] | select(.serial == $s) | .memdev' <<<"$memdevs")
note "0x5eed0001 is $ma ($(realpath "/sys/bus/cxl/devices/$ma")), 0x5eed0002 is $mb ($(realpath "/sys/bus/cxl/devices/$mb"))"
is "sysfs: $ma and $mb sit on different root ports of one host bridge" \
	"$(for m in "$ma" "$mb"; do realpath "/sys/bus/cxl/devices/$m" | awk -F/ '{ print $(NF-3), $(NF-2) }'; done |
		awk '{ hb[$1]; rp[$2] } END { print length(hb), length(rp) }')" "1 2"
is "cxl list: root decoder0.0 is 1-way (the host bridge interleaves)" \
	"$(cxl list -D -d decoder0.0 | jq -r '.[0].interleave_ways')" 1

cat >"$conf" <<EOC
# written by the cxl-interleave scenario
[claim "a"]
match = cxl-memdev:0x5eed0001
EOC
must "(re)start pmemramd claiming $ma only" systemctl restart pmemramd.service

must "cxl create-region -w 2" sh -c \
	"cxl create-region -d decoder0.0 -t pmem -w 2 -m $ma $mb >$PMEMRAM_OUT/region.json"
R=$(jq -r '.region' "$PMEMRAM_OUT/region.json")
region=$(cxl list -R -T -r "$R") || bail "cxl list -R -T -r $R failed"
region=$(jq -c '.[0]' <<<"$region")
note "cxl: $region"
is "cxl list: $R is committed" "$(jq -r '.decode_state' <<<"$region")" commit
is "cxl list: $R interleaves 2 ways, 1 GiB" "$(jq -r '"\(.interleave_ways) \(.size)"' <<<"$region")" "2 $((1 << 30))"
is "cxl list: $R's positions 0 and 1 are $ma and $mb" "$(jq -r '.mappings | sort_by(.position) | map(.memdev) | join(" ")' <<<"$region")" "$ma $mb"
ndr=$(nd_region_of_cxl "$R") || bail "$ndr"
note "CXL region $R, nvdimm region $ndr"
must "ndctl create-namespace on $ndr" \
	sh -c "ndctl create-namespace -r $ndr -m devdax -a 2M >$PMEMRAM_OUT/ns.json"
is "ndctl: a devdax namespace" "$(jq -r '.mode' "$PMEMRAM_OUT/ns.json")" devdax
D=$(jq -r '.daxregion.devices[0].chardev' "$PMEMRAM_OUT/ns.json")
nd=$(dev_blocks "$D" | grep -c .)
note "dax device $D: $(realpath "/sys/bus/dax/devices/$D"), $nd blocks"

# One memdev of two claimed.
unclaimed="CXL $R interleaves 2 memdevs and no claim names 0x5eed0002: claim each memdev, or the region (cxl-region:$R)"
ok "daemon: $D refused memdev-unclaimed while only 0x5eed0001 is claimed" \
	wait_for 10 '[ "$(daemon_verdict "$D")" = "refused memdev-unclaimed" ]'
pmemramctl status --json >"$PMEMRAM_OUT/status-one.json"
is "status --json: the refusal names 0x5eed0002 and the region" \
	"$(jq -r --arg d "$D" '.daemon.reconcile.plan.devices[] | select(.device == $d) | .text' "$PMEMRAM_OUT/status-one.json")" \
	"$unclaimed"
is "status --json: $D is on $R, memdevs 0x5eed0001 and 0x5eed0002" \
	"$(jq -c --arg d "$D" '.daemon.reconcile.plan.devices[] | select(.device == $d) | .cxl' "$PMEMRAM_OUT/status-one.json")" \
	"{\"region\":\"$R\",\"memdevs\":[\"0x5eed0001\",\"0x5eed0002\"]}"
is "pmemramctl plan says the same" "$(pmemramctl plan --json |
	jq -r --arg d "$D" '.devices[] | select(.device == $d) | "\(.verdict) \(.reason): \(.text)"')" \
	"refused memdev-unclaimed: $unclaimed"
is "$D stays on device_dax" "$(dev_driver "$D")" device_dax
is "daxctl list: $D is devdax" "$(daxctl_dev "$D" | jq -r .mode)" devdax
is "no memory block of $D was added" "$(dev_state "$D")" "$nd absent"
is "MemTotal is the baseline" "$(meminfo_kb MemTotal)" "$base_kb"

# Both memdevs claimed, each by a claim of its own.
cat >"$conf" <<EOC
# written by the cxl-interleave scenario
[claim "a"]
match = cxl-memdev:0x5eed0001

[claim "b"]
match = cxl-memdev:0x5eed0002
EOC
must "reload pmemramd with claims on both serials" systemctl reload pmemramd.service
ok "$D comes online as Movable" wait_for 30 '[ "$(dev_state "$D")" = "$nd online Movable" ]'
ok "daemon: $D converged" wait_for 10 '[ "$(daemon_verdict "$D")" = "converged none" ]'
is "daemon: $D matched by cxl-memdev, claim a (the first)" "$(pmemramctl status --json |
	jq -r --arg d "$D" '.daemon.reconcile.plan.devices[] | select(.device == $d) | "\(.matched_by) \(.claim)"')" \
	"cxl-memdev a"
daxjson=$(daxctl_dev "$D" -M) || bail "daxctl list -M -d $D failed"
note "daxctl: $daxjson"
is "daxctl list -M: system-ram, all blocks online, movable" "$(daxctl_ram "$daxjson")" "system-ram $nd/$nd true"
ok "daxctl's mapping lies inside cxl list's range of $R" \
	jq -e --argjson r "$region" '.mappings[0] as $m |
		$m.start >= $r.resource and $m.end < $r.resource + $r.size' <<<"$daxjson"
is "MemTotal grew by $D's blocks" "$(meminfo_kb MemTotal)" "$((base_kb + nd * bs / 1024))"
is "/proc/iomem: System RAM (kmem) < $D < $R < CXL Window 0" \
	"$(iomem_chain "System RAM (kmem)" | sed 's/ < namespace[0-9.]*//')" \
	"System RAM (kmem) < $D < $R < Persistent Memory < CXL Window 0"

ok "pmemramctl release $D" pmemramctl release "$D"
is "$D back on device_dax" "$(dev_driver "$D")" device_dax
is "MemTotal is back to the baseline" "$(meminfo_kb MemTotal)" "$base_kb"

# By the region's name, what the refusal proposes, beside the memdev claim it refused.
printf '# written by the cxl-interleave scenario\n[claim "a"]\nmatch = cxl-memdev:0x5eed0001\n' >"$conf"
must "pmemramctl claim by-region --cxl-region $R" pmemramctl claim by-region --cxl-region "$R"
ok "pmemramctl reclaim $D" pmemramctl reclaim "$D"
is "$D online as Movable, claimed by $R over the memdev claim" "$(dev_state "$D") $(pmemramctl status --json |
	jq -r --arg d "$D" '.daemon.reconcile.plan.devices[] | select(.device == $d) | "\(.matched_by) \(.claim)"')" \
	"$nd online Movable cxl-region by-region"
ok "give $D back" pmemramctl release "$D"

done_testing
