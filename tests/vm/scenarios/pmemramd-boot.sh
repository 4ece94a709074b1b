#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot with a devdax namespace claimed by UUID: pmemramd (enabled, started by
# systemd before sysinit.target) has the memory online as Movable before
# multi-user.target, and daxctl, a client we did not write, agrees with
# pmemramctl status --json.  Two boots: the first prepares, the second checks.
set -u
. ./lib.sh

if [ "${PMEMRAM_BOOT:-1}" = 1 ]; then
	plan 3
	u=$(new_uuid)
	must "initialise the label area" init_labels
	dev=$(mkns boot devdax all "$u") || bail "cannot create the namespace"
	is "the namespace is devdax" "$(dev_driver "$dev")" device_dax
	mkdir -p /etc/pmemram
	printf '[claim "boot"]\nmatch = uuid:%s\n' "$u" >/etc/pmemram/pmemram.conf
	ok "enable pmemramd" systemctl enable pmemramd.service
	ok "pmemramd is wanted by sysinit.target" test -L /etc/systemd/system/sysinit.target.wants/pmemramd.service
	echo "$dev $u" >"$PMEMRAM_OUT/boot-device"
	touch "$PMEMRAM_OUT/reboot-requested"
	exit 0
fi

plan 13
read -r dev u <"$PMEMRAM_OUT/boot-device"
note "second boot: $dev, namespace $u"
n=$(dev_blocks "$dev" | grep -c .)

is "pmemramd is active" "$(systemctl is-active pmemramd.service)" active
is "$dev is bound to kmem" "$(dev_driver "$dev")" kmem
is "all $n blocks of $dev are online Movable" "$(dev_state "$dev")" "$n online Movable"

mono() { systemctl show -p ActiveEnterTimestampMonotonic --value "$1"; }
ready=$(mono pmemramd.service) sysinit=$(mono sysinit.target) multi=$(mono multi-user.target)
note "monotonic us: pmemramd ready $ready, sysinit.target $sysinit, multi-user.target $multi"
ok "pmemramd was ready before sysinit.target" test "$ready" -gt 0 -a "$ready" -le "$sysinit"
conv=$(journalctl -b -u pmemramd -o json | jq -r 'select(.MESSAGE | test("converged")) | .__MONOTONIC_TIMESTAMP' | head -n 1)
note "first converged reconcile at ${conv:-never} us"
ok "a converged reconcile was logged before multi-user.target" test -n "$conv" -a "${conv:-0}" -lt "$multi"
is "daemon: $dev converged under claim boot" \
	"$(pmemramctl status --json | jq -r --arg d "$dev" '.daemon.reconcile.plan.devices[] | select(.device == $d) | "\(.verdict) \(.claim)"')" \
	"converged boot"

# daxctl list -M against pmemramctl status --json.
daxctl list -M -d "$dev" >"$PMEMRAM_OUT/daxctl-list.json"
pmemramctl status --json >"$PMEMRAM_OUT/status.json"
dj() { jq -r ".[0].$1" "$PMEMRAM_OUT/daxctl-list.json"; }
pj() { jq -r --arg d "$dev" ".dax_devices[] | select(.device == \$d) | .$1" "$PMEMRAM_OUT/status.json"; }
is "mode: daxctl and pmemramctl agree" "$(pj mode)" "$(dj mode)"
is "target node: daxctl and pmemramctl agree" "$(pj target_node)" "$(dj target_node)"
is "size: daxctl and pmemramctl agree" "$(pj size_bytes)" "$(dj size)"
node=$(dj target_node)
is "online blocks: daxctl's online_memblocks = pmemramctl's Movable blocks of node $node" \
	"$(jq -r --argjson n "$node" '.memory.nodes[] | select(.node == $n) | .online.Movable' "$PMEMRAM_OUT/status.json")" \
	"$(dj online_memblocks)"
is "daxctl says movable" "$(dj movable)" true
is "the daemon's blocks_done = daxctl's total_memblocks" \
	"$(pmemramctl status --json | jq -r --arg d "$dev" '.daemon.reconcile.plan.devices[] | select(.device == $d) | .blocks_done')" \
	"$(dj total_memblocks)"

# The unit's sandbox, as the guest's systemd rates it (pmemramd(8) lists what is left and why);
# the daemon did its work above under it.
security=$(systemd-analyze security pmemramd.service 2>&1)
score=$(sed -n 's/.*Overall exposure level for pmemramd.service: \([0-9.]*\).*/\1/p' <<<"$security")
note "figure: systemd-analyze security pmemramd.service: ${score:-none}"
ok "systemd-analyze security rates pmemramd.service 3.0 or better (got ${score:-none})" \
	awk -v s="${score:-99}" 'BEGIN { exit !(s + 0 <= 3.0) }'

done_testing
