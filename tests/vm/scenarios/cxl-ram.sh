#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A CXL type-3 device's volatile memory as RAM on Debian 13's kernel: cxl
# create-region -t ram makes a RAM region, and the kernel hands its dax
# device to kmem and onlines the blocks itself, in a zone of its own
# choosing (auto_online_blocks "online").  pmemramd leaves such memory as
# the kernel made it while only another serial is claimed; claimed by the
# memdev's serial, it is moved to Movable block by block.  The same from
# cxl create-region with the claim already there, timed: the figure
# "create-region -> memory online by a claim".
set -u
. ./lib.sh

plan 21
conf=/etc/pmemram/pmemram.conf

cxl_modules_ok
memdev=$(cxl list -M -m mem0) || bail "cxl list -M -m mem0 failed"
note "memdev: $(jq -c '.[0]' <<<"$memdev")"
serial=$(jq -r '.[0].serial' <<<"$memdev")
is "cxl list: mem0's serial is the one QEMU was given (0x5eed0101)" "$serial" "$((0x5eed0101))"
is "cxl list: mem0 has 512 MiB of volatile memory" "$(jq -r '.[0].ram_size' <<<"$memdev")" $((512 << 20))
is "Debian 13's kernel onlines hot-added memory itself" \
	"$(cat /sys/devices/system/memory/auto_online_blocks)" online

cat >"$conf" <<EOC
# written by the cxl-ram scenario
[claim "other"]
match = cxl-memdev:0x5eed0109
EOC
must "(re)start pmemramd claiming another memdev" systemctl restart pmemramd.service

# ram_region: cxl create-region -t ram on mem0; sets R and D (its dax device).
ram_region() {
	cxl create-region -d decoder0.0 -t ram -m mem0 >"$PMEMRAM_OUT/region.json" || return 1
	R=$(jq -r '.region' "$PMEMRAM_OUT/region.json")
	wait_for 30 '[ -n "$(cxl_region_dax "$R")" ]' || return 1
	D=$(cxl_region_dax "$R")
}
R= D=
ram_region
ok "cxl create-region -t ram on mem0: region $R, dax device $D" test -n "$D"
[ -n "$D" ] || bail "no RAM region or no dax device in it"
nd=$(dev_blocks "$D" | grep -c .)
note "CXL region $R, dax device $D ($nd blocks): $(realpath "/sys/bus/dax/devices/$D")"
ok "the kernel bound $D to kmem at probe" wait_for 30 '[ "$(dev_driver "$D")" = kmem ]'
kzone=$(dev_state "$D")
note "the kernel onlined it: $kzone"
ok "the kernel onlined every block of $D, not as Movable" \
	sh -c "[ '$kzone' != '$nd online Movable' ] && [ '${kzone% *}' = '$nd online' ]"
ok "daemon: $D ignored while only another serial is claimed" \
	wait_for 10 '[ "$(daemon_verdict "$D")" = "ignored unclaimed" ]'
is "pmemramd left it as the kernel made it" "$(dev_state "$D")" "$kzone"

cat >"$conf" <<EOC
# written by the cxl-ram scenario
[claim "other"]
match = cxl-memdev:0x5eed0109

[claim "ram"]
match = cxl-memdev:$serial
EOC
t0=$EPOCHREALTIME
must "reload pmemramd with a claim on mem0's serial" systemctl reload pmemramd.service
ok "$D's blocks are moved to Movable" wait_for 60 '[ "$(dev_state "$D")" = "$nd online Movable" ]'
note "BENCH what=move-to-movable blocks=$nd ms=$(ms "$t0" "$EPOCHREALTIME")"
ok "daemon: $D converged" wait_for 10 '[ "$(daemon_verdict "$D")" = "converged none" ]'
is "daemon: $D matched by cxl-memdev, claim ram, on $R" "$(pmemramctl status --json |
	jq -r --arg d "$D" '.daemon.reconcile.plan.devices[] | select(.device == $d) |
		"\(.matched_by) \(.claim) \(.cxl.region) \(.cxl.memdevs[0])"')" "cxl-memdev ram $R 0x5eed0101"

# Again from nothing, the claim in place: create-region to every block online as Movable.  The
# device goes back as a daxctl user would give it back, with no claim on it and the policy
# offline for the time (daxctl refuses under "online"), which is then Debian 13's again.
cp "$conf" "$PMEMRAM_OUT/claims.conf"
echo "# written by the cxl-ram scenario: no claims" >"$conf"
must "reload pmemramd without the claim" systemctl reload pmemramd.service
daxctl_admin
must "daxctl reconfigure-device -m devdax -f $D" daxctl reconfigure-device -m devdax -f "$D"
is "$D back on device_dax" "$(dev_driver "$D")" device_dax
must "cxl destroy-region $R" cxl destroy-region -f "$R"
echo online >/sys/devices/system/memory/auto_online_blocks
cp "$PMEMRAM_OUT/claims.conf" "$conf"
must "reload pmemramd with the claim on mem0's serial" systemctl reload pmemramd.service
t0=$EPOCHREALTIME
R= D=
ram_region
ok "cxl create-region -t ram on mem0 again: region $R, dax device $D" test -n "$D"
[ -n "$D" ] || bail "no RAM region or no dax device in it"
ok "$D online as Movable under the claim" wait_for 60 '[ "$(dev_state "$D")" = "$nd online Movable" ]'
note "BENCH what=create-region-to-online blocks=$nd ms=$(ms "$t0" "$EPOCHREALTIME")"
ok "daemon: $D converged" wait_for 10 '[ "$(daemon_verdict "$D")" = "converged none" ]'
daxjson=$(daxctl_dev "$D" -M) || bail "daxctl list -M -d $D failed"
note "daxctl: $daxjson"
is "daxctl list -M: system-ram, all blocks online, movable" "$(daxctl_ram "$daxjson")" "system-ram $nd/$nd true"
is "numactl -H: node 1 has that memory" "$(node_mem_mb 1)" "$((nd * $(block_size) >> 20))"

done_testing
