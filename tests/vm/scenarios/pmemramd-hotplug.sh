#!/bin/bash
# A second NVDIMM hot-added through the QEMU monitor while pmemramd is not
# running: the dax device's add uevent starts pmemramd (60-pmemram.rules),
# which onlines the claimed region's memory as Movable.  Also the time from
# the kernel's add uevent to the last block online.
set -u
. ./lib.sh

plan 8
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
# Poll for the last block; /proc/uptime and the uevent's stamp share a clock.
t_done=
for _ in $(seq 1500); do
	if [ "$(dev_state "$dev")" = "$n online Movable" ]; then
		t_done=$(cut -d' ' -f1 /proc/uptime)
		break
	fi
	sleep 0.02
done
kill "$mon" 2>/dev/null
t_add=$(sed -n "s/^KERNEL\[\([0-9.]*\)\] add .*\/$dev (dax)$/\1/p" "$PMEMRAM_OUT/uevents.txt" | head -n 1)
ok "all $n blocks of $dev came online as Movable" test -n "$t_done"
ok "the kernel's add uevent for $dev was seen" test -n "$t_add"
[ -z "$t_done" ] || [ -z "$t_add" ] ||
	note "figure: udev add event to last block online: $(awk -v a="$t_add" -v d="$t_done" 'BEGIN { printf "%.0f", (d - a) * 1000 }') ms ($n blocks, 20 ms polling)"
is "pmemramd was started by the uevent" "$(systemctl is-active pmemramd.service)" active
is "daemon: $dev converged under claim hot" \
	"$(pmemramctl status --json | jq -r --arg d "$dev" '.daemon.reconcile.plan.devices[] | select(.device == $d) | "\(.verdict) \(.claim)"')" \
	"converged hot"
is "MemTotal grew by $dev's blocks" "$(meminfo_kb MemTotal)" "$((base_kb + n * bs / 1024))"
is "region0's namespace (unclaimed) was left as it was" "$(ns0_state)" "$ns0_before"

done_testing
