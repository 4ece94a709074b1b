#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark scenario (tests/bench/online-bench.sh reads its "# BENCH" lines; run.sh needs
# --maxmem 24G): a 16 GiB NVDIMM hot-added after boot, 125 blocks of 128 MiB, brought online as
# Movable RAM the three ways of bench-online.sh, BENCH_TRIALS times each, per block; then
# pmemramctl udev-online without the daemon, through the real udev rule, on that device and on
# the boot NVDIMM's 7 blocks, whose per-block cost it must match (linear in blocks).
#   BENCH_TRIALS      trials per method (default 3)
#   BENCH_LARGE_MIB   size of the hot-added NVDIMM in MiB (default 16384)
set -u
. ./lib.sh

trials=${BENCH_TRIALS:-3}
size_mib=${BENCH_LARGE_MIB:-16384}
plan $((5 * trials + 3))

reply=$(host_request nvdimm-add big "$size_mib" 2) || bail "hot-add failed: $reply"
ok "region1 appears" wait_for 60 '[ -d /sys/bus/nd/devices/region1 ]'
nmem=$(cut -d, -f1 /sys/bus/nd/devices/region1/mapping0)
must "prepare region1's labels" sh -c "ndctl disable-region region1 && ndctl init-labels $nmem && ndctl enable-region region1"
ndctl create-namespace -r region1 -m devdax -a 2M >"$PMEMRAM_OUT/ns-big.json" ||
	bail "cannot create a devdax namespace on region1"
dev=$(jq -r '.daxregion.devices[0].chardev' "$PMEMRAM_OUT/ns-big.json")
blocks=$(dev_blocks "$dev")
n=$(echo "$blocks" | grep -c .)
must "create the boot NVDIMM's devdax namespace" ndctl create-namespace -f -e namespace0.0 -m devdax -a 2M
small=dax0.0
small_blocks=$(dev_blocks "$small")
n_small=$(echo "$small_blocks" | grep -c .)
note "BENCH device=$dev blocks=$n block_mb=$(($(block_size) >> 20))"

must "load kmem" modprobe kmem
mkdir -p /etc/pmemram
printf '[claim "big"]\nmatch = device:%s\n[claim "small"]\nmatch = device:%s\n' "$dev" "$small" \
	>/etc/pmemram/pmemram.conf
must "start pmemramd" systemctl restart pmemramd.service
# Hold both: the daemon leaves them alone while the others work on them.
must "release $dev and $small to pmemramd's hold" sh -c "pmemramctl release $dev && pmemramctl release $small"

# shellcheck disable=SC2086 # one word per block
bench_methods "$dev" "$trials" $blocks

# udev-online without the daemon: the rule runs it once per block added offline.  The holds go
# with the daemon's runtime state; kmem is bound by hand, udev does the rest.
must "stop pmemramd" systemctl stop pmemramd.service
rm -f /run/pmemram/held
udev_online_ms() { # DEV BLOCKS...: bind kmem, wait for udev; ms on stdout
	local d=$1 t0 t1
	shift
	t0=$EPOCHREALTIME
	echo "$d" >/sys/bus/dax/drivers/device_dax/unbind &&
		echo "$d" >/sys/bus/dax/drivers/kmem/new_id || return 1
	udevadm settle --timeout=600 || return 1
	t1=$EPOCHREALTIME
	ms "$t0" "$t1"
}
for t in $(seq "$trials"); do
	for d in "$small" "$dev"; do
		if [ "$d" = "$dev" ]; then bl=$blocks k=$n; else bl=$small_blocks k=$n_small; fi
		took=$(udev_online_ms "$d") || bail "binding kmem to $d failed"
		is "trial $t, udev-online: $k blocks of $d online Movable" "$(dev_state "$d")" "$k online Movable"
		note "BENCH method=udev-online trial=$t ms=$took blocks=$k"
		# shellcheck disable=SC2086 # one word per block
		floor_off "$d" $bl || bail "cannot put $d back to devdax"
	done
done
ok "pmemramd stayed stopped" sh -c "! systemctl -q is-active pmemramd.service"

# The kernel's cost per block as the zone grows: one more bare-sysfs online, each block's write
# timed, with pmemramd stopped and nothing claimed (udev-online, run for each block, finds no
# claim and leaves).  With the node shuffled, a block's online must not cost more for the blocks
# already online (the first 10 blocks against the last 10).
: >/etc/pmemram/pmemram.conf
floor_bind "$dev" || bail "cannot bind kmem to $dev"
udevadm settle --timeout=600 || bail "udev did not settle after binding kmem to $dev"
# shellcheck disable=SC2086 # one word per block
online_timed $blocks
ok "the timed online brought all $n blocks online" test "${#per_block[@]}" -eq "$n"
note "BENCH per_block_ms $(cat /sys/kernel/mm/shuffle/enabled 2>/dev/null | sed 's/^/shuffled=/') order=$(cat /sys/kernel/mm/shuffle/order 2>/dev/null) ${per_block[*]}"
# shellcheck disable=SC2086 # one word per block
floor_off "$dev" $blocks || bail "cannot put $dev back to devdax"

done_testing
