#!/bin/bash
# Benchmark scenario (tests/bench/online-bench.sh reads its "# BENCH" lines):
# the time to bring the NVDIMM's devdax device online as Movable RAM three
# ways, BENCH_TRIALS times each, in turns:
#   floor     bare sysfs writes: unbind device_dax, kmem new_id, online each block
#   daxctl    daxctl reconfigure-device --mode=system-ram
#   pmemramd  pmemramctl reclaim (the daemon reconciles: unbind, bind kmem
#             through libdaxctl, online, verify every block)
# then the time from the kernel's add uevent to the last block online with
# the daemon running, and the daemon's RSS and wakeups over an idle minute.
set -u
. ./lib.sh

trials=${BENCH_TRIALS:-5}
plan $((3 * trials + 6))
dev=dax0.0
drivers=/sys/bus/dax/drivers
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) * 1000 }'; }

must "create a devdax namespace over the whole region" ndctl create-namespace -f -e namespace0.0 -m devdax -a 2M
must "load kmem" modprobe kmem
mkdir -p /etc/pmemram
printf '[claim "bench"]\nmatch = device:%s\n' "$dev" >/etc/pmemram/pmemram.conf
must "start pmemramd" systemctl start pmemramd.service
blocks=$(dev_blocks "$dev")
n=$(echo "$blocks" | grep -c .)
note "BENCH device=$dev blocks=$n block_mb=$(($(block_size) >> 20))"
# Hold the device: the daemon leaves it alone while the others work on it.
must "release $dev to pmemramd's hold" pmemramctl release "$dev"

floor_on() {
	echo "$dev" >"$drivers/device_dax/unbind" &&
		echo "$dev" >"$drivers/device_dax/remove_id" 2>/dev/null
	echo "$dev" >"$drivers/kmem/new_id" || return 1
	[ -e "$drivers/kmem/$dev" ] || echo "$dev" >"$drivers/kmem/bind" || return 1
	for b in $blocks; do
		echo online_movable >"/sys/devices/system/memory/memory$b/state" || return 1
	done
}
floor_off() {
	for b in $blocks; do
		echo offline >"/sys/devices/system/memory/memory$b/state" || return 1
	done
	echo "$dev" >"$drivers/kmem/unbind" && echo "$dev" >"$drivers/kmem/remove_id" 2>/dev/null
	echo "$dev" >"$drivers/device_dax/new_id" 2>/dev/null
	[ -e "$drivers/device_dax/$dev" ] || echo "$dev" >"$drivers/device_dax/bind"
}

for t in $(seq "$trials"); do
	for method in floor daxctl pmemramd; do
		t0=$EPOCHREALTIME # microseconds, no fork inside the timed span
		case $method in
		floor) floor_on ;;
		daxctl) daxctl reconfigure-device --mode=system-ram "$dev" >/dev/null 2>&1 ;;
		pmemramd) pmemramctl reclaim "$dev" >/dev/null ;;
		esac
		rc=$?
		t1=$EPOCHREALTIME
		is "trial $t, $method: $n blocks online Movable" "$rc $(dev_state "$dev")" "0 $n online Movable"
		note "BENCH method=$method trial=$t ms=$(ms "$t0" "$t1")"
		case $method in
		floor) floor_off ;;
		daxctl) daxctl reconfigure-device --mode=devdax -f "$dev" >/dev/null 2>&1 ;;
		pmemramd) pmemramctl release "$dev" >/dev/null ;;
		esac || bail "cannot put $dev back to devdax after $method"
		[ "$(dev_driver "$dev")" = device_dax ] || bail "$dev not on device_dax after $method"
	done
done

# From the add uevent to the last block online: the namespace goes away and
# comes back while the daemon runs (and no longer holds the device).
must "disable the namespace" ndctl disable-namespace namespace0.0
must "drop the hold" sh -c "pmemramctl reclaim $dev >/dev/null 2>&1 || true"
udevadm monitor --kernel --subsystem-match=dax >"$PMEMRAM_OUT/uevents.txt" &
mon=$!
sleep 0.5
must "enable the namespace" ndctl enable-namespace namespace0.0
ok "the uevent path brought $dev online" wait_for 60 '[ "$(dev_state "$dev")" = "$n online Movable" ]'
kill "$mon"
t_add=$(sed -n "s/^KERNEL\[\([0-9.]*\)\] add .*\/$dev (dax)$/\1/p" "$PMEMRAM_OUT/uevents.txt" | head -n 1)
# The daemon logs "converged" once every block is verified online.
t_done=$([ -z "$t_add" ] || converged_after "$t_add")
ok "the add uevent and the converged reconcile after it were both seen" test -n "$t_done" -a -n "$t_add"
[ -z "$t_done" ] || [ -z "$t_add" ] || note "BENCH uevent_to_online_ms=$(ms "$t_add" "$t_done")"

# The uevents that binding kmem and onlining sent while the daemon worked (a block's add and
# online, the device's bind) are its own echo: no reconcile follows the converged one.
daemon_count() { pmemramctl status --json | jq -r ".daemon.daemon.$1"; }
r1=$(daemon_count reconciles)
sleep 2
r2=$(daemon_count reconciles)
note "BENCH echo_uevents=$(daemon_count uevents_echo) reconciles_after_converged=$((r2 - r1))"
is "no reconcile followed the converged one (its uevents were its own echo)" "$((r2 - r1))" 0
ok "the daemon counted echo uevents" test "$(daemon_count uevents_echo)" -gt 0

# Idle: RSS and wakeups (context switches) of the converged daemon.
pid=$(systemctl show -p MainPID --value pmemramd.service)
sleep 2
st() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$pid/status"; }
v0=$(st voluntary_ctxt_switches) n0=$(st nonvoluntary_ctxt_switches)
sleep 60
v1=$(st voluntary_ctxt_switches) n1=$(st nonvoluntary_ctxt_switches)
ok "pmemramd is still running after the idle minute" test -d "/proc/$pid"
dirty_kb=$(awk '$1 == "Private_Dirty:" { print $2 }' "/proc/$pid/smaps_rollup")
note "BENCH idle_seconds=60 rss_kb=$(st VmRSS) private_dirty_kb=$dirty_kb wakeups=$((v1 - v0 + n1 - n0)) voluntary=$((v1 - v0)) threads=$(st Threads)"
# sd-event wakes only for the watchdog: WatchdogSec=60 means a ping every 30 s.
ok "pmemramd does not poll when idle (at most the 2 watchdog pings and one spare)" test "$((v1 - v0 + n1 - n0))" -le 3

done_testing
