#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package removed and purged while pmemramd manages onlined
# memory: the memory stays online (removal gives nothing back), the daemon,
# its unit, udev rule and programs go, and purge removes what pmemram wrote
# (pmemramctl's claim drop-in, the GRUB drop-in of hotplug apply, the class slice and its
# parent, /run/pmemram) and what dpkg
# owns (pmemram.conf), but keeps a drop-in the administrator wrote.  A new
# install afterwards works again.
set -u
. ./lib.sh

plan 22
dropins=/etc/pmemram/pmemram.conf.d
deb=/usr/lib/pmemram-test/pmemram.deb
uuid=$(new_uuid)

must "initialise the label area" init_labels
must "(re)start pmemramd on the configuration" systemctl restart pmemramd.service
must "pmemramctl claim tier" pmemramctl claim tier --uuid "$uuid"
claim_file=$dropins/50-pmemramctl-tier.conf
ok "pmemramctl wrote its drop-in" test -f "$claim_file"
printf '# the administrator'\''s own\n[class "bulk"]\nnodes = pmem\nprotect = 64M\n' >"$dropins/40-local.conf"
must "reload pmemramd" systemctl reload pmemramd.service
D=$(mkns nsD devdax 512M "$uuid") || bail "cannot create the namespace"
nd=$(dev_blocks "$D" | grep -c .)
ok "$D comes online" wait_for 60 '[ "$(dev_state "$D")" = "$nd online Movable" ]'
ok "pmemramd wrote the slice of class bulk" wait_for 30 '[ -f /run/systemd/system/pmemram-bulk.slice ]'
ok "and pmemram.slice, for its protect" test -f /run/systemd/system/pmemram.slice
# A GRUB machine (no update-grub in the guest: the drop-in is only written).
mkdir -p /etc/default
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"\n' >/etc/default/grub
printf '[global]\nhotplug-policy = offline\n' >"$dropins/30-hotplug.conf"
must "pmemramctl hotplug apply" pmemramctl hotplug apply
ok "it wrote pmemram's GRUB drop-in" test -f /etc/default/grub.d/61-pmemram-hotplug.cfg

DEBIAN_FRONTEND=noninteractive apt-get purge -y -q pmemram >"$PMEMRAM_OUT/apt-purge.txt" 2>&1
is "apt-get purge succeeds" "$?" 0
ok "dpkg -s says pmemram is not installed" sh -c '! dpkg -s pmemram >/dev/null 2>&1'
is "pmemramd is stopped" "$(systemctl is-active pmemramd.service)" inactive
is "$D stays online in full" "$(dev_state "$D")" "$nd online Movable"
ok "the programs are gone" test ! -e /usr/sbin/pmemramd -a ! -e /usr/sbin/pmemramctl
ok "the unit and the udev rules are gone" \
	test ! -e /lib/systemd/system/pmemramd.service -a ! -e /lib/udev/rules.d/60-pmemram.rules \
	-a ! -e /lib/udev/rules.d/95-pmemram-start.rules
ok "the enablement link is gone" test ! -e /etc/systemd/system/sysinit.target.wants/pmemramd.service
ok "pmemramctl's claim drop-in is gone" test ! -e "$claim_file"
ok "pmemram's GRUB drop-in is gone, /etc/default/grub kept" \
	test ! -e /etc/default/grub.d/61-pmemram-hotplug.cfg -a -f /etc/default/grub
ok "pmemram.conf (a conffile) is gone" test ! -e /etc/pmemram/pmemram.conf
ok "the administrator's drop-in is kept" test -f "$dropins/40-local.conf"
ok "the class slice is gone" test ! -e /run/systemd/system/pmemram-bulk.slice
ok "pmemram.slice is gone" test ! -e /run/systemd/system/pmemram.slice
ok "/run/pmemram is gone" test ! -e /run/pmemram

DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" >"$PMEMRAM_OUT/apt-reinstall.txt" 2>&1
is "a new install succeeds" "$?" 0
ok "it ships pmemram.conf again" test -f /etc/pmemram/pmemram.conf
ok "and starts pmemramd" wait_for 30 '[ "$(systemctl is-active pmemramd.service)" = active ]'

done_testing
