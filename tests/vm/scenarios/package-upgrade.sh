#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package upgraded while pmemramd manages onlined memory: apt
# installs a newer version of the same package (the image carries one,
# /usr/lib/pmemram-test/pmemram-upgrade.deb); the daemon is restarted by
# the maintainer scripts, no memory block goes offline at any point, the
# administrator's pmemram.conf stays as edited, and the new daemon converges
# on the device it inherits.
set -u
. ./lib.sh

plan 13
conf=/etc/pmemram/pmemram.conf
upgrade=/usr/lib/pmemram-test/pmemram-upgrade.deb
uuid=$(new_uuid)

old=$(dpkg-query -W -f '${Version}' pmemram)
new=$(dpkg-deb -f "$upgrade" Version)
note "installed $old, upgrade $new"
is "the image has the package installed" "$(dpkg-query -W -f '${db:Status-Abbrev}' pmemram)" "ii "
is "the unit is enabled by the package" "$(systemctl is-enabled pmemramd.service)" enabled

must "initialise the label area" init_labels
cat >>"$conf" <<EOC

# added by the package-upgrade scenario
[claim "tier"]
match = uuid:$uuid
EOC
sum=$(sha256sum <"$conf")
must "(re)start pmemramd on the configuration" systemctl restart pmemramd.service
D=$(mkns nsD devdax 512M "$uuid") || bail "cannot create the namespace"
nd=$(dev_blocks "$D" | grep -c .)
ok "$D comes online" wait_for 60 '[ "$(dev_state "$D")" = "$nd online Movable" ]'
ok "pmemramd converged on $D" wait_for 30 '[ "$(daemon_verdict "$D")" = "converged none" ]'
pid0=$(systemctl show -p MainPID --value pmemramd.service)

# Every memory uevent from here to the end; a "change" event we cause proves
# the monitor listens before the upgrade starts.
udevadm monitor --kernel --subsystem-match=memory >"$PMEMRAM_OUT/uevents.txt" 2>&1 &
mon=$!
first=$(dev_blocks "$D" | head -n 1)
ok "the uevent monitor sees memory events" wait_for 10 \
	'echo change >/sys/devices/system/memory/memory$first/uevent; grep -q "change.*memory$first" "$PMEMRAM_OUT/uevents.txt"'

DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$upgrade" >"$PMEMRAM_OUT/apt-upgrade.txt" 2>&1
is "apt-get install of the upgrade succeeds" "$?" 0
is "the new version is installed" "$(dpkg-query -W -f '${Version}' pmemram)" "$new"
ok "pmemramd runs again" wait_for 30 '[ "$(systemctl is-active pmemramd.service)" = active ]'
pid1=$(systemctl show -p MainPID --value pmemramd.service)
note "pmemramd pid $pid0 before, $pid1 after"
ok "the upgrade restarted pmemramd" test "$pid1" != "$pid0" -a "$pid1" != 0
ok "the new pmemramd converges on $D" wait_for 30 '[ "$(daemon_verdict "$D")" = "converged none" ]'
sleep 1
kill "$mon"
wait "$mon" 2>/dev/null
note "memory uevents during the upgrade: $(grep -c 'memory/memory' "$PMEMRAM_OUT/uevents.txt")"
is "no memory block went offline" "$(grep -c -E '^KERNEL\[.*\] (offline|remove) ' "$PMEMRAM_OUT/uevents.txt")" 0
is "$D is still online in full" "$(dev_state "$D")" "$nd online Movable"
is "pmemram.conf is as the administrator left it" "$(sha256sum <"$conf")" "$sum"

done_testing
