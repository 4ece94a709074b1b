#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A RAM region interleaved over two CXL type-3 devices' volatile memory on
# Debian 13's kernel: cxl create-region -t ram -w 2 over the host bridge's
# two root ports; the kernel hands its dax device to kmem and onlines it
# itself.  A cxl-memdev claim on one serial does not take it (refused
# memdev-unclaimed, naming the other serial: half its memory lies on the
# other memdev), and its blocks stay as the kernel made them; claims on both
# serials take it, moving every block to Movable.
set -u
. ./lib.sh

plan 12
conf=/etc/pmemram/pmemram.conf

ok "cxl list: two memdevs" wait_for 10 '[ "$(cxl list -M | jq length)" = 2 ]'
memdevs=$(cxl list -M) || bail "cxl list -M failed"
note "memdevs: $(jq -c . <<<"$memdevs")"
is "cxl list: the serials QEMU was given (0x5eed0101, 0x5eed0102), 512 MiB of RAM each" \
	"$(jq -c '[.[] | [.serial, .ram_size]] | sort' <<<"$memdevs")" \
	"[[$((0x5eed0101)),$((512 << 20))],[$((0x5eed0102)),$((512 << 20))]]"
# cxl_pci probes asynchronously: the memdev names need not follow the serials.
ma=$(jq -r --argjson s $((0x5eed0101)) '.[] | select(.serial == $s) | .memdev' <<<"$memdevs")
mb=$(jq -r --argjson s $((0x5eed0102)) '.[] | select(.serial == $s) | .memdev' <<<"$memdevs")

cat >"$conf" <<EOC
# written by the cxl-ram-interleave scenario
[claim "a"]
match = cxl-memdev:0x5eed0101
EOC
must "(re)start pmemramd claiming $ma only" systemctl restart pmemramd.service

must "cxl create-region -t ram -w 2" sh -c \
	"cxl create-region -d decoder0.0 -t ram -w 2 -m $ma $mb >$PMEMRAM_OUT/region.json"
R=$(jq -r '.region' "$PMEMRAM_OUT/region.json")
is "cxl list: $R interleaves 2 ways, 1 GiB" \
	"$(cxl list -R -r "$R" | jq -r '.[0] | "\(.interleave_ways) \(.size)"')" "2 $((1 << 30))"
ok "$R gets a dax device" wait_for 30 '[ -n "$(cxl_region_dax "$R")" ]'
D=$(cxl_region_dax "$R")
nd=$(dev_blocks "$D" | grep -c .)
ok "the kernel bound $D to kmem and onlined its $nd blocks" \
	wait_for 30 '[ "$(dev_driver "$D")" = kmem ] && [ "$(dev_state "$D" | cut -d" " -f1,2)" = "$nd online" ]'
kzone=$(dev_state "$D")
note "dax device $D: $(realpath "/sys/bus/dax/devices/$D"), the kernel onlined it: $kzone"

unclaimed="CXL $R interleaves 2 memdevs and no claim names 0x5eed0102: claim each memdev, or the region (cxl-region:$R)"
ok "daemon: $D refused memdev-unclaimed while only 0x5eed0101 is claimed" \
	wait_for 10 '[ "$(daemon_verdict "$D")" = "refused memdev-unclaimed" ]'
pmemramctl status --json >"$PMEMRAM_OUT/status-one.json"
is "status --json: the refusal names 0x5eed0102 and the region" \
	"$(jq -r --arg d "$D" '.daemon.reconcile.plan.devices[] | select(.device == $d) | .text' "$PMEMRAM_OUT/status-one.json")" \
	"$unclaimed"
is "status --json: $D is on $R, memdevs 0x5eed0101 and 0x5eed0102" \
	"$(jq -c --arg d "$D" '.daemon.reconcile.plan.devices[] | select(.device == $d) | .cxl' "$PMEMRAM_OUT/status-one.json")" \
	"{\"region\":\"$R\",\"memdevs\":[\"0x5eed0101\",\"0x5eed0102\"]}"
is "its blocks stay as the kernel made them" "$(dev_state "$D")" "$kzone"

cat >"$conf" <<EOC
# written by the cxl-ram-interleave scenario
[claim "a"]
match = cxl-memdev:0x5eed0101

[claim "b"]
match = cxl-memdev:0x5eed0102
EOC
must "reload pmemramd with both serials claimed" systemctl reload pmemramd.service
ok "$D's blocks are moved to Movable" wait_for 60 '[ "$(dev_state "$D")" = "$nd online Movable" ]'
ok "daemon: $D converged" wait_for 10 '[ "$(daemon_verdict "$D")" = "converged none" ]'
is "numactl -H: node 1 has the region's memory" "$(node_mem_mb 1)" "$((nd * $(block_size) >> 20))"

done_testing
