#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pmemram's journal catalog in the guest: make install put it where
# journalctl reads catalogs, journalctl --update-catalog takes it, and
# journalctl -x explains the notices of a claimed devdax namespace coming
# online and being released with the catalog's text, the device and claim
# filled in from the entries' fields.
set -u
. ./lib.sh

plan 10
catalog=/usr/lib/systemd/catalog/pmemram.catalog
id_online=61745698b5354383ae18335c94945962
id_released=cf90abf3a7ed452e8f85b199715f7ebd
uuid=$(new_uuid)

ok "make install put the catalog in $catalog" test -s "$catalog"
# Debian runs this from a dpkg trigger; the image got the files by copy.
ok "journalctl --update-catalog takes it" journalctl --update-catalog
ok "the catalog database lists device-online" \
	sh -c "journalctl --list-catalog $id_online | grep -q '^$id_online pmemram: '"

must "initialise the label area" init_labels
mkdir -p /etc/pmemram
printf '[claim "cat"]\nmatch = uuid:%s\n' "$uuid" >/etc/pmemram/pmemram.conf
must "(re)start pmemramd on the configuration" systemctl restart pmemramd.service
D=$(mkns nsCat devdax 256M "$uuid") || bail "cannot create the claimed namespace"
n=$(dev_blocks "$D" | grep -c .)
note "claimed $D: $n blocks"
ok "$D (claimed) comes online" wait_for 30 '[ "$(dev_state "$D")" = "$n online Movable" ]'
ok "pmemramd logged device-online for $D as a notice" wait_for 10 \
	"journalctl -b -u pmemramd -o verbose MESSAGE_ID=$id_online PMEMRAM_DEVICE=$D | grep -q '^ *PRIORITY=5$'"

journalctl -b -x -u pmemramd --no-pager >"$PMEMRAM_OUT/journal-x.txt" 2>&1
sed -n "/$D: converged/,+12p" "$PMEMRAM_OUT/journal-x.txt" | sed 's/^/# /'
ok "journalctl -x shows the catalog's subject for $D" \
	grep -qF "Subject: Persistent memory $D is online as system RAM" "$PMEMRAM_OUT/journal-x.txt"
ok "... and its explanation, with the claim filled in" \
	grep -qF "claim \"cat\" matches" "$PMEMRAM_OUT/journal-x.txt"
ok "... and where to read more" grep -qF "Documentation: man:pmemramd(8)" "$PMEMRAM_OUT/journal-x.txt"

ok "pmemramctl release $D" pmemramctl release "$D"
ok "journalctl -x explains the release of $D" \
	sh -c "journalctl -b -x -u pmemramd MESSAGE_ID=$id_released PMEMRAM_DEVICE=$D |
		grep -qF 'Subject: pmemramd released $D'"

done_testing
