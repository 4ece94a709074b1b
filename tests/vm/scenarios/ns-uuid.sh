#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The two UUIDs of an fsdax namespace: ndctl list -N shows its info block's
# (its fsdax device's) as uuid, ndctl list -N -v its own as raw_uuid.  A claim
# by either matches it: plain, refused (namespace-mode) with nothing changed;
# with convert, converted and onlined, the dax device keeping the fsdax info
# block's UUID, so that the claim by it still matches afterwards.  A claim
# whose UUID matches nothing here is written with a warning.
set -u
. ./lib.sh

plan 19
nd=/sys/bus/nd/devices

# uuids NS: "UUID RAW_UUID" as ndctl list -N -v shows them.
uuids() { ndctl list -N -v -n "$1" | jq -r '(if type == "array" then .[0] else . end) | "\(.uuid) \(.raw_uuid)"'; }
# claim_verdict NS CLAIM: "VERDICT REASON" of NS under CLAIM in pmemramd's last plan.
claim_verdict() {
	pmemramctl status --json | jq -r --arg d "$1" --arg c "$2" \
		'.daemon.reconcile.plan.devices[]? | select(.device == $d and .claim == $c) | "\(.verdict) \(.reason)"'
}

must "initialise the label area" init_labels
ue=$(new_uuid) uf=$(new_uuid)
E=$(mkns nsE fsdax 256M "$ue") || bail "cannot create namespace E"
F=$(mkns nsF fsdax 256M "$uf") || bail "cannot create namespace F"
nsE=$(jq -r .dev "$PMEMRAM_OUT/ns-nsE.json") nsF=$(jq -r .dev "$PMEMRAM_OUT/ns-nsF.json")
must "start pmemramd" systemctl start pmemramd.service
read -r infoE rawE <<<"$(uuids "$nsE")"
read -r infoF rawF <<<"$(uuids "$nsF")"
note "$nsE ($E): uuid $infoE raw_uuid $rawE; $nsF ($F): uuid $infoF raw_uuid $rawF"
is "ndctl list -N -v: $nsE's raw_uuid is its own UUID" "$rawE" "$ue"
ok "ndctl list -N: $nsE's uuid is another one, its fsdax device's" test "$infoE" != "$ue" -a -n "$infoE"
is "that is the UUID of $nsE's fsdax device" "$(cat "$nd/$(cat "$nd/$nsE/holder")/uuid")" "$infoE"

# Plain claims by either UUID: matched, refused, nothing changed.
for u in "$infoE" "$ue"; do
	out=$(pmemramctl claim fs --uuid "$u" 2>&1)
	st=$?
	is "claim fs --uuid $u exits 0 without a warning that it matches nothing" \
		"$st $(grep -c 'matches no namespace' <<<"$out")" "0 0"
	ok "pmemramd refuses $nsE under claim fs: fsdax, convert = no" \
		wait_for 30 '[ "$(claim_verdict "$nsE" fs)" = "refused namespace-mode" ]'
done
is "$nsE is still fsdax with both UUIDs" "$(cat "$nd/$nsE/mode") $(uuids "$nsE")" "memory $infoE $ue"
must "unclaim fs" pmemramctl unclaim fs

# A UUID that matches nothing here: written, with the warning, and --json says so.
stray=$(new_uuid)
out=$(pmemramctl --json claim stray --uuid "$stray" 2>"$PMEMRAM_OUT/stray.err")
st=$?
is "claim stray --uuid (nothing has it) exits 0, --json matched false" "$st $(jq -r .matched <<<"$out")" "0 false"
ok "and warns that it matches no namespace or dax device" grep -q "UUID $stray matches no namespace or dax device" \
	"$PMEMRAM_OUT/stray.err"
must "unclaim stray" pmemramctl unclaim stray

# With convert, by the info block's UUID: converted, onlined, the UUIDs kept.
out=$(pmemramctl claim conv-e --uuid "$infoE" --convert --destroy-data 2>&1)
st=$?
is "claim conv-e --uuid (the info block's) --convert: exit 0, matched, the data loss said" \
	"$st $(grep -c 'matches no namespace' <<<"$out") $(grep -c 'DESTROYS' <<<"$out")" "0 0 1"
ok "$nsE becomes devdax and its memory online as Movable" wait_for 90 "ns_online $nsE"
is "ndctl list -N -v: $nsE keeps both UUIDs" "$(uuids "$nsE")" "$infoE $ue"
daxE=$(dax_of "$nsE")
ok "the claim by the info block's UUID still matches: $daxE converged under conv-e" \
	wait_for 30 '[ "$(claim_verdict "$daxE" conv-e)" = "converged none" ]'

# With convert, by its own UUID: the same.
must "claim conv-f --uuid (its own) --convert --destroy-data" \
	pmemramctl claim conv-f --uuid "$uf" --convert --destroy-data
ok "$nsF becomes devdax and its memory online as Movable" wait_for 90 "ns_online $nsF"
is "ndctl list -N -v: $nsF keeps both UUIDs" "$(uuids "$nsF")" "$infoF $uf"
daxF=$(dax_of "$nsF")
ok "$daxF converged under conv-f" wait_for 30 '[ "$(claim_verdict "$daxF" conv-f)" = "converged none" ]'
must "reconcile again" pmemramctl reconcile
is "a further reconcile has nothing to do" "$(pmemramctl plan --json | jq '.actions | length')" 0
is "no claim is unmatched" "$(pmemramctl status --json | jq -c '.daemon.reconcile.plan.unmatched_claims')" "[]"

done_testing
