#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Soft-reserved memory on Debian 13's kernel (hmem-node: node 1 all
# soft-reserved): 6.12 hands hmem's dax device to kmem as it finds it and
# onlines the blocks itself, in the kernel's zone (auto_online_blocks
# "online").  pmemramd leaves it as it is while nothing claims it; claimed
# in the zone it is in, it is adopted as it is (onlined by the kernel);
# claimed as Movable, the move fails on a block that holds the kernel's own
# allocations (a memory-only node onlined at boot gets its kswapd and
# per-node structures there), reported with what to do, and no block is
# left offline.
set -u
. ./lib.sh

plan 11
dropins=/etc/pmemram/pmemram.conf.d
range=40000000-4fffffff

H=
for d in /sys/bus/dax/devices/dax*; do
	case $(realpath "$d") in */platform/hmem.*) H=$(basename "$d") ;; esac
done
[ -n "$H" ] || bail "no dax device below a hmem platform device"
note "hmem device: $H ($(realpath "/sys/bus/dax/devices/$H"))"
ok "/proc/iomem has $range as Soft Reserved" grep -q "^ *$range : Soft Reserved" /proc/iomem
is "$H targets node 1" "$(cat "/sys/bus/dax/devices/$H/target_node")" 1
is "the kernel bound $H to kmem at probe" "$(dev_driver "$H")" kmem
nb=$(dev_blocks "$H" | grep -c .)
kzone=$(dev_state "$H")
note "the kernel onlined it: $kzone"
is "the kernel onlined its $nb blocks in Normal" "$kzone" "$nb online Normal"

prov() { pmemramctl status --json | jq -r --arg d "$1" ".dax_devices[] | select(.device == \$d) | $2"; }
must "(re)start pmemramd with no claim" systemctl restart pmemramd.service
ok "daemon: $H ignored, unclaimed" wait_for 10 '[ "$(daemon_verdict "$H")" = "ignored unclaimed" ]'
is "status: onlined by the kernel, at probe" "$(prov "$H" '"\(.source) \(.mode) \(.onlined_by)"')" "hmem system-ram kernel"
is "its blocks stay as the kernel made them" "$(dev_state "$H")" "$kzone"

# Claimed in the zone it is in: nothing to do.
mkdir -p "$dropins"
printf '[claim "soft"]\nmatch = hmem:%s\nonline = normal\n' "$range" >"$dropins/50-hmem.conf"
since=@$(date +%s.%N)
must "reload pmemramd with a claim for Normal" systemctl reload pmemramd.service
ok "daemon: $H converged as it was" wait_for 10 '[ "$(daemon_verdict "$H")" = "converged none" ]'
is "pmemramd changed nothing: no action in the journal" \
	"$(journalctl -u pmemramd --since "$since" -o verbose PMEMRAM_DEVICE="$H" | grep -c '^ *PMEMRAM_ACTION=')" 0

# Claimed as Movable: a block with the kernel's own allocations cannot go offline.
printf '[claim "soft"]\nmatch = hmem:%s\n' "$range" >"$dropins/50-hmem.conf"
must "reload pmemramd with a claim for Movable" systemctl reload pmemramd.service
# shellcheck disable=SC2016 # expanded by wait_for
ok "daemon: the move of $H failed on a busy block, saying what to do" \
	wait_for 20 'pmemramctl status --json | jq -e --arg d "$H" ".daemon.reconcile.plan.devices[] |
		select(.device == \$d and .verdict == \"failed\") |
		.text | test(\"could not be offlined.*memhp_default_state=offline\")" >/dev/null'
note "verdict: $(pmemramctl status --json | jq -r --arg d "$H" '.daemon.reconcile.plan.devices[] | select(.device == $d) | .text')"
note "blocks: $(dev_state "$H")"
is "no block of $H is left offline" \
	"$(dev_blocks "$H" | while read -r b; do cat "/sys/devices/system/memory/memory$b/state"; done | sort -u)" online

done_testing
