#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A machine configured for daxctl alone: a devdax namespace, a section for its
# UUID in /etc/daxctl.conf.d and no claim of pmemram's.  The UUID is the one
# daxctl matches: the info block's, ndctl's "uuid", not the label's that
# create-namespace -u sets.  Two more files name the same UUID with only
# movable, 40-bench-zone.conf true and 60-bench-zone.conf false: daxctl joins
# the files' values, reading the directory from the last name to the first,
# so 60's false counts (true, the default, would not show that either file
# was read); both are listed as merged.  After a reboot pmemramd has the
# device online in the zone the section asks for (movable = false: Normal),
# status and the journal name the section's FILE:LINE, and daxctl, a client
# we did not write, agrees.  Then 60 says movable = true and a claim of
# pmemram's for the same UUID says online = normal: a conflict the claim wins,
# the device converges under it and stays Normal.  (Not a claim asking for
# Movable: the run showed the device's Normal blocks holding slab pages, which
# cannot be offlined.)  What daxctl's own boot
# hook does is recorded in the output (daxctl-hook-boot1.txt, daxctl-hook.txt)
# and noted.  Seen on the bench's Debian 12 guest (daxctl 76): the rule
# /usr/lib/udev/rules.d/90-daxctl-device.rules adds RUN '/usr/bin/daxctl -C
# $env{DEVNAME}' for the dax device (udevadm test); that command, run by hand
# with the section in place, prints "Unknown option: -C" and exits 129, and
# the device stays devdax; no daxdev-reconfigure@.service exists; the second
# boot's journal has no line naming daxctl.
# Two boots: the first prepares, the second checks.
set -u
. ./lib.sh

conf=/etc/daxctl.conf.d/50-bench.conf
conf40=/etc/daxctl.conf.d/40-bench-zone.conf
conf60=/etc/daxctl.conf.d/60-bench-zone.conf
id_claim=37ed0d5058ef4298923dfd3c53dafb13
id_warning=e5672de3b0364cc199de2563aced8d85
id_conflict=df2217713add43b7af4146f3e9198fd7

if [ "${PMEMRAM_BOOT:-1}" = 1 ]; then
	plan 5
	u=$(new_uuid)
	must "initialise the label area" init_labels
	dev=$(mkns dax devdax all "$u") || bail "cannot create the namespace"
	is "the namespace is devdax" "$(dev_driver "$dev")" device_dax
	info=$(jq -r .uuid "$PMEMRAM_OUT/ns-dax.json")
	ok "ndctl's uuid ($info) is the info block's, not the label's ($u)" \
		sh -c "[ '$info' = \"\$(cat /sys/bus/dax/devices/$dev/../uuid)\" ] && [ '$info' != '$u' ]"
	mkdir -p /etc/daxctl.conf.d
	printf '# as daxctl-reconfigure-device(1) documents it\n[reconfigure-device bench]\nnvdimm.uuid = %s\nmode = system-ram\nonline = true\n' \
		"$info" >"$conf"
	printf '[reconfigure-device zone]\nnvdimm.uuid = %s\nmovable = true\n' "$info" >"$conf40"
	printf '[reconfigure-device zone]\nnvdimm.uuid = %s\nmovable = false\n' "$info" >"$conf60"
	ok "no claim of pmemram's own" sh -c "! grep -rqs '^\[claim' /etc/pmemram"
	# daxctl's own hook, by hand: the RUN its udev rule adds for the device, and that command
	# run as udev would run it, with the section in place.
	{
		echo "== udevadm test: RUN"
		udevadm test --action=add "/sys/bus/dax/devices/$dev" 2>&1 | grep -i -e 'daxctl' -e '^run:'
		echo "== /usr/bin/daxctl -C /dev/$dev"
		/usr/bin/daxctl -C "/dev/$dev"
		echo "exit status $?"
	} >"$PMEMRAM_OUT/daxctl-hook-boot1.txt" 2>&1
	while read -r line; do note "daxctl hook: $line"; done <"$PMEMRAM_OUT/daxctl-hook-boot1.txt"
	is "the device is still devdax after daxctl's hook command" "$(dev_driver "$dev")" device_dax
	ok "enable pmemramd" systemctl enable pmemramd.service
	echo "$dev $u $info" >"$PMEMRAM_OUT/boot-device"
	touch "$PMEMRAM_OUT/reboot-requested"
	exit 0
fi

plan 17
read -r dev u info <"$PMEMRAM_OUT/boot-device"
note "second boot: $dev, namespace $u, info block $info"
n=$(dev_blocks "$dev" | grep -c .)

# What daxctl's own hook did at this boot: its udev rule and the journal's lines about it.
{
	echo "== rules naming daxctl"
	grep -rs daxctl /lib/udev/rules.d /usr/lib/udev/rules.d /etc/udev/rules.d
	echo "== daxdev-reconfigure@.service"
	systemctl cat 'daxdev-reconfigure@.service' 2>&1
	echo "== journal"
	journalctl -b --no-pager -o short-monotonic | grep -i -e daxctl -e 'daxdev' -e "$dev" | grep -v pmemram
} >"$PMEMRAM_OUT/daxctl-hook.txt" 2>&1
while read -r line; do note "daxctl hook: $line"; done < <(head -n 20 "$PMEMRAM_OUT/daxctl-hook.txt")

is "pmemramd is active" "$(systemctl is-active pmemramd.service)" active
is "$dev is bound to kmem" "$(dev_driver "$dev")" kmem
is "all $n blocks of $dev are online Normal (movable = false, from $conf60)" "$(dev_state "$dev")" "$n online Normal"
is "daemon: $dev converged under claim daxctl:bench" \
	"$(pmemramctl status --json | jq -r --arg d "$dev" '.daemon.reconcile.plan.devices[] | select(.device == $d) | "\(.verdict) \(.claim)"')" \
	"converged daxctl:bench"
is "status --json: the sections, their FILE:LINE and their claim" \
	"$(pmemramctl status --json | jq -r '.daemon.daemon.daxctl[] | "\(.origin) \(.state) \(.claim)"' | tr '\n' ' ')" \
	"$conf40:1 merged daxctl:bench $conf:2 claimed daxctl:bench $conf60:1 merged daxctl:bench "
pmemramctl status >"$PMEMRAM_OUT/status.txt" 2>&1
ok "status names $conf:2 as the claim's origin" \
	grep -qF "$conf:2: [reconfigure-device bench] claimed as 'daxctl:bench'" "$PMEMRAM_OUT/status.txt"
ok "plan lists the section too" sh -c "pmemramctl plan | grep -qF '$conf:2: [reconfigure-device bench] claimed'"
ok "the journal has the daxctl-claim event with PMEMRAM_ORIGIN=$conf:2" \
	sh -c "journalctl -b -u pmemramd -o verbose MESSAGE_ID=$id_claim | grep -qxF '    PMEMRAM_ORIGIN=$conf:2'"
ok "the journal warns that $conf40:3's movable is overridden by $conf60:3" \
	sh -c "journalctl -b -u pmemramd -o cat MESSAGE_ID=$id_warning | grep -qF '$conf40:3: key '\''movable'\'': also set for UUID $info at $conf60:3'"

daxctl list -M -d "$dev" >"$PMEMRAM_OUT/daxctl-list.json"
is "daxctl says mode system-ram" "$(jq -r '.[0].mode' "$PMEMRAM_OUT/daxctl-list.json")" system-ram
is "daxctl says not movable" "$(jq -r '.[0].movable' "$PMEMRAM_OUT/daxctl-list.json")" false
is "daxctl: all $n blocks online" "$(jq -r '.[0].online_memblocks' "$PMEMRAM_OUT/daxctl-list.json")" "$n"

# The section now asks for Movable and a claim of pmemram's for the same UUID for Normal: a
# conflict (not redundant, so 60's new value was read), and pmemram's claim is the one used.
printf '[reconfigure-device zone]\nnvdimm.uuid = %s\nmovable = true\n' "$info" >"$conf60"
printf '[global]\n[claim "mine"]\nmatch = uuid:%s\nonline = normal\n' "$info" >/etc/pmemram/pmemram.conf
ok "reload pmemramd" systemctl reload pmemramd.service
ok "the journal has the daxctl-conflict event naming $conf:2 and claim mine" \
	wait_for 10 "journalctl -b -u pmemramd -o verbose MESSAGE_ID=$id_conflict | grep -qxF '    PMEMRAM_ORIGIN=$conf:2'"
ok "status --json: the section is now a conflict with claim mine" \
	wait_for 10 "[ \"\$(pmemramctl status --json | jq -r '.daemon.daemon.daxctl[] | select(.section == \"bench\") | \"\\(.state) \\(.claim)\"')\" = 'conflict mine' ]"
# Its claim decides for the device now, and the blocks stay where the claim wants them.
ok "the daemon's verdict for $dev is converged under claim mine" \
	wait_for 60 "[ \"\$(pmemramctl status --json | jq -r --arg d $dev '.daemon.reconcile.plan.devices[] | select(.device == \$d) | \"\\(.verdict) \\(.claim)\"')\" = 'converged mine' ]"
is "all $n blocks of $dev are still online Normal (claim mine)" "$(dev_state "$dev")" "$n online Normal"

done_testing
