#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shuffle policy across boots, with /etc/kernel/cmdline as the boot
# loader's configuration: the host boots the next kernel with exactly what
# the guest's /etc/kernel/cmdline says (run.sh's out/next-cmdline).
#   boot 1: HMAT turns shuffling on, policy auto is in effect; policy off,
#           apply writes page_alloc.shuffle=0 and says "next boot".
#   boot 2: the kernel booted with =0 is forced off, in effect; policy on,
#           apply replaces =0 with =1, other words untouched.
#   boot 3: on by the command line, in effect; policy auto leaves the file
#           alone and reports the parameter as overriding the kernel.
set -u
. ./lib.sh

conf=/etc/pmemram/pmemram.conf
policy() { mkdir -p /etc/pmemram && printf '[global]\nshuffle = %s\n' "$1" >"$conf"; }
# field JQ-PATH: from pmemramctl shuffle --json.
field() { pmemramctl shuffle --json | jq -r "$1"; }
# words: the words of /etc/kernel/cmdline other than page_alloc.shuffle, sorted.
words() { tr ' ' '\n' </etc/kernel/cmdline | grep -v '^page_alloc\.shuffle' | grep . | sort; }
count() { tr ' ' '\n' </etc/kernel/cmdline | grep -c "^page_alloc\.shuffle"; }
next_boot() {
	cp /etc/kernel/cmdline "$PMEMRAM_OUT/next-cmdline"
	touch "$PMEMRAM_OUT/reboot-requested"
}

case ${PMEMRAM_BOOT:-1} in
1)
	plan 16
	# As an installer would: the running command line becomes the configured one.
	mkdir -p /etc/kernel
	cat /proc/cmdline >/etc/kernel/cmdline
	words >"$PMEMRAM_OUT/words"
	is "HMAT turned shuffling on" "$(cat /sys/kernel/mm/shuffle/enabled) $(cat /sys/kernel/mm/shuffle/reason)" "1 hmat"
	is "no configuration: policy auto, in effect" "$(field '"\(.policy.policy) \(.policy.state)"')" "auto in-effect"
	is "auto wants no parameter of pmemram's" "$(field .policy.wanted_parameter)" null
	is "status: node 1 has a 128 MiB direct-mapped cache and shuffled free lists" \
		"$(pmemramctl status --json | jq -r '.nodes[] | select(.node == 1) | .shuffle |
			"\(.direct_mapped) \(.cache_size_bytes) \(.shuffled) \(.reason) \(.pending)"')" \
		"true 134217728 true hmat null"

	policy off
	is "policy off: not applied yet" "$(field .policy.state)" not-applied
	ok "shuffle apply --dry-run changes nothing" sh -c \
		"out=\$(pmemramctl shuffle apply --dry-run) && echo \"\$out\" | grep -q 'would write' && ! grep -q page_alloc.shuffle /etc/kernel/cmdline"
	ok "shuffle apply" pmemramctl shuffle apply
	note "$(pmemramctl shuffle)"
	is "page_alloc.shuffle=0 is in /etc/kernel/cmdline once" "$(grep -o 'page_alloc\.shuffle=[^ ]*' /etc/kernel/cmdline)" \
		page_alloc.shuffle=0
	is "every other word is kept" "$(words)" "$(cat "$PMEMRAM_OUT/words")"
	is "it takes effect at next boot" "$(field '"\(.policy.state) \(.policy.next_boot_parameter)"')" "next-boot 0"
	ok "shuffle says so" sh -c "pmemramctl shuffle | grep -q 'takes effect at next boot (page_alloc.shuffle=0)'"
	is "status: node 1 has the change pending" \
		"$(pmemramctl status --json | jq -r '.nodes[] | select(.node == 1) | .shuffle.pending')" next-boot
	is "a second apply changes nothing" "$(pmemramctl shuffle apply --json | jq -r '.apply.result')" "nothing to change"
	is "the kernel still shuffles until then" "$(cat /sys/kernel/mm/shuffle/enabled)" 1
	must "(re)start pmemramd on the new policy" systemctl restart pmemramd.service
	is "pmemramd reports the policy pending too" \
		"$(pmemramctl status --json | jq -r '.daemon.daemon.shuffle_policy | "\(.policy) \(.state)"')" "off next-boot"
	ok "pmemramd logged it with PMEMRAM_SHUFFLE_POLICY=next-boot" \
		wait_for 10 'journalctl -b PMEMRAM_SHUFFLE_POLICY=next-boot -o cat | grep -q "shuffle policy off"'
	next_boot
	;;
2)
	plan 8
	ok "this boot's command line is what pmemram wrote" grep -qw 'page_alloc\.shuffle=0' /proc/cmdline
	is "shuffling is forced off" "$(cat /sys/kernel/mm/shuffle/enabled) $(cat /sys/kernel/mm/shuffle/reason)" "0 forced-off"
	is "policy off is in effect" "$(field '"\(.policy.policy) \(.policy.state) \(.policy.pending)"')" "off in-effect false"
	is "status: nothing pending on node 1" \
		"$(pmemramctl status --json | jq -r '.nodes[] | select(.node == 1) | "\(.shuffle.shuffled) \(.shuffle.pending)"')" \
		"false null"
	policy on
	ok "shuffle apply" pmemramctl shuffle apply
	is "=0 is replaced by =1, once" "$(count) $(grep -o 'page_alloc\.shuffle=[^ ]*' /etc/kernel/cmdline)" \
		"1 page_alloc.shuffle=1"
	is "every other word is kept" "$(words)" "$(cat "$PMEMRAM_OUT/words")"
	is "it takes effect at next boot" "$(field .policy.state)" next-boot
	next_boot
	;;
*)
	plan 5
	ok "this boot's command line is what pmemram wrote" grep -qw 'page_alloc\.shuffle=1' /proc/cmdline
	is "shuffling is on by the command line" "$(cat /sys/kernel/mm/shuffle/enabled) $(cat /sys/kernel/mm/shuffle/reason)" \
		"1 cmdline"
	is "policy on is in effect" "$(field '"\(.policy.state) \(.policy.running_parameter)"')" "in-effect 1"
	policy auto
	before=$(cat /etc/kernel/cmdline)
	is "auto: apply leaves /etc/kernel/cmdline alone" "$(pmemramctl shuffle apply >/dev/null && cat /etc/kernel/cmdline)" \
		"$before"
	ok "auto: the parameter is reported as overriding the kernel's decision" \
		sh -c "pmemramctl shuffle --json | jq -e '.policy.state == \"in-effect\" and (.policy.text | test(\"overrides\"))'"
	;;
esac
done_testing
