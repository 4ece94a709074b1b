#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# create = devdax cut short: a namespace already sized and named after the
# claim but not devdax yet (what a pmemramd killed between sizing the seed and
# enabling its dax device leaves; made here by hand with ndctl while pmemramd
# is stopped) is finished when pmemramd starts, keeping its UUID, and no other
# namespace is made although the region has free space.
set -u
. ./lib.sh

plan 8
conf=/etc/pmemram/pmemram.conf
nd=/sys/bus/nd/devices
ux=$(new_uuid) um=$(new_uuid)

dax_of() { ls "$nd/$(cat "$nd/$1/holder")" 2>/dev/null | grep -E '^dax[0-9]+\.[0-9]+$' | head -n 1; }
online() {
	local d
	[ "$(cat "$nd/$1/mode")" = dax ] || return 1
	d=$(dax_of "$1")
	[ -n "$d" ] && [ "$(dev_state "$d")" = "$(dev_blocks "$d" | grep -c .) online Movable" ]
}
sized_namespaces() { grep -lv '^0$' "$nd"/namespace*/size | grep -c .; }

must "initialise the label area" init_labels
must "stop pmemramd" systemctl stop pmemramd.service
X=$(mkns nsX fsdax 256M "$ux") || bail "cannot create namespace X"
nsX=$(jq -r .dev "$PMEMRAM_OUT/ns-nsX.json")
must "create a raw namespace named 'made'" \
	sh -c "ndctl create-namespace -r region0 -m raw -s 256M -n made -u $um >$PMEMRAM_OUT/ns-made.json"
ns=$(jq -r .dev "$PMEMRAM_OUT/ns-made.json")
must "disable $ns, as a creation cut short leaves it" ndctl disable-namespace "$ns"
free=$(cat "$nd/region0/max_available_extent")
count=$(sized_namespaces)
note "X=$nsX (unclaimed) made=$ns; $count namespaces, largest free extent $((free >> 20)) MiB"
printf '[claim "made"]\nmatch = region:region0\ncreate = devdax\n' >"$conf"
is "pmemramctl plan finishes $ns instead of creating one" \
	"$(pmemramctl plan --json | jq -r '[.actions[] | "\(.action) \(.device)"] | join(",")')" \
	"convert-namespace $ns"
must "start pmemramd" systemctl start pmemramd.service
ok "$ns becomes devdax, online as Movable" wait_for 60 "online $ns"
is "$ns keeps its UUID" "$(cat "$nd/$ns/uuid")" "$um"
is "no namespace was added" "$(sized_namespaces)" "$count"
is "the free extent is untouched" "$(cat "$nd/region0/max_available_extent")" "$free"
pmemramctl reconcile >&2
is "a further reconcile has nothing to do" "$(pmemramctl plan --json | jq '.actions | length')" 0
is "the unclaimed $nsX is left fsdax" "$(cat "$nd/$nsX/mode") $(cat "$nd/$nsX/uuid")" "memory $ux"
ok "the journal records the conversion of $ns" \
	sh -c "journalctl -b -u pmemramd MESSAGE_ID=67eedf6a865f44a2b416f5d2b304988b PMEMRAM_DEVICE=$ns | grep -q 'converted to devdax'"

done_testing
