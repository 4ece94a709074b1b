#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pmemramctl doctor on a CXL memory expander: a memdev with volatile
# capacity and no region is a finding (cxl-memdev-no-region: its memory is
# nowhere) until a RAM region is made on it.  pmemramd is masked and
# auto-online turned off, so that nothing else is found.
set -u
. ./lib.sh

plan 7
cxl_modules_ok
must "mask pmemramd for the run" systemctl mask --runtime --now pmemramd.service
must "auto-online off" sh -c 'echo offline >/sys/devices/system/memory/auto_online_blocks'

# doctor_ids: "EXIT ID,ID,..." of doctor --json (ids sorted).
doctor_ids() {
	local out rc=0
	out=$(pmemramctl doctor --json) || rc=$?
	echo "$out" >>"$PMEMRAM_OUT/doctor.json"
	echo "$rc $(jq -r '[.findings[].id] | sort | join(",")' <<<"$out")"
}

is "mem0, 512 MiB of volatile memory and no region: cxl-memdev-no-region, exit 1" \
	"$(doctor_ids)" "1 cxl-memdev-no-region"
ok "the finding names mem0's serial" sh -c "pmemramctl doctor | grep 'cxl-memdev-no-region' | grep -qi '0x5eed0101'"
must "cxl create-region -t ram on mem0" cxl create-region -d decoder0.0 -t ram -m mem0
is "with its RAM region: no finding, exit 0" "$(doctor_ids)" "0 "

done_testing
