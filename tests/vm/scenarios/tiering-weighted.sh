#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Weighted-interleave classes on Debian 13's kernel (nvdimm+hmat-direct:
# read bandwidth 10, 5 and 1 GB/s on nodes 0, 1 and 2; the NVDIMM claimed
# onto node 2):
#   weights = hmat over every node: pmemramd writes 10:5:1 to the kernel;
#   weights = 1:3,2:1: a 1 GiB buffer faulted under pmemramctl run lands 3:1
#     on nodes 1 and 2 (numa_maps; the figure, "# BENCH weighted", within 5%);
#   another writer changes a weight: pmemramd writes it back and says so;
#   a second class wanting another weight for the same node: refused, named.
# Prints "# BENCH weighted ..." for tests/bench/tier-bench.sh.  On Debian
# 12's 6.1, which has no weighted interleave, the class is reported as such
# and pmemramctl run refuses it.
set -u
. ./lib.sh

dir=/sys/kernel/mm/mempolicy/weighted_interleave
conf=/etc/pmemram/pmemram.conf
weights() { local n out=; for n in "$@"; do out+="${out:+,}$n:$(cat "$dir/node$n")"; done; echo "$out"; }
class_json() { pmemramctl classes --json | jq -r --arg c "$1" ".classes[] | select(.class == \$c) | $2"; }
events() { journalctl -b -u pmemramd -o verbose "PMEMRAM_CLASS=$1" MESSAGE_ID="$2" | grep -c '^ *MESSAGE='; }
id_changed=$(journalctl --list-catalog 2>/dev/null | awk '/interleave weight of node .* changed by another writer/ { print $1; exit }')
id_failed=$(journalctl --list-catalog 2>/dev/null | awk '/cannot put the interleave weights of class/ { print $1; exit }')
[ -n "$id_changed" ] && [ -n "$id_failed" ] || bail "the catalog has no class-weights entries"

if [ ! -d "$dir" ]; then
	plan 3
	mkdir -p /etc/pmemram
	printf '[class "wide"]\nnodes = all\nmode = weighted-interleave\n' >"$conf"
	must "(re)start pmemramd on the configuration" systemctl restart pmemramd.service
	ok "classes: the kernel has no weighted interleave" \
		sh -c "pmemramctl classes | grep -q 'the kernel has no weighted interleave (Linux 6.9 and later)'"
	out=$(pmemramctl run --class wide -- true 2>&1)
	is "run refuses the class (exit status 4)" "$?" 4
	ok "saying why" grep -q "class wide: the kernel has no weighted interleave" <<<"$out"
	done_testing
	exit
fi
plan 12
u=$(new_uuid)
must "initialise the label area" init_labels
dev=$(mkns tier devdax all "$u") || bail "cannot create the namespace"
mkdir -p /etc/pmemram
printf '[claim "tier"]\nmatch = uuid:%s\n\n[class "wide"]\nnodes = all\nmode = weighted-interleave\n' "$u" >"$conf"
must "(re)start pmemramd on the configuration" systemctl restart pmemramd.service
ok "$dev comes online on node 2" wait_for 120 "[ \"\$(dev_state $dev | cut -d' ' -f2-)\" = 'online Movable' ]"
ok "weights = hmat: pmemramd writes 10:5:1" wait_for 60 '[ "$(weights 0 1 2)" = 0:10,1:5,2:1 ]'
is "classes: in force, from the HMAT" "$(class_json wide '"\(.weights) \(.weights_in_effect)"')" "0:10,1:5,2:1 true"
is "pmemramd's status: the same weights" \
	"$(pmemramctl status --json | jq -r '.daemon.daemon.classes[] | select(.class == "wide") | .weights')" 0:10,1:5,2:1

# The figure: 1 GiB by 3:1 over nodes 1 and 2.
printf '[claim "tier"]\nmatch = uuid:%s\n\n[class "tiered"]\nnodes = 1,2\nmode = weighted-interleave\nweights = 1:3,2:1\n' \
	"$u" >"$conf"
must "reload pmemramd with weights = 1:3,2:1" systemctl reload pmemramd.service
ok "pmemramd writes 3 and 1" wait_for 60 '[ "$(weights 1 2)" = 1:3,2:1 ]'
line=$(pmemramctl run --class tiered -- /usr/lib/pmemram-test/tier-bench 1024 fault)
note "tier-bench: $line"
n1=$(sed -n 's/.*N1:\([0-9]*\).*/\1/p' <<<"$line")
n2=$(sed -n 's/.*N2:\([0-9]*\).*/\1/p' <<<"$line")
other=$(tr ' ,' '\n\n' <<<"${line#*nodes=}" | grep -v '^N[12]:' | paste -sd, -)
ratio=$(awk -v a="${n1:-0}" -v b="${n2:-0}" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "inf" }')
echo "# BENCH weighted mib=1024 weights=1:3,2:1 node1=${n1:-0} node2=${n2:-0} other=${other:-none} ratio=$ratio want=3 error_pct=$(awk -v r="$ratio" 'BEGIN { printf "%.2f", (r / 3 - 1) * 100 }')"
is "all of it on nodes 1 and 2" "$((${n1:-0} + ${n2:-0}))" $((1024 * 256))
ok "pages per node 3:1 within 5% (node 1 $n1, node 2 $n2: $ratio)" \
	awk -v r="$ratio" 'BEGIN { exit !(r >= 2.85 && r <= 3.15) }'

# Another writer.
n=$(events tiered "$id_changed")
echo 7 >"$dir/node1"
must "reconcile" pmemramctl reconcile
ok "pmemramd writes node 1's 3 back" wait_for 30 '[ "$(cat $dir/node1)" = 3 ]'
ok "and says another writer changed it (class-weights-changed)" wait_for 10 "[ \$(events tiered $id_changed) -gt $n ]"

# Two classes, one node, two weights: the first keeps it.  Node 0, which only
# the second wants, is set apart first: all or nothing, it must stay so.
echo 1 >"$dir/node0"
printf '\n[class "wide"]\nnodes = all\nmode = weighted-interleave\n' >>"$conf"
must "reload pmemramd with a second weighted class" systemctl reload pmemramd.service
ok "the second is refused for node 1 (class-weights-failed)" \
	wait_for 30 "[ \$(events wide $id_failed) -ge 1 ]"
ok "naming the node and the weight that stays" \
	sh -c "journalctl -b -u pmemramd PMEMRAM_CLASS=wide -o cat | grep -q 'node 1: weight 5, but a class before it wants 3'"
is "tiered's weights stay in force, and wide wrote none (node 0 untouched)" "$(weights 0 1 2)" 0:1,1:3,2:1
done_testing
