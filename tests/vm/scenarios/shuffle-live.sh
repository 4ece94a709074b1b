#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pmemram following a kernel that switches shuffling per node at runtime
# (nodeN/shuffle/enabled): shuffle-nodes = 0 applied by pmemramctl, back to
# auto by pmemramd at its start, and a node that comes online later (the
# NVDIMM's node 2, onlined by a claim) given its state by the reconcile that
# onlined it.  Nothing is written to the boot configuration.  The walk that
# switching node 2 on makes is traced (shuffle:mm_shuffle_zone_order).
set -u
. ./lib.sh

conf=/etc/pmemram/pmemram.conf
# node N: "ENABLED REASON" of nodeN/shuffle.
node() { echo "$(cat "/sys/devices/system/node/node$1/shuffle/enabled") $(cat "/sys/devices/system/node/node$1/shuffle/reason")"; }
# shuffled N: nodes[N].shuffle "shuffled pending action" from pmemramctl status --json.
shuffled() {
	pmemramctl status --json |
		jq -r --argjson n "$1" '.nodes[] | select(.node == $n) | .shuffle | "\(.shuffled) \(.pending) \(.action)"'
}
field() { pmemramctl shuffle --json | jq -r "$1"; }
no_memory() { ! node_in_list "$1" "$(cat /sys/devices/system/node/has_memory)"; }

plan 29
ok "the kernel switches shuffling per node" test -e /sys/devices/system/node/node0/shuffle/enabled
is "at boot HMAT shuffles node 1 only" "$(node 0), $(node 1)" "0 default-off, 1 hmat"
mkdir -p /etc/kernel /etc/pmemram
cat /proc/cmdline >/etc/kernel/cmdline
cp /etc/kernel/cmdline "$PMEMRAM_OUT/cmdline-before"

printf '[global]\nshuffle-nodes = 0\n' >"$conf"
is "shuffle-nodes = 0: node 0 to shuffle, node 1 to stop" \
	"$(field '[.nodes[] | "\(.node):\(.action)"] | join(" ")')" "0:enable 1:disable"
dry=$(pmemramctl shuffle apply --dry-run)
note "$dry"
ok "the dry run says what it would write" grep -q 'node 0: would write 1 to node0/shuffle/enabled' <<<"$dry"
is "and writes nothing" "$(node 0), $(node 1)" "0 default-off, 1 hmat"
ok "shuffle apply" pmemramctl shuffle apply
note "$(pmemramctl shuffle)"
is "sysfs: node 0 shuffled, node 1 not, both by a runtime write" "$(node 0), $(node 1)" "1 sysfs, 0 sysfs"
is "summary: nodes 0" "$(cat /sys/kernel/mm/shuffle/nodes)" 0
is "status --json: node 0 shuffled, in effect" "$(shuffled 0)" "true null keep"
is "status --json: node 1 not shuffled, in effect" "$(shuffled 1)" "false null keep"
is "shuffle --json: nodes policy in effect, switched at runtime" \
	"$(field '"\(.policy.policy) \(.policy.shuffle_nodes) \(.policy.state) \(.policy.live) \(.policy.wanted_parameter)"')" \
	"nodes 0 in-effect true null"
ok "shuffle says in effect per node" sh -c "pmemramctl shuffle | grep -q '^  node1   not shuffled (sysfs), in effect'"
is "nothing written to the boot configuration" "$(cat /etc/kernel/cmdline)" "$(cat "$PMEMRAM_OUT/cmdline-before")"
is "a second apply changes nothing" "$(pmemramctl shuffle apply --json | jq -r .apply.result)" "nothing to change"

# Back to auto: pmemramd puts node 1 (direct-mapped cache) back at its start,
# and stops node 0 (no cache, shuffled by a runtime write).
printf '[global]\nshuffle = auto\n' >"$conf"
must "(re)start pmemramd with shuffle = auto" systemctl restart pmemramd.service
ok "pmemramd shuffles node 1 again" wait_for 20 '[ "$(node 1)" = "1 sysfs" ]'
is "and stops node 0" "$(node 0)" "0 sysfs"
ok "pmemramd logged it" \
	wait_for 10 'journalctl -b -u pmemramd -o cat | grep -q "shuffle policy auto: node 1 shuffled (its reason was sysfs)"'
is "pmemramd reports the policy in effect" \
	"$(pmemramctl status --json | jq -r '.daemon.daemon.shuffle_policy | "\(.policy) \(.state)"')" "auto in-effect"

# A node that gets memory later: the reconcile that onlines it gives it its state.
must "initialise the label area" init_labels
u=$(new_uuid)
printf '[global]\nshuffle-nodes = 1-2\n\n[claim "pmem"]\nmatch = uuid:%s\n' "$u" >"$conf"
must "mount tracefs" tracefs_mount
must "trace shuffle:mm_shuffle_zone_order from an empty buffer" shuffle_trace_start
swaps0=$(vmstat shuffle_swap)
must "(re)start pmemramd with shuffle-nodes = 1-2 and a claim" systemctl restart pmemramd.service
ok "node 2 has no memory yet" no_memory 2
D=$(mkns ns0 devdax 512M "$u") || bail "cannot create the namespace"
ok "pmemramd onlines $D on node 2" wait_for 30 '[ "$(dev_state "$D")" = "$(dev_blocks "$D" | grep -c .) online Movable" ]'
ok "and shuffles node 2" wait_for 20 '[ "$(node 2)" = "1 sysfs" ]'
is "nodes 1-2 shuffled, 0 not" "$(node 0), $(node 1), $(cat /sys/kernel/mm/shuffle/nodes)" "0 sysfs, 1 sysfs, 1-2"
is "status --json: node 2 shuffled, in effect" "$(shuffled 2)" "true null keep"

shuffle_trace_stop
swaps1=$(vmstat shuffle_swap)
cp $tracing/trace "$PMEMRAM_OUT/shuffle-trace.txt"
walks=$(shuffle_walks "$PMEMRAM_OUT/shuffle-trace.txt")
is "switching node 2 on walked its Movable zone once, at order $(cat /sys/kernel/mm/shuffle/order)" \
	"$(grep -c "^node=2 " <<<"$walks") $(grep -c "^node=2 zone=Movable *order=$(cat /sys/kernel/mm/shuffle/order) " <<<"$walks")" "1 1"
is "the walks' swaps add up to vmstat's shuffle_swap" \
	"$(awk '{for (i = 1; i <= NF; i++) if ($i ~ /^swaps=/) n += substr($i, 7)} END {print n + 0}' <<<"$walks")" \
	"$((swaps1 - swaps0))"
# The zone's span from /proc/zoneinfo, in pages.
span=$(awk '$1 == "Node" {n = $2 + 0; z = $4} n == 2 && z == "Movable" && $1 == "spanned" {print $2}' /proc/zoneinfo)
# The widest range walked on node 2: switching it on walks the whole zone.
widest=0
while read -r start end; do
	[ $((end - start)) -gt "$widest" ] && widest=$((end - start))
done < <(sed -n 's/^node=2 zone=Movable .* range=(\(0x[0-9a-f]*\) ~ \(0x[0-9a-f]*\)).*/\1 \2/p' <<<"$walks")
is "node 2's walk covered the zone's span ($span pages)" "$widest" "$span"
is "nothing walked node 0, which stays unshuffled" "$(grep -c '^node=0 ' <<<"$walks")" 0

# A writer switching node 2 in a loop: each change is logged, but those from sysfs rate limited
# (the kernel's default, 10 lines per 5 s), not one line each.
logged() { dmesg | grep -c 'shuffle: node 2: shuffling'; }
before=$(logged) t0=$(date +%s)
for i in $(seq 100); do
	echo 0 >/sys/devices/system/node/node2/shuffle/enabled
	echo 1 >/sys/devices/system/node/node2/shuffle/enabled
done
secs=$(($(date +%s) - t0)) lines=$(($(logged) - before))
note "200 switches of node 2 in $secs s logged $lines lines"
ok "200 switches of node 2 in $secs s logged at most 10 lines per 5 s, not 200 ($lines)" \
	test "$lines" -ge 1 -a "$lines" -le $((10 * (secs / 5 + 1))) -a "$lines" -lt 200
is "node 2 ends shuffled" "$(node 2)" "1 sysfs"
done_testing
