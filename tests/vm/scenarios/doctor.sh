#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pmemramctl doctor on a real machine: each finding made by the condition it
# names, and cleared with it.  pmemramd is masked for the run, so that
# nothing repairs a condition before doctor sees it.
#   - trixie: Debian 13's kernel onlines hot-added memory itself
#     (auto_online_blocks "online"): auto-online, a warning;
#   - a claim whose uuid no namespace has: claim-unmatched, an error;
#   - a devdax namespace daxctl onlined as Normal memory, claimed Movable:
#     zone-mismatch, an error naming daxctl's blocks;
#   - bookworm: Debian 12's daxctl -C udev hook with a daxctl.conf.d
#     section: daxctl-hook, a warning;
# and the exit status: 0 clean, 1 warnings only, 2 with an error.
set -u
. ./lib.sh

plan 8
dropins=/etc/pmemram/pmemram.conf.d
mkdir -p "$dropins"

# doctor_ids: run doctor --json; prints "EXIT ID,ID,..." (ids sorted).
doctor_ids() {
	local out rc=0
	out=$(pmemramctl doctor --json) || rc=$?
	echo "$out" >>"$PMEMRAM_OUT/doctor.json"
	echo "$rc $(jq -r '[.findings[].id] | sort | join(",")' <<<"$out")"
}

must "mask pmemramd for the run" systemctl mask --runtime --now pmemramd.service

auto=$(cat /sys/devices/system/memory/auto_online_blocks)
note "auto_online_blocks: $auto"
if [ "$PMEMRAM_PLATFORM" = trixie ]; then
	is "trixie, kernel onlines hot-added memory: auto-online, exit 1" "$(doctor_ids)" "1 auto-online"
else
	is "bookworm, nothing configured: no finding, exit 0" "$(doctor_ids)" "0 "
fi
must "auto-online off, as daxctl needs" sh -c 'echo offline >/sys/devices/system/memory/auto_online_blocks'
is "auto-online off: no finding, exit 0" "$(doctor_ids)" "0 "

ghost=$(new_uuid)
printf '[claim "ghost"]\nmatch = uuid:%s\n' "$ghost" >"$dropins/50-ghost.conf"
is "a claim that matches nothing: claim-unmatched, exit 2" "$(doctor_ids)" "2 claim-unmatched"
ok "its line names the claim" sh -c "pmemramctl doctor | grep -q 'claim-unmatched'"
rm -f "$dropins/50-ghost.conf"

u=$(new_uuid)
must "initialise the label area" init_labels
dev=$(mkns doc devdax all "$u") || bail "cannot create the namespace"
must "daxctl onlines $dev as Normal memory" daxctl reconfigure-device --mode=system-ram --no-movable "$dev"
printf '[claim "doc"]\nmatch = uuid:%s\n' "$u" >"$dropins/50-doc.conf"
is "claimed Movable, onlined Normal: zone-mismatch, exit 2" "$(doctor_ids)" "2 zone-mismatch"
ok "the finding names $dev" sh -c "pmemramctl doctor | grep 'zone-mismatch' | grep -q '$dev'"
rm -f "$dropins/50-doc.conf"

if [ "$PMEMRAM_PLATFORM" = bookworm ]; then
	mkdir -p /etc/daxctl.conf.d
	# movable = false: the section claims the device as daxctl left it (Normal), so the hook is the
	# only finding.
	printf '[reconfigure-device doc]\nnvdimm.uuid = %s\nmode = system-ram\nonline = true\nmovable = false\n' \
		"$(jq -r .uuid "$PMEMRAM_OUT/ns-doc.json")" >/etc/daxctl.conf.d/50-doc.conf
	is "Debian 12's daxctl -C hook with a section: daxctl-hook, exit 1" "$(doctor_ids)" "1 daxctl-hook"
	rm -f /etc/daxctl.conf.d/50-doc.conf
else
	ok "trixie's daxctl has -C: no daxctl-hook with a section" sh -c '
		mkdir -p /etc/daxctl.conf.d &&
		printf "[reconfigure-device doc]\nnvdimm.uuid = 0\nmode = system-ram\n" >/etc/daxctl.conf.d/50-doc.conf &&
		! pmemramctl doctor --json | jq -e ".findings[] | select(.id == \"daxctl-hook\")" >/dev/null;
		rc=$?; rm -f /etc/daxctl.conf.d/50-doc.conf; exit $rc'
fi
is "all cleared: exit 0" "$(doctor_ids)" "0 "

done_testing
