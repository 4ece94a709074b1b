#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shuffle policy on the patched kernel, which switches shuffling per node
# at runtime, over two boots with /etc/kernel/cmdline as the boot loader's
# configuration: the host boots the next kernel with exactly what the guest's
# /etc/kernel/cmdline says (run.sh's out/next-cmdline).
#   boot 1: HMAT shuffles node 1, policy auto is in effect; policy off,
#           apply switches node 1 off at once and writes nothing for the next
#           boot.  The administrator then adds page_alloc.shuffle=0.
#   boot 2: the kernel booted with =0 has every node forced off; policy on
#           cannot be applied: apply fails naming each node, pmemramd reports
#           each node once (shuffle-forced-off), and the administrator's =0
#           stays in /etc/kernel/cmdline.
set -u
. ./lib.sh

conf=/etc/pmemram/pmemram.conf
policy() { mkdir -p /etc/pmemram && printf '[global]\nshuffle = %s\n' "$1" >"$conf"; }
# field JQ-PATH: from pmemramctl shuffle --json.
field() { pmemramctl shuffle --json | jq -r "$1"; }
# count_off: the page_alloc.shuffle=0 words of /etc/kernel/cmdline (beside the row's =auto).
count_off() { tr ' ' '\n' </etc/kernel/cmdline | grep -c "^page_alloc\.shuffle=0$"; }
next_boot() {
	cp /etc/kernel/cmdline "$PMEMRAM_OUT/next-cmdline"
	touch "$PMEMRAM_OUT/reboot-requested"
}

id_forced=5e04ae9ae0cf406c806a28ebbfd80f45
node() { echo "$(cat "/sys/devices/system/node/node$1/shuffle/enabled") $(cat "/sys/devices/system/node/node$1/shuffle/reason")"; }
# write_refused FILE: writing 1 to FILE fails with EPERM.
write_refused() {
	local err
	err=$( (echo 1 >"$1") 2>&1) && return 1
	grep -q 'Operation not permitted' <<<"$err"
}
forced_events() { journalctl -b -u pmemramd -o verbose MESSAGE_ID=$id_forced "PMEMRAM_NODE=$1" | grep -c '^ *MESSAGE='; }

case ${PMEMRAM_BOOT:-1} in
1)
	plan 16
	# As an installer would: the running command line becomes the configured one.
	mkdir -p /etc/kernel
	cat /proc/cmdline >/etc/kernel/cmdline
	cp /etc/kernel/cmdline "$PMEMRAM_OUT/cmdline-before"
	is "HMAT shuffles node 1 only" "$(node 0), $(node 1), $(cat /sys/kernel/mm/shuffle/reason)" \
		"0 default-off, 1 hmat, hmat"
	is "no configuration: policy auto, in effect, switched at runtime" \
		"$(field '"\(.policy.policy) \(.policy.state) \(.policy.live)"')" "auto in-effect true"
	is "auto wants no parameter of pmemram's" "$(field .policy.wanted_parameter)" null
	is "status: node 1 has a 128 MiB direct-mapped cache and shuffled free lists" \
		"$(pmemramctl status --json | jq -r '.nodes[] | select(.node == 1) | .shuffle |
			"\(.direct_mapped) \(.cache_size_bytes) \(.shuffled) \(.reason) \(.pending)"')" \
		"true 134217728 true hmat null"

	policy off
	is "policy off: node 1 to stop, not applied yet" "$(field '"\(.policy.state) \(.nodes[1].action)"')" \
		"not-applied disable"
	ok "shuffle apply --dry-run changes nothing" sh -c \
		"pmemramctl shuffle apply --dry-run | grep -q 'node 1: would write 0' && [ \"\$(cat /sys/devices/system/node/node1/shuffle/enabled)\" = 1 ]"
	ok "shuffle apply" pmemramctl shuffle apply
	note "$(pmemramctl shuffle)"
	is "node 1 is no longer shuffled, at once" "$(node 1)" "0 sysfs"
	is "nothing is written for the next boot" "$(cat /etc/kernel/cmdline)" "$(cat "$PMEMRAM_OUT/cmdline-before")"
	# The next boot keeps the row's page_alloc.shuffle=auto, the kernel's opt-in, which the
	# installer's copy of the command line carries; pmemram writes nothing of its own.
	is "policy off is in effect" "$(field '"\(.policy.state) \(.policy.next_boot_parameter)"')" "in-effect auto"
	ok "shuffle says so per node" sh -c "pmemramctl shuffle | grep -q '^  node1   not shuffled (sysfs), in effect'"
	is "status: nothing pending on node 1" \
		"$(pmemramctl status --json | jq -r '.nodes[] | select(.node == 1) | "\(.shuffle.shuffled) \(.shuffle.pending)"')" \
		"false null"
	is "a second apply changes nothing" "$(pmemramctl shuffle apply --json | jq -r '.apply.result')" "nothing to change"
	must "(re)start pmemramd on the new policy" systemctl restart pmemramd.service
	is "pmemramd reports the policy in effect" \
		"$(pmemramctl status --json | jq -r '.daemon.daemon.shuffle_policy | "\(.policy) \(.state)"')" "off in-effect"
	ok "pmemramd logged it with PMEMRAM_SHUFFLE_POLICY=in-effect" \
		wait_for 10 'journalctl -b PMEMRAM_SHUFFLE_POLICY=in-effect -o cat | grep -q "shuffle policy off"'
	is "node 1 stays off" "$(node 1)" "0 sysfs"
	# The administrator forces shuffling off on the next boot's command line.
	echo "$(cat /etc/kernel/cmdline) page_alloc.shuffle=0" >/etc/kernel/cmdline
	next_boot
	;;
*)
	plan 11
	ok "this boot's command line is the administrator's" grep -qw 'page_alloc\.shuffle=0' /proc/cmdline
	is "every node is forced off" "$(node 0), $(node 1), $(cat /sys/kernel/mm/shuffle/reason)" \
		"0 forced-off, 0 forced-off, forced-off"
	is "policy off is in effect" "$(field '"\(.policy.policy) \(.policy.state) \(.policy.pending)"')" "off in-effect false"
	policy on
	is "policy on: nodes 0 and 1 forced off" "$(field '"\(.policy.state) \(.nodes[0].action) \(.nodes[1].action)"')" \
		"forced-off forced-off forced-off"
	pmemramctl shuffle apply >"$PMEMRAM_OUT/apply.out" 2>&1
	is "apply fails (exit status 4)" "$?" 4
	ok "apply names node 1 and why" grep -q 'node 1: forced off by page_alloc.shuffle=0 on the kernel command line' \
		"$PMEMRAM_OUT/apply.out"
	ok "the kernel refuses a write of its own (EPERM)" write_refused /sys/devices/system/node/node1/shuffle/enabled
	is "status: node 1 pending forced-off" \
		"$(pmemramctl status --json | jq -r '.nodes[] | select(.node == 1) | .shuffle.pending')" forced-off
	# apply had a running pmemramd reload (and report) already: count from the restart on.
	e0=$(forced_events 0) e1=$(forced_events 1)
	must "(re)start pmemramd with policy on" systemctl restart pmemramd.service
	ok "pmemramd reports node 1 as forced off (shuffle-forced-off)" \
		wait_for 20 "[ \"\$(forced_events 1)\" -gt $e1 ]"
	must "reconcile" pmemramctl reconcile
	must "reconcile again" pmemramctl reconcile
	# The shuffle policy is applied after a reconcile's reply; a status request to pmemramd runs
	# it first if it is still pending, and journald has stored what it logged once synced: the
	# count below misses no event.
	must "status from pmemramd" sh -c 'pmemramctl status --json | jq -e .daemon >/dev/null'
	must "sync the journal" journalctl --sync
	is "once per node, not again at each reconcile" "$(($(forced_events 0) - e0)) $(($(forced_events 1) - e1))" "1 1"
	is "the administrator's page_alloc.shuffle=0 stays" "$(count_off)" 1
	;;
esac
done_testing
