#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark scenario (tests/bench/online-bench.sh reads its "# BENCH" lines):
# the time to bring the NVDIMM's devdax device online as Movable RAM three
# ways, BENCH_TRIALS times each, in turns:
#   floor     bare sysfs writes: unbind device_dax, kmem new_id, online each block
#   daxctl    daxctl reconfigure-device --mode=system-ram
#   pmemramd  pmemramctl reclaim (the daemon reconciles: unbind, bind kmem
#             with the dax bus's driver files, online, verify every block)
# then, BENCH_TRIALS times, the time from the kernel's add uevent to the last block online with
# the daemon running, and the daemon's RSS and wakeups over an idle minute.
set -u
. ./lib.sh

trials=${BENCH_TRIALS:-5}
plan $((5 * trials + 4))
dev=dax0.0

must "create a devdax namespace over the whole region" ndctl create-namespace -f -e namespace0.0 -m devdax -a 2M
must "load kmem" modprobe kmem
mkdir -p /etc/pmemram
printf '[claim "bench"]\nmatch = device:%s\n' "$dev" >/etc/pmemram/pmemram.conf
must "(re)start pmemramd on the configuration" systemctl restart pmemramd.service
blocks=$(dev_blocks "$dev")
n=$(echo "$blocks" | grep -c .)
note "BENCH device=$dev blocks=$n block_mb=$(($(block_size) >> 20))"
# Hold the device: the daemon leaves it alone while the others work on it.
must "release $dev to pmemramd's hold" pmemramctl release "$dev"

bench_methods "$dev" "$trials" $blocks

# Where pmemramd's time went in its last reclaims (its own log line per reconcile).
journalctl -b -u pmemramd.service -o cat | grep 'actions done in' | tail -n 2 |
	sed 's/^/# BENCH breakdown: /'

# From the add uevent to the last block online, BENCH_TRIALS times: the namespace goes away and
# comes back while the daemon runs (and no longer holds the device).
# Waiting must not compete with pmemramd for the guest's two CPUs while it is timed: the last
# block's state read with builtins every 50 ms (read -t on a FIFO nobody writes sleeps without
# a fork), where wait_for would run dev_state's pipeline of a dozen processes every 200 ms.
mkfifo /run/bench-nap && exec {nap}<>/run/bench-nap
last_state=/sys/devices/system/memory/memory$(echo "$blocks" | tail -n 1)/state
for t in $(seq "$trials"); do
	[ "$t" = 1 ] || must "trial $t: release $dev" pmemramctl release "$dev"
	must "trial $t: disable the namespace" ndctl disable-namespace namespace0.0
	pmemramctl reclaim "$dev" >/dev/null 2>&1 || : # drop the hold
	uevents=$PMEMRAM_OUT/uevents.$t.txt
	udevadm monitor --kernel --subsystem-match=dax --subsystem-match=memory >"$uevents" &
	mon=$!
	sleep 0.5
	ndctl enable-namespace namespace0.0 >/dev/null 2>&1 || bail "trial $t: cannot enable the namespace"
	for _ in $(seq 1200); do
		read -r st <"$last_state" 2>/dev/null && [ "$st" = online ] && break
		read -r -t 0.05 -u "$nap" || :
	done
	ok "trial $t: the uevent path brought $dev online" wait_for 60 '[ "$(dev_state "$dev")" = "$n online Movable" ]'
	kill "$mon"
	t_add=$(sed -n "s/^KERNEL\[\([0-9.]*\)\] add .*\/$dev (dax)$/\1/p" "$uevents" | head -n 1)
	# The kernel's online uevent of the device's last block to go online, and pmemramd's
	# "converged" once it verified every block.
	t_online=$(echo "$blocks" | sed 's/^/memory/' | grep -Fwf - "$uevents" |
		sed -n 's/^KERNEL\[\([0-9.]*\)\] online .*/\1/p' | tail -n 1)
	t_done=$([ -z "$t_add" ] || converged_after "$t_add")
	ok "trial $t: the add uevent, the blocks' online uevents and the converged reconcile were all seen" \
		test -n "$t_done" -a -n "$t_add" -a -n "$t_online"
	[ -z "$t_done" ] || [ -z "$t_add" ] || [ -z "$t_online" ] ||
		note "BENCH uevent trial=$t uevent_to_online_ms=$(ms "$t_add" "$t_done") uevent_to_last_block_online_ms=$(ms "$t_add" "$t_online")"
done

# The uevents that binding kmem and onlining sent while the daemon worked (a block's add and
# online, the device's bind) are its own echo: no reconcile follows the converged one.
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
