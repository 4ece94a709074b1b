#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# create = devdax and namespaces already named after the claim.  One that
# pmemram did not make (an fsdax namespace named 'made' with another UUID,
# holding a file) is never taken: the region is refused name-taken and the
# file survives, checksum unchanged.  One sized, named after the claim and
# given the UUID pmemram derives from its name, but not devdax yet (what a
# pmemramd killed between sizing the seed and enabling its dax device leaves;
# made here by hand with ndctl while pmemramd is stopped) is finished when
# pmemramd starts, keeping its UUID, and no other namespace is made although
# the region has free space.
set -u
. ./lib.sh

plan 14
conf=/etc/pmemram/pmemram.conf
nd=/sys/bus/nd/devices
ux=$(new_uuid) uf=$(new_uuid)

sized_namespaces() { grep -lv '^0$' "$nd"/namespace*/size | grep -c .; }
# region_verdict: region0's "verdict reason: text" in pmemramctl plan --json.
region_verdict() {
	pmemramctl plan --json | jq -r '.devices[] | select(.device == "region0") | "\(.verdict) \(.reason): \(.text)"'
}

must "initialise the label area" init_labels
must "stop pmemramd" systemctl stop pmemramd.service
printf '[claim "made"]\nmatch = region:region0\ncreate = devdax\n' >"$conf"
# The UUID pmemram gives the claim's namespace, from the plan of an empty region.
um=$(pmemramctl plan --json | jq -r '.actions[] | select(.action == "create-namespace") | .uuid')
[[ $um =~ ^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]] ||
	bail "pmemramctl plan --json gives no version-8 UUID for the creation: '$um'"
X=$(mkns nsX fsdax 256M "$ux") || bail "cannot create namespace X"
nsX=$(jq -r .dev "$PMEMRAM_OUT/ns-nsX.json")

# (a) Someone's fsdax namespace named 'made', with a file on it, not mounted.
must "create an fsdax namespace named 'made' with another UUID" \
	sh -c "ndctl create-namespace -r region0 -m fsdax -s 256M -a 2M -n made -u $uf >$PMEMRAM_OUT/ns-foreign.json"
nsF=$(jq -r .dev "$PMEMRAM_OUT/ns-foreign.json")
F=$(jq -r .blockdev "$PMEMRAM_OUT/ns-foreign.json")
sum=$(file_put "$F" /mnt/f) || bail "cannot put a file system with a file on /dev/$F"
count=$(sized_namespaces)
note "X=$nsX (unclaimed) foreign=$nsF ($F); pmemram's UUID for 'made': $um; $count namespaces"
is "pmemramctl plan refuses region0 for $nsF" "$(region_verdict)" \
	"refused name-taken: region0 holds $nsF named 'made' that pmemram did not create; not creating another"
must "start pmemramd" systemctl start pmemramd.service
must "reconcile" pmemramctl reconcile
is "daemon: region0 refused name-taken" "$(daemon_verdict region0)" "refused name-taken"
is "$nsF is left fsdax with its UUID" "$(cat "$nd/$nsF/mode") $(cat "$nd/$nsF/uuid")" "memory $uf"
is "no namespace was added" "$(sized_namespaces)" "$count"
is "the file on $nsF is unchanged" "$(file_sum "$F" /mnt/f)" "$sum"

# (b) pmemram's own creation cut short, beside it.
must "stop pmemramd" systemctl stop pmemramd.service
must "create a raw namespace named 'made' with pmemram's UUID" \
	sh -c "ndctl create-namespace -r region0 -m raw -s 256M -n made -u $um >$PMEMRAM_OUT/ns-made.json"
ns=$(jq -r .dev "$PMEMRAM_OUT/ns-made.json")
must "disable $ns, as a creation cut short leaves it" ndctl disable-namespace "$ns"
free=$(cat "$nd/region0/max_available_extent")
count=$(sized_namespaces)
note "made=$ns; $count namespaces, largest free extent $((free >> 20)) MiB"
is "pmemramctl plan finishes $ns instead of creating one" \
	"$(pmemramctl plan --json | jq -r '[.actions[] | "\(.action) \(.device)"] | join(",")')" \
	"convert-namespace $ns"
must "start pmemramd" systemctl start pmemramd.service
ok "$ns becomes devdax, online as Movable" wait_for 60 "ns_online $ns"
is "$ns keeps its UUID" "$(cat "$nd/$ns/uuid")" "$um"
is "no namespace was added" "$(sized_namespaces)" "$count"
is "the free extent is untouched" "$(cat "$nd/region0/max_available_extent")" "$free"
must "reconcile" pmemramctl reconcile
is "a further reconcile has nothing to do" "$(pmemramctl plan --json | jq '.actions | length')" 0
is "the unclaimed $nsX is left fsdax" "$(cat "$nd/$nsX/mode") $(cat "$nd/$nsX/uuid")" "memory $ux"
is "$nsF is still fsdax, its file unchanged" "$(cat "$nd/$nsF/mode") $(file_sum "$F" /mnt/f)" "memory $sum"
ok "the journal records the conversion of $ns" \
	sh -c "journalctl -b -u pmemramd MESSAGE_ID=67eedf6a865f44a2b416f5d2b304988b PMEMRAM_DEVICE=$ns | grep -q 'converted to devdax'"

done_testing
