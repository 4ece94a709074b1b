#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A second NVDIMM hot-added through the QEMU monitor while pmemramd is not
# running: the dax device's add uevent starts pmemramd (95-pmemram-start.rules),
# which onlines the claimed region's memory as Movable.  Also the time from
# the kernel's add uevent to the last block online, and the reconcile that a
# uevent schedules for the end of the coalescing window: run when the window
# ends, dropped when a requested reconcile read the machine first.
set -u
. ./lib.sh

plan 12
bs=$(block_size)
mkdir -p /etc/pmemram
printf '[claim "hot"]\nmatch = region:region1\n' >/etc/pmemram/pmemram.conf
systemctl stop pmemramd.service 2>/dev/null
is "pmemramd is not running before the hot-add" "$(systemctl is-active pmemramd.service)" inactive
base_kb=$(meminfo_kb MemTotal)
ns0_state() { ndctl list -n namespace0.0 | jq -r '.[0] | "\(.mode) \(.size)"'; }
ns0_before=$(ns0_state)

reply=$(host_request nvdimm-add nvdimm1 $((4 * bs >> 20)) 2) || bail "hot-add failed: $reply"
ok "region1 appears" wait_for 60 '[ -d /sys/bus/nd/devices/region1 ]'
nmem=$(cut -d, -f1 /sys/bus/nd/devices/region1/mapping0)
must "disable region1" ndctl disable-region region1
must "initialise the labels of $nmem" ndctl init-labels "$nmem"
must "enable region1" ndctl enable-region region1

udevadm monitor --kernel --subsystem-match=dax >"$PMEMRAM_OUT/uevents.txt" &
mon=$!
sleep 0.5
ndctl create-namespace -r region1 -m devdax -a 2M -s $((3 * bs)) >"$PMEMRAM_OUT/ns-hot.json" ||
	bail "cannot create a devdax namespace on region1"
dev=$(jq -r '.daxregion.devices[0].chardev' "$PMEMRAM_OUT/ns-hot.json")
n=$(dev_blocks "$dev" | grep -c .)
note "$dev on region1, $n whole blocks"
ok "all $n blocks of $dev came online as Movable" wait_for 60 '[ "$(dev_state "$dev")" = "$n online Movable" ]'
kill "$mon" 2>/dev/null
t_add=$(sed -n "s/^KERNEL\[\([0-9.]*\)\] add .*\/$dev (dax)$/\1/p" "$PMEMRAM_OUT/uevents.txt" | head -n 1)
# pmemramd logs "converged" once every block is verified online.
t_done=$([ -z "$t_add" ] || converged_after "$t_add")
ok "the add uevent and pmemramd's converged reconcile after it were both seen" test -n "$t_add" -a -n "$t_done"
[ -z "$t_done" ] || [ -z "$t_add" ] ||
	note "figure: add uevent to pmemramd's converged reconcile (daemon started by the uevent): $(awk -v a="$t_add" -v d="$t_done" 'BEGIN { printf "%.0f", (d - a) * 1000 }') ms ($n blocks)"
is "pmemramd was started by the uevent" "$(systemctl is-active pmemramd.service)" active
is "daemon: $dev converged under claim hot" \
	"$(pmemramctl status --json | jq -r --arg d "$dev" '.daemon.reconcile.plan.devices[] | select(.device == $d) | "\(.verdict) \(.claim)"')" \
	"converged hot"
is "MemTotal grew by $dev's blocks" "$(meminfo_kb MemTotal)" "$((base_kb + n * bs / 1024))"
is "region0's namespace (unclaimed) was left as it was" "$(ns0_state)" "$ns0_before"

# A uevent within the coalescing window of the last reconcile's end (10 s here) schedules a
# reconcile for the window's end.  A reconcile requested before then reads what the uevent
# announced, and the scheduled one is dropped.
dropin=/run/systemd/system/pmemramd.service.d
mkdir -p "$dropin"
printf '[Service]\nExecStart=\nExecStart=%s --coalesce-ms 10000\n' "$(command -v pmemramd)" >"$dropin/coalesce.conf"
systemctl daemon-reload
must "restart pmemramd with a coalescing window of 10 s" systemctl restart pmemramd.service
# A requested reconcile (r0: the count with it), then a change uevent of $dev, read by the
# daemon well within the window.
uevent_in_window() {
	local u
	pmemramctl reconcile >/dev/null || return 1
	r0=$(daemon_count reconciles)
	u=$(daemon_count uevents)
	udevadm trigger --action=change "/sys/bus/dax/devices/$dev" || return 1
	wait_for 4 '[ "$(daemon_count uevents)" -gt "$u" ]'
}
must "a change uevent of $dev in a requested reconcile's window" uevent_in_window
is "the uevent's reconcile waits for the window's end" "$(daemon_count reconciles)" "$r0"
sleep 11
is "with no request, it ran at the window's end" "$(daemon_count reconciles)" $((r0 + 1))
must "again a change uevent of $dev in a requested reconcile's window" uevent_in_window
is "the uevent's reconcile waits again" "$(daemon_count reconciles)" "$r0"
must "a reconcile requested while it waits" pmemramctl reconcile
sleep 11
is "the waiting reconcile was dropped: the requested one read the machine after the uevent" \
	"$(daemon_count reconciles)" $((r0 + 1))
rm -r "$dropin"
systemctl daemon-reload
must "restart pmemramd as installed" systemctl restart pmemramd.service

done_testing
