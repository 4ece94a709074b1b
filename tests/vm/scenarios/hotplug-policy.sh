#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The hotplug policy over two boots on Debian 13's kernel (hmem-node: node 1
# all soft-reserved, which 6.12 hands to kmem at probe), with
# /etc/kernel/cmdline as the boot loader's configuration: the host boots the
# next kernel with exactly what the guest's file says (run.sh's
# out/next-cmdline).
#   boot 1: the distro default (auto_online_blocks "online"): the kernel
#           onlined the device in Normal.  With hotplug-policy = offline and a
#           Movable claim, pmemramctl hotplug, status, doctor and pmemramd all
#           report the policy as not applied and what the running kernel
#           does; apply writes memhp_default_state=offline, and the policy is
#           then pending a reboot.
#   boot 2: booted with it: the kernel added the device's blocks offline, the
#           claim onlined them Movable, the policy is in effect and nothing
#           is reported.
set -u
. ./lib.sh

conf=/etc/pmemram/pmemram.conf
range=40000000-4fffffff
id_drift=3ea7b969f2dc4fd09b6b2e0e6870e655
id_next=a72fa72d2b59409f8b330c8a0127bfa1

H=
for d in /sys/bus/dax/devices/dax*; do
	case $(realpath "$d") in */platform/hmem.*) H=$(basename "$d") ;; esac
done
[ -n "$H" ] || bail "no dax device below a hmem platform device"
nb=$(dev_blocks "$H" | grep -c .)
# field JQ-PATH: from pmemramctl hotplug --json.
field() { pmemramctl hotplug --json | jq -r "$1"; }
# finding ID JQ: JQ of doctor --json's finding ID, "none" without one; nothing when doctor
# prints no findings list.
finding() {
	pmemramctl doctor --json | jq -er --arg id "$1" "[.findings | if type == \"array\" then .[] else
		error(\"no findings list\") end | select(.id == \$id) | $2] | if length > 0 then .[] else \"none\" end"
}
events() { journalctl -b -u pmemramd -o verbose MESSAGE_ID="$1" | grep -c '^ *MESSAGE='; }

case ${PMEMRAM_BOOT:-1} in
1)
	plan 18
	# As an installer would: the running command line becomes the configured one.
	mkdir -p /etc/kernel /etc/pmemram
	cat /proc/cmdline >/etc/kernel/cmdline
	note "hmem device: $H; command line: $(cat /proc/cmdline)"
	is "the distro default: the kernel onlines what it adds" \
		"$(cat /sys/devices/system/memory/auto_online_blocks)" online
	is "the kernel bound $H to kmem at probe" "$(dev_driver "$H")" kmem
	is "and onlined its $nb blocks in Normal" "$(dev_state "$H")" "$nb online Normal"

	is "no configuration: policy keep, in effect" "$(field '"\(.policy) \(.state) \(.next_boot.policy)"')" \
		"keep in-effect default"
	ok "keep still says what the running kernel does, with the fix" \
		sh -c "pmemramctl hotplug | grep -q 'the running kernel onlines the memory it adds itself (online): an unclaimed device.s too'"

	printf '[global]\nhotplug-policy = offline\n\n[claim "soft"]\nmatch = hmem:%s\n' "$range" >"$conf"
	must "(re)start pmemramd with the policy and a Movable claim" systemctl restart pmemramd.service
	is "policy offline: not applied, the running kernel's way named" \
		"$(field '"\(.state) \(.running.policy) \(.wanted_parameters.memhp_default_state)"')" "not-applied online offline"
	ok "the exposure names the claimed zone at risk" \
		sh -c "pmemramctl hotplug --json | jq -r .exposure | grep -q 'perhaps not into the zone claimed (Movable)'"
	is "status: the same state" "$(pmemramctl status --json | jq -r '.hotplug.state')" not-applied
	is "doctor: hotplug-pending, fix apply then reboot" "$(finding hotplug-pending .fix)" \
		"pmemramctl hotplug apply, then reboot"
	ok "pmemramd: hotplug-drift (not-applied) in the journal" \
		wait_for 10 "[ \"\$(events $id_drift)\" -ge 1 ] && journalctl -b -u pmemramd PMEMRAM_HOTPLUG_POLICY=not-applied -o cat | grep -q 'hotplug policy offline: not applied'"
	is "pmemramd's status: the same" \
		"$(pmemramctl status --json | jq -r '.daemon.daemon.hotplug_policy | "\(.policy) \(.state)"')" "offline not-applied"

	cp /etc/kernel/cmdline "$PMEMRAM_OUT/cmdline-before"
	ok "apply --dry-run says what it would write, writes nothing" sh -c \
		"pmemramctl hotplug apply --dry-run | grep -q 'would write hotplug parameters' && cmp -s /etc/kernel/cmdline $PMEMRAM_OUT/cmdline-before"
	ok "apply" pmemramctl hotplug apply
	note "$(pmemramctl hotplug)"
	is "the next boot's line gets memhp_default_state=offline, the rest kept" \
		"$(cat /etc/kernel/cmdline)" "$(cat "$PMEMRAM_OUT/cmdline-before") memhp_default_state=offline"
	is "pending a reboot" "$(field '"\(.state) \(.next_boot.policy) \(.pending)"')" "next-boot offline true"
	is "doctor: fix reboot" "$(finding hotplug-pending .fix)" reboot
	n=$(events $id_next)
	must "reload pmemramd" systemctl reload pmemramd.service
	ok "pmemramd: hotplug-next-boot in the journal" wait_for 10 "[ \"\$(events $id_next)\" -gt $n ]"
	is "a second apply changes nothing" "$(pmemramctl hotplug apply --json | jq -r '.apply.result')" "nothing to change"
	cp /etc/kernel/cmdline "$PMEMRAM_OUT/next-cmdline"
	touch "$PMEMRAM_OUT/reboot-requested"
	;;
*)
	plan 8
	ok "this boot's command line is the configured one" grep -qw 'memhp_default_state=offline' /proc/cmdline
	is "the kernel leaves what it adds offline" "$(cat /sys/devices/system/memory/auto_online_blocks)" offline
	is "$H is on kmem (bound at probe)" "$(dev_driver "$H")" kmem
	ok "pmemramd onlined the claim's $nb blocks Movable" \
		wait_for 60 "[ \"\$(dev_state $H)\" = \"$nb online Movable\" ]"
	is "the claim converged" "$(daemon_verdict "$H")" "converged none"
	is "the policy is in effect" "$(field '"\(.state) \(.running.policy) \(.exposure)"')" "in-effect offline null"
	is "doctor: no hotplug-pending" "$(finding hotplug-pending .id)" none
	is "pmemramd logged no drift and nothing pending this boot" "$(events $id_drift) $(events $id_next)" "0 0"
	;;
esac
done_testing
