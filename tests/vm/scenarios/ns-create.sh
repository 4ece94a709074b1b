#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# create = devdax on a region claim: pmemramd makes one devdax namespace named
# after the claim over the region's free space and onlines it as Movable; a
# further reconcile makes nothing more, even once space is freed beside it;
# an unclaimed fsdax namespace in the region is left alone.
set -u
. ./lib.sh

plan 13
conf=/etc/pmemram/pmemram.conf
nd=/sys/bus/nd/devices
ux=$(new_uuid) uy=$(new_uuid)

# named NAME: the namespaces with label name NAME and a size, one per line.
named() {
	for f in "$nd"/namespace*/alt_name; do
		[ "$(cat "$f")" = "$1" ] && [ "$(cat "${f%/alt_name}/size")" != 0 ] && basename "${f%/alt_name}"
	done
}
# create_align: what a created namespace's size is a multiple of: the least
# common multiple of region0's alignment and 2 MiB times its interleave ways.
create_align() {
	local align step a b t
	align=$(($(cat "$nd/region0/align"))) step=$(((2 << 20) * $(cat "$nd/region0/mappings")))
	a=$align b=$step
	while [ "$b" -gt 0 ]; do t=$((a % b)) a=$b b=$t; done
	echo $((align / a * step))
}

must "initialise the label area" init_labels
must "stop pmemramd" systemctl stop pmemramd.service
X=$(mkns nsX fsdax 256M "$ux") || bail "cannot create namespace X"
Y=$(mkns nsY fsdax 64M "$uy") || bail "cannot create namespace Y"
nsX=$(jq -r .dev "$PMEMRAM_OUT/ns-nsX.json")
nsY=$(jq -r .dev "$PMEMRAM_OUT/ns-nsY.json")
free=$(cat "$nd/region0/max_available_extent")
align=$(create_align)
note "X=$nsX Y=$nsY (unclaimed); region0's largest free extent: $((free >> 20)) MiB, align $(cat "$nd/region0/align"), $(cat "$nd/region0/mappings") ways: $((align >> 20)) MiB"
: >"$conf"
ok "pmemramctl claim --create writes the claim and prints the creation planned" \
	sh -c "pmemramctl claim made --region region0 --create | grep -q \"^Plan for region0: create a devdax namespace 'made' of \""
ok "pmemramctl plan shows the creation" \
	sh -c "pmemramctl plan | grep -q \"region0: create devdax namespace 'made' over all its free space\""
must "start pmemramd with the create claim" systemctl start pmemramd.service
ok "a namespace named 'made' appears" wait_for 60 '[ -n "$(named made)" ]'
ns=$(named made)
ok "it is devdax, online as Movable" wait_for 60 "ns_online $ns"
dax=$(dax_of "$ns")
note "$ns -> $dax: $(dev_state "$dax"), size $(cat "$nd/$ns/size")"
is "it took the whole free extent, aligned down to $((align >> 20)) MiB" "$(cat "$nd/$ns/size")" "$((free / align * align))"
is "daemon: $dax converged" "$(daemon_verdict "$dax")" "converged none"
ok "the journal has the namespace-created event" \
	sh -c "journalctl -b -u pmemramd MESSAGE_ID=e582026fcc2740e19b6da973c568d23b | grep -q \"created devdax namespace $ns named 'made'\""

must "reconcile again" pmemramctl reconcile
is "a second reconcile creates nothing" "$(named made | grep -c .)" 1
# Free space beside it: the name still stands for the claim's namespace.
must "destroy the unclaimed $nsX" ndctl destroy-namespace -f "$nsX"
must "reconcile with $nsX gone" pmemramctl reconcile
is "with 256 MiB free again, still one namespace named 'made'" "$(named made | grep -c .)" 1
is "and the plan has nothing to do" "$(pmemramctl plan --json | jq '.actions | length')" 0
must "restart pmemramd" systemctl restart pmemramd.service
is "after a restart, still one" "$(named made | grep -c .)" 1
is "the unclaimed $nsY is left fsdax" "$(cat "$nd/$nsY/mode") $(cat "$nd/$nsY/uuid")" "memory $uy"
is "$dax is still online" "$(dev_state "$dax")" "$(dev_blocks "$dax" | grep -c .) online Movable"

done_testing
