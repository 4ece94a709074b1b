#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pmemramd killed with SIGKILL in the middle of its libndctl calls, then
# started by systemd: it finishes the job and touches nothing else.
# pmemramd runs in the foreground under strace, whose fault injection kills it
# as it is about to write a chosen sysfs file the first time (-P names the
# file, so no other write counts): for convert = yes, before the dax seed is
# given the fsdax device's UUID, after the fsdax device is disabled, after it
# is detached, with the dax seed half set up, before the dax device is
# enabled, and before its memory is onlined; for create =
# devdax, with the seed named but not sized, sized but not devdax, and before
# the dax device is enabled.  After each kill the half-done state is logged
# and checked, systemd starts pmemramd, and the namespace must end devdax with
# its UUID and its fsdax info block's (exactly one namespace for the
# creation) and online as Movable,
# while an unclaimed fsdax namespace holding a file is left alone.
# A first conversion, traced whole (out/convert.trace), shows the order of
# the writes the kill points rely on.
# While pmemramd runs by hand, udev must not start the service when a dax
# device appears (95-pmemram-start.rules): two daemons would race.
set -u
. ./lib.sh

plan 43
conf=/etc/pmemram/pmemram.conf
out=$PMEMRAM_OUT
nd=/sys/bus/nd/devices
drivers=/sys/bus/nd/drivers
ua=$(new_uuid) ud=$(new_uuid)

bound() { [ -e "$nd/$1/driver" ] && echo enabled || echo disabled; }
# ns_state NS: its mode, holder and whether it (or its holder) is enabled,
# and its dax device with its driver once there is one.
ns_state() {
	local h d
	h=$(cat "$nd/$1/holder")
	d=$(dax_of "$1")
	echo "$(cat "$nd/$1/mode") holder=${h:--} $(bound "${h:-$1}") ${d:-no-dax-device}${d:+ on $(dev_driver "$d")}"
}
# seed_state DAX: what is set of an nd dax device (a region's dax seed).
seed_state() {
	local ns
	ns=$(cat "$nd/$1/namespace")
	echo "$1 mode=$(cat "$nd/$1/mode") uuid=$([ -n "$(cat "$nd/$1/uuid")" ] && echo set || echo none)" \
		"namespace=${ns:--} $(bound "$1")"
}
# label_state NS: its UUID, name and whether it has a size.
label_state() {
	echo "uuid=$(cat "$nd/$1/uuid") name=$(cat "$nd/$1/alt_name") size=$([ "$(cat "$nd/$1/size")" != 0 ] && echo set || echo 0)"
}
sized_namespaces() { grep -lv '^0$' "$nd"/namespace*/size | grep -c .; }
# named NAME: "namespace uuid" of each sized namespace whose label name is NAME.
named() {
	local f ns
	for f in "$nd"/namespace*/alt_name; do
		ns=$(basename "$(dirname "$f")")
		[ "$(cat "$f")" = "$1" ] && [ "$(cat "$nd/$ns/size")" != 0 ] && echo "$ns $(cat "$nd/$ns/uuid")"
	done
}
# record TAG: the state after a kill, in the log.
record() {
	echo "=== $1" >&2
	ndctl list -N -v -i >&2
	ls -l "$nd"/*/driver >&2
	grep -sH . "$nd"/{namespace,pfn,dax}*/{mode,uuid,size,alt_name,holder,holder_class,namespace} | sed "s|^$nd/||" >&2
}

# Stopped, and not started by udev when a dax device appears (95-pmemram-start.rules
# asks systemd to): pmemramd then runs only by hand.  That rules file is masked
# in /run/udev/rules.d meanwhile.
rules=95-pmemram-start.rules
stop_daemon() {
	systemctl stop pmemramd.service && mkdir -p /run/udev/rules.d &&
		ln -sf /dev/null "/run/udev/rules.d/$rules" && udevadm control --reload
}
start_daemon() { rm -f "/run/udev/rules.d/$rules" && udevadm control --reload && systemctl start pmemramd.service; }

# kill_at TAG FILE: pmemramd, with its unit's command line but not its
# sandbox, in the foreground under strace, which sends it SIGKILL as it is
# about to write FILE the first time (a minute at most); sets killed to
# strace's exit status, the number of writes it traced (to FILE alone) and
# its last line.
kill_at() {
	local trace=$out/kill-$1.trace rc=0
	timeout 60 strace -f -y -o "$trace" -e trace=write -e inject=write:signal=KILL:when=1 -P "$2" \
		/usr/sbin/pmemramd >"$out/kill-$1.log" 2>&1 || rc=$?
	killed="$rc $(grep -c ' write(' "$trace") $(tail -n 1 "$trace" | sed 's/^[0-9]* *//')"
	note "$1: $(grep ' write(' "$trace" | tail -n 1 | sed 's/^[0-9]* *//')"
}
# What kill_at sets when it went as planned: strace dies of the signal it sent,
# after the one write.
killed_ok="137 1 +++ killed by SIGKILL +++"

must "initialise the label area" init_labels
must "stop pmemramd" stop_daemon

# The unclaimed fsdax namespace beside them, with a file.
D=$(mkns nsD fsdax 64M "$ud") || bail "cannot create namespace D"
nsD=$(jq -r .dev "$out/ns-nsD.json")
sum=$(file_put "$D" /mnt/d) || bail "cannot put a file system with a file on /dev/$D"
d_state() { echo "$(cat "$nd/$nsD/mode") $(cat "$nd/$nsD/uuid") $(test -b "/dev/$D" && echo "/dev/$D")"; }
d_want="memory $ud /dev/$D"

# undo NS: NS's memory offline and NS destroyed (pmemramd stopped).
undo() {
	local d
	d=$(dax_of "$1")
	[ -z "$d" ] || [ "$(dev_driver "$d")" = device_dax ] ||
		must "put $d back to devdax" daxctl reconfigure-device -m devdax -f "$d"
	must "destroy $1" ndctl destroy-namespace -f "$1"
}
# next_a: the claimed namespace A made fsdax with the UUID ua afresh; pfn and
# seed name its fsdax device and the region's dax seed.
nsA=
next_a() {
	[ -z "$nsA" ] || undo "$nsA"
	mkns nsA fsdax 256M "$ua" >/dev/null || bail "cannot create namespace A"
	nsA=$(jq -r .dev "$out/ns-nsA.json")
	pfn=$(cat "$nd/$nsA/holder") seed=$(cat "$nd/region0/dax_seed")
	info=$(cat "$nd/$pfn/uuid")
}
seed_none() { echo "$seed mode=none uuid=none namespace=- disabled"; }
# The seed given the fsdax device's UUID, nothing else yet.
seed_uuid() { echo "$seed mode=none uuid=set namespace=- disabled"; }
seed_set() { echo "$seed mode=pmem uuid=set namespace=$1 $2"; }

printf '[claim "conv"]\nmatch = uuid:%s\nconvert = yes\n' "$ua" >"$conf"

# (a) One whole conversion, traced: the order of the sysfs writes.
next_a
strace -f -y -o "$out/convert.trace" -e trace=openat,write /usr/sbin/pmemramd >"$out/convert.log" 2>&1 &
sp=$!
ok "$nsA converted by pmemramd under strace" wait_for 60 "ns_online $nsA"
kill "$(pgrep -P "$sp")"
wait "$sp"
order=("$nd/$seed/uuid" "$drivers/nd_pmem/unbind" "$nd/$pfn/namespace" "$nd/$nsA/holder_class"
	"$nd/$seed/namespace" "$drivers/dax_pmem/bind" /sys/bus/dax/drivers/device_dax/remove_id)
want=$(for f in "${order[@]}"; do realpath "$f"; done)
got=$(sed -n 's/^[0-9]* *write([0-9]*<\([^>]*\)>.*/\1/p' "$out/convert.trace" | awk '!seen[$0]++' | grep -Fx "$want")
is "the conversion writes the files the kill points use, first time each, in this order" "$got" "$want"

# (b) Killed at each step of a conversion.
# kill_round TAG FILE WANT NS: pmemramd killed as it is about to write FILE,
# leaving NS and the dax seed in the state WANT (FILE and WANT are expanded in
# the round, WANT after the kill); then pmemramd, started by systemd, must
# bring NS online.
kill_round() {
	local file want
	note "$4 at the start: $(half_state "$4")"
	eval "file=\"$2\""
	kill_at "$1" "$file"
	record "$1"
	eval "want=\"$3\""
	is "$1: pmemramd killed by SIGKILL at its write to ${file#/sys/bus/}" "$killed" "$killed_ok"
	is "$1: $4 is half done" "$(half_state "$4")" "$want"
	must "$1: start pmemramd" start_daemon
	ok "$1: restarted, $4 becomes devdax, online as Movable" wait_for 60 "ns_online $4"
}
half_state() { echo "$(label_state "$1") $(ns_state "$1"); $(seed_state "$seed")"; }
# convert_round TAG FILE WANT: kill_round on a fresh A.
convert_round() {
	must "stop pmemramd" stop_daemon
	next_a
	kill_round "$1" "$2" "$3" "$nsA"
	is "$1: $nsA keeps its UUID and its info block's, the unclaimed $nsD is untouched" \
		"$(cat "$nd/$nsA/uuid") $(cat "$nd/$(cat "$nd/$nsA/holder")/uuid") $(d_state)" "$ua $info $d_want"
}
a_label="uuid=$ua name=nsA size=set"
# shellcheck disable=SC2016 # expanded in the round
{
	convert_round seed-uuid '$nd/$seed/uuid' \
		"$a_label"' memory holder=$pfn enabled no-dax-device; $(seed_none)'
	convert_round fsdax-disabled '$nd/$pfn/namespace' \
		"$a_label"' memory holder=$pfn disabled no-dax-device; $(seed_uuid)'
	convert_round fsdax-detached '$nd/$nsA/holder_class' \
		"$a_label"' raw holder=- disabled no-dax-device; $(seed_uuid)'
	convert_round seed-unattached '$nd/$seed/namespace' \
		"$a_label"' raw holder=- disabled no-dax-device; $(seed_set - disabled)'
	convert_round dax-disabled "$drivers/dax_pmem/bind" \
		"$a_label"' dax holder=$seed disabled no-dax-device; $(seed_set "$nsA" disabled)'
	convert_round memory-offline /sys/bus/dax/drivers/device_dax/remove_id \
		"$a_label"' dax holder=$seed enabled $(dax_of "$nsA") on device_dax; $(seed_set "$nsA" enabled)'
}

# (c) Killed at each step of a creation, the converted A beside it.
printf '[claim "made"]\nmatch = region:region0\ncreate = devdax\n' >>"$conf"
# The UUID pmemram gives the claim's namespace, from the plan of the region.
um=$(pmemramctl plan --json | jq -r '.actions[] | select(.action == "create-namespace") | .uuid')
[[ $um =~ ^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]] ||
	bail "pmemramctl plan --json gives no version-8 UUID for the creation: '$um'"
# create_round TAG FILE WANT: kill_round on the region's namespace seed (nss),
# the last round's namespace destroyed; the restarted pmemramd must end with
# exactly one namespace named 'made', that one.
made=
create_round() {
	local count
	must "stop pmemramd" stop_daemon
	[ -z "$made" ] || undo "$made"
	nss=$(cat "$nd/region0/namespace_seed") seed=$(cat "$nd/region0/dax_seed") count=$(sized_namespaces)
	note "namespace seed $nss, dax seed $seed; $count namespaces"
	kill_round "$1" "$2" "$3" "$nss"
	is "$1: one namespace named 'made', $nss with pmemram's UUID, and no other added" \
		"$(named made) $(sized_namespaces)" "$nss $um $((count + 1))"
	is "$1: $nsA is still online, the unclaimed $nsD untouched" "$(ns_online "$nsA" && echo online) $(d_state)" "online $d_want"
	made=$nss
}
# shellcheck disable=SC2016 # expanded in the round
{
	create_round uuid-named '$nd/$nss/size' \
		'uuid=$um name=made size=0 raw holder=- disabled no-dax-device; $(seed_none)'
	create_round sized '$nd/$nss/holder_class' \
		'uuid=$um name=made size=set raw holder=- disabled no-dax-device; $(seed_none)'
	create_round dax-disabled-created "$drivers/dax_pmem/bind" \
		'uuid=$um name=made size=set dax holder=$seed disabled no-dax-device; $(seed_set "$nss" disabled)'
}

# (d) Converged: nothing left to do, and the file on D is intact.
must "reconcile" pmemramctl reconcile
is "a further reconcile has nothing to do" "$(pmemramctl plan --json | jq '.actions | length')" 0
is "the file on the unclaimed $nsD is unchanged" "$(file_sum "$D" /mnt/d)" "$sum"

done_testing
