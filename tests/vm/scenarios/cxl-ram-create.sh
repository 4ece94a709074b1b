#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# create-region = ram on Debian 13's kernel: a claim by mem0's serial makes
# its RAM region through libcxl (as cxl create-region -t ram -m mem0 would),
# the kernel hands the region's dax device to kmem and onlines it, and the
# claim moves every block to Movable.  Restarted, pmemramd takes the region
# for the claim's (a RAM region has no UUID: the memdev's own region of one
# way) and makes no second.  Timed: the reload with the claim to the last
# block online as Movable.
set -u
. ./lib.sh

plan 17
conf=/etc/pmemram/pmemram.conf
cxl=/sys/bus/cxl/devices

cxl_modules_ok
is "no CXL region at boot" "$(cxl_regions)" ""
serial=$(cat "$cxl/mem0/serial")
is "mem0's serial is the one QEMU was given" "$serial" 0x5eed0101

printf '# written by the cxl-ram-create scenario\n' >"$conf"
must "(re)start pmemramd with no claim" systemctl restart pmemramd.service
printf '[claim "ram"]\nmatch = cxl-memdev:%s\ncreate-region = ram\n' "$serial" >"$conf"
pmemramctl plan --json >"$PMEMRAM_OUT/plan.json"
is "pmemramctl plan: a RAM region of mem0, 512 MiB on decoder0.0, destroying nothing" \
	"$(jq -r '.actions[0] | "\(.action) \(.device) \(.mode) \(.size) \(.root_decoder) \(.uuid) \(.destroys_data)"' \
		"$PMEMRAM_OUT/plan.json")" \
	"create-cxl-region mem0 ram 536870912 decoder0.0 null false"
is "a plan makes nothing" "$(cxl_regions)" ""

t0=$EPOCHREALTIME
must "reload pmemramd with create-region = ram" systemctl reload pmemramd.service
# shellcheck disable=SC2016 # expanded by wait_for
ok "a RAM region of mem0 and its dax device appear" \
	wait_for 60 'R=$(cxl_regions) && [ -n "$R" ] && [ -n "$(cxl_region_dax "$R")" ]'
R=$(cxl_regions)
D=$(cxl_region_dax "$R")
[ -n "$D" ] || bail "no RAM region or no dax device in it"
nd=$(dev_blocks "$D" | grep -c .)
ok "$D online as Movable under the claim ($nd blocks)" \
	wait_for 60 '[ "$(dev_state "$D")" = "$nd online Movable" ]'
note "BENCH what=claim-to-online blocks=$nd ms=$(ms "$t0" "$EPOCHREALTIME")"
region=$(cxl list -R -r "$R") || bail "cxl list -R -r $R failed"
note "cxl list: $(jq -c '.[0]' <<<"$region")"
is "cxl list: $R is a RAM region of one way, 512 MiB" \
	"$(jq -r '.[0] | "\(.type) \(.interleave_ways) \(.size)"' <<<"$region")" "ram 1 536870912"
is "cxl list: mem0 is its target" "$(cxl list -R -T -r "$R" | jq -r '.[0].mappings[0].memdev')" mem0
ok "journal: pmemramd created $R" \
	sh -c "journalctl -u pmemramd -o cat | grep -q 'mem0: created CXL region $R on decoder0.0'"
ok "daemon: $D converged" wait_for 10 '[ "$(daemon_verdict "$D")" = "converged none" ]'
# Who bound kmem: the kernel at probe when udev loaded kmem for the device's
# modalias first (then pmemramd moved the blocks), else pmemramd, once the
# device's add went unanswered for 100 ms (then they came online as Movable).
by=pmemram
journalctl -u pmemramd -o cat | grep -q "^$D: bound to kmem" || by=kernel
is "status: onlined by $by, as the journal tells" \
	"$(pmemramctl status --json | jq -r --arg d "$D" '.dax_devices[] | select(.device == $d) | .onlined_by')" "$by"

must "restart pmemramd" systemctl restart pmemramd.service
must "pmemramctl reconcile" pmemramctl reconcile
is "no second region: $R is mem0's" "$(cxl_regions)" "$R"
is "daemon: $D still converged" "$(daemon_verdict "$D")" "converged none"

done_testing
