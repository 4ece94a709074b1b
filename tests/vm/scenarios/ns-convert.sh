#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# convert = yes on a claim by namespace UUID: a mounted fsdax namespace is
# refused and its file survives (checksum before and after); unmounted,
# held open by a process it is refused too; closed, pmemramd turns it into
# devdax, keeping its UUID, and onlines it as Movable.
# Conversions cut short by hand while pmemramd is stopped (a namespace
# disabled with its fsdax device still attached; a raw one given to a dax seed
# that was never enabled) are finished when it starts again, and an unclaimed
# fsdax namespace beside them is left alone.
set -u
. ./lib.sh

plan 23
conf=/etc/pmemram/pmemram.conf
ua=$(new_uuid) ub=$(new_uuid) uc=$(new_uuid) ud=$(new_uuid)
nd=/sys/bus/nd/devices

# ns_of NAME: the namespace ndctl created as nsNAME (mkns / make_raw).
ns_of() { jq -r .dev "$PMEMRAM_OUT/ns-$1.json"; }
claim() { printf '[claim "%s"]\nmatch = uuid:%s\nconvert = yes\n' "$1" "$2"; }

must "initialise the label area" init_labels
must "stop pmemramd" systemctl stop pmemramd.service

# (a) A mounted fsdax namespace with a file on it.
A=$(mkns nsA fsdax 384M "$ua") || bail "cannot create namespace A"
nsA=$(ns_of nsA)
must "make an ext4 file system on /dev/$A" mkfs.ext4 -q -F "/dev/$A"
mkdir -p /mnt/a
must "mount /dev/$A" mount "/dev/$A" /mnt/a
must "write a file" sh -c 'head -c 16M /dev/urandom >/mnt/a/data && sync'
sum=$(sha256sum </mnt/a/data)
claim conv "$ua" >"$conf"
must "start pmemramd with a convert claim on $nsA" systemctl start pmemramd.service
must "reconcile with /dev/$A mounted" pmemramctl reconcile
is "daemon: the mounted $nsA is refused" "$(daemon_verdict "$nsA")" "refused mounted"
ok "the refusal is in the journal with PMEMRAM_REASON=mounted" \
	sh -c "journalctl -b -u pmemramd -o verbose PMEMRAM_DEVICE=$nsA | grep -q PMEMRAM_REASON=mounted"
is "$nsA is still fsdax" "$(cat "$nd/$nsA/mode")" memory
ok "/dev/$A is still mounted" findmnt -n "/dev/$A"
must "unmount /dev/$A" umount /mnt/a
must "mount /dev/$A again (read from the media)" mount "/dev/$A" /mnt/a
is "the file's checksum is unchanged" "$(sha256sum </mnt/a/data)" "$sum"

# (b) Unmounted but held open by a process without O_EXCL (as dd or a
# database would): refused, which libndctl's exclusive open alone would miss.
must "unmount /dev/$A" umount /mnt/a
exec 3<"/dev/$A"
must "reconcile with /dev/$A open" pmemramctl reconcile
is "daemon: $nsA open by this shell is refused" "$(daemon_verdict "$nsA")" "refused blockdev-busy"
is "$nsA is still fsdax while open" "$(cat "$nd/$nsA/mode")" memory
exec 3<&-

# (c) Closed: the plan says it destroys the data, and the daemon converts.
ok "pmemramctl plan says the conversion destroys the data" \
	sh -c "pmemramctl plan | grep -q '$nsA: convert to devdax, DESTROYING ALL ITS DATA (uuid $ua)'"
ok "pmemramctl plan --json marks it destroys_data" \
	sh -c "pmemramctl plan --json | jq -e '.actions[] | select(.device == \"$nsA\") | .destroys_data'"
must "reconcile with /dev/$A closed" pmemramctl reconcile
ok "$nsA becomes devdax and its memory online as Movable" wait_for 60 "ns_online $nsA"
is "$nsA keeps its UUID" "$(cat "$nd/$nsA/uuid")" "$ua"
daxA=$(dax_of "$nsA")
note "$nsA -> $daxA: $(dev_state "$daxA")"
is "daxctl lists $daxA as system-ram" "$(daxctl list -d "$daxA" | jq -r '.[0].mode // .mode')" system-ram
is "daemon: $daxA converged, claimed by UUID" "$(daemon_verdict "$daxA")" "converged none"
ok "the journal has the namespace-converted event for $nsA" \
	sh -c "journalctl -b -u pmemramd MESSAGE_ID=67eedf6a865f44a2b416f5d2b304988b PMEMRAM_DEVICE=$nsA | grep -q 'converted to devdax'"

# (d) Cut short by hand, pmemramd stopped.
must "stop pmemramd" systemctl stop pmemramd.service
B=$(mkns nsB fsdax 256M "$ub") || bail "cannot create namespace B"
nsB=$(ns_of nsB)
must "create raw namespace C" sh -c "ndctl create-namespace -r region0 -m raw -s 256M -n nsC -u $uc >$PMEMRAM_OUT/ns-nsC.json"
nsC=$(ns_of nsC)
D=$(mkns nsD fsdax 64M "$ud") || bail "cannot create namespace D"
nsD=$(ns_of nsD)
note "B=$nsB ($B) C=$nsC D=$nsD ($D, unclaimed)"
# B: disabled with its fsdax (pfn) device still attached: its pfn device
# unbound (ndctl disable-namespace would detach the pfn device too).
pfnB=$(cat "$nd/$nsB/holder")
must "unbind $pfnB, the fsdax device of $nsB" sh -c "echo $pfnB >/sys/bus/nd/drivers/nd_pmem/unbind"
# C: disabled, given to the region's dax seed, which is never enabled.
must "disable $nsC" ndctl disable-namespace "$nsC"
seed=$(cat "$nd/region0/dax_seed")
must "configure dax seed $seed" sh -c "new=\$(cat /proc/sys/kernel/random/uuid) && echo \$new >$nd/$seed/uuid &&
	echo 2097152 >$nd/$seed/align && echo $nsC >$nd/$seed/namespace"
is "$nsB: fsdax through $pfnB, which is disabled" \
	"$(cat "$nd/$nsB/mode") $(ls "$nd/$pfnB/driver" >/dev/null 2>&1 && echo enabled || echo disabled) $(test -e "/dev/$B" && echo disk || echo no-disk)" \
	"memory disabled no-disk"
is "$nsC: devdax through $seed, which is not enabled" \
	"$(cat "$nd/$nsC/mode") $(cat "$nd/$nsC/holder") $(ls "$nd/$seed/driver" >/dev/null 2>&1 && echo enabled || echo disabled)" \
	"dax $seed disabled"
{ claim conv "$ua"; claim b "$ub"; claim c "$uc"; } >"$conf"
must "start pmemramd" systemctl start pmemramd.service
ok "$nsB is finished: devdax, online as Movable" wait_for 60 "ns_online $nsB"
ok "$nsC is finished: devdax, online as Movable" wait_for 60 "ns_online $nsC"
is "$nsB and $nsC keep their UUIDs" "$(cat "$nd/$nsB/uuid") $(cat "$nd/$nsC/uuid")" "$ub $uc"
is "the unclaimed $nsD is left fsdax" "$(cat "$nd/$nsD/mode") $(cat "$nd/$nsD/uuid")" "memory $ud"
ok "/dev/$D is still there" test -b "/dev/$D"
is "$nsA's memory is untouched" "$(dev_state "$daxA")" "$(dev_blocks "$daxA" | grep -c .) online Movable"
must "reconcile again" pmemramctl reconcile
is "a further reconcile has nothing to do" "$(pmemramctl plan --json | jq '.actions | length')" 0

done_testing
