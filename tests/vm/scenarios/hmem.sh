#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Soft-reserved memory (hmem): 256 MiB of node 1 that memmap= turned into
# "Soft Reserved" is a dax device of hmem.0.  pmemramd claims it by physical
# range, onlines it as Movable (checked against daxctl list -M and the memory
# blocks), status says where it came from and who onlined it, release gives
# it back to device_dax and reclaim brings it online again, then once more
# with the device claimed by hmem:node=1; the NVDIMM's devdax namespace, which
# nothing claims, is left alone throughout.
set -u
. ./lib.sh

plan 43
dropins=/etc/pmemram/pmemram.conf.d
range=60000000-6fffffff

# The hmem device by its place in sysfs, whatever its name.
H=
for d in /sys/bus/dax/devices/dax*; do
	case $(realpath "$d") in */platform/hmem.*) H=$(basename "$d") ;; esac
done
[ -n "$H" ] || bail "no dax device below a hmem platform device"
note "hmem device: $H"
ok "/proc/iomem has $range as Soft Reserved" grep -q "^ *$range : Soft Reserved" /proc/iomem
is "$H starts on device_dax" "$(dev_driver "$H")" device_dax
is "$H targets node 1" "$(cat "/sys/bus/dax/devices/$H/target_node")" 1
nb=$(dev_blocks "$H" | grep -c .)
note "$H spans $nb memory blocks"
ok "$H spans at least one whole memory block" test "$nb" -ge 1

# The NVDIMM as a devdax namespace nothing claims.
N=$(ndctl create-namespace -f -e namespace1.0 -m devdax -a 2M | jq -r '.daxregion.devices[0].chardev')
if [ -z "$N" ] || [ "$N" = null ]; then bail "cannot make the NVDIMM a devdax namespace"; fi
note "NVDIMM device: $N"
is "$N is on device_dax" "$(dev_driver "$N")" device_dax

# status before any claim: the source of each, nobody's onlining
prov() { pmemramctl status --json | jq -r --arg d "$1" ".dax_devices[] | select(.device == \$d) | $2"; }
is "status: $H comes from hmem.0" "$(prov "$H" '"\(.source) \(.provider) \(.range) \(.target_node)"')" \
	"hmem hmem.0 0x60000000-0x6fffffff 1"
is "status: $N comes from an NVDIMM namespace" "$(prov "$N" '"\(.source) \(.namespace)"')" "nvdimm namespace1.0"
is "status: $H not online, by nobody" "$(prov "$H" '"\(.mode) \(.onlined_by)"')" "devdax null"

base_kb=$(meminfo_kb MemTotal)
mkdir -p "$dropins"
printf '[claim "soft"]\nmatch = hmem:%s\n' "$range" >"$dropins/50-hmem.conf"
must "reload pmemramd with the hmem claim" systemctl reload pmemramd.service
ok "$H comes online as Movable" wait_for 30 '[ "$(dev_state "$H")" = "$nb online Movable" ]'
is "daemon: $H converged" "$(daemon_verdict "$H")" "converged none"
is "daemon: matched by range" "$(pmemramctl status --json |
	jq -r --arg d "$H" '.daemon.reconcile.plan.devices[] | select(.device == $d) | "\(.claim) \(.matched_by)"')" \
	"soft hmem-range"

# daxctl's view (a client we did not write)
daxm=$(daxctl list -d "$H" -M)
echo "$daxm" >"$PMEMRAM_OUT/daxctl-online.json"
is "daxctl: $H in system-ram mode" "$(jq -r '.[0].mode' <<<"$daxm")" system-ram
is "daxctl: $H movable" "$(jq -r '.[0].movable' <<<"$daxm")" true
is "daxctl: every block online" "$(jq -r '"\(.[0].online_memblocks)/\(.[0].total_memblocks)"' <<<"$daxm")" "$nb/$nb"
is "the blocks belong to node 1" \
	"$(dev_blocks "$H" | while read -r b; do ls -d "/sys/devices/system/memory/memory$b/node1"; done | grep -c .)" "$nb"
is "MemTotal grew by the blocks" "$(meminfo_kb MemTotal)" "$((base_kb + nb * $(block_size) / 1024))"

# provenance, from pmemramctl and from the daemon's own reply
pmemramctl status --json >"$PMEMRAM_OUT/status-online.json"
is "status: onlined by pmemram, releasable" "$(prov "$H" '"\(.mode) \(.onlined_by) \(.releasable)"')" \
	"system-ram pmemram true"
is "daemon reply: $H's provenance" "$(pmemramctl status --json |
	jq -r --arg d "$H" '.daemon.dax_devices[] | select(.device == $d) | "\(.source) \(.range) \(.onlined_by)"')" \
	"hmem 0x60000000-0x6fffffff pmemram"
ok "human status says where $H came from" sh -c \
	"pmemramctl status | grep -q 'from hmem hmem.0, 0x60000000-0x6fffffff; onlined by pmemram, releasable'"
is "$N (unclaimed) is still on device_dax" "$(dev_driver "$N")" device_dax
is "daemon: $N ignored" "$(daemon_verdict "$N")" "ignored unclaimed"

# release: back to device_dax, held; reclaim: online again
ok "pmemramctl release $H" pmemramctl release "$H"
is "$H back on device_dax" "$(dev_driver "$H")" device_dax
is "daxctl: $H in devdax mode" "$(daxctl list -d "$H" -M | jq -r '.[0].mode')" devdax
is "MemTotal is back" "$(meminfo_kb MemTotal)" "$base_kb"
is "status: $H not onlined by anyone now" "$(prov "$H" '"\(.mode) \(.onlined_by)"')" "devdax null"
pmemramctl reconcile >/dev/null
is "a reconcile leaves the held $H alone" "$(daemon_verdict "$H")" "ignored held"
ok "pmemramctl reclaim $H" pmemramctl reclaim "$H"
ok "$H online again as Movable" wait_for 30 '[ "$(dev_state "$H")" = "$nb online Movable" ]'
is "daxctl: movable and every block online again" \
	"$(daxctl list -d "$H" -M | jq -r '"\(.[0].mode) \(.[0].movable) \(.[0].online_memblocks)/\(.[0].total_memblocks)"')" \
	"system-ram true $nb/$nb"
is "status: onlined by pmemram again" "$(prov "$H" .onlined_by)" pmemram
is "$N is still on device_dax" "$(dev_driver "$N")" device_dax
is "no memory block of $N exists" "$(dev_state "$N")" "$(dev_blocks "$N" | grep -c .) absent"

# the same device claimed by its target node, through one more release and reclaim
matched() { pmemramctl status --json |
	jq -r --arg d "$1" '.daemon.reconcile.plan.devices[] | select(.device == $d) | "\(.claim) \(.matched_by)"'; }
printf '[claim "soft"]\nmatch = hmem:node=1\n' >"$dropins/50-hmem.conf"
must "reload pmemramd with the node claim" systemctl reload pmemramd.service
ok "daemon: $H matched by node" wait_for 30 '[ "$(matched "$H")" = "soft hmem-node" ]'
is "daemon: $H converged under the node claim" "$(daemon_verdict "$H")" "converged none"
ok "pmemramctl release $H (node claim)" pmemramctl release "$H"
is "$H back on device_dax (node claim)" "$(dev_driver "$H")" device_dax
is "MemTotal is back (node claim)" "$(meminfo_kb MemTotal)" "$base_kb"
pmemramctl reconcile >/dev/null
is "the node claim leaves the held $H alone" "$(daemon_verdict "$H")" "ignored held"
ok "pmemramctl reclaim $H (node claim)" pmemramctl reclaim "$H"
ok "$H online again as Movable (node claim)" wait_for 30 '[ "$(dev_state "$H")" = "$nb online Movable" ]'
is "status: onlined by pmemram (node claim)" "$(prov "$H" '"\(.onlined_by) \(.releasable)"')" "pmemram true"
is "$N is still on device_dax (node claim)" "$(dev_driver "$N")" device_dax

done_testing
