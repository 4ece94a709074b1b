#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The demo: show the machine before and after its slow memory becomes RAM:
# an NVDIMM's persistent memory behind an HMAT memory-side cache, or, on a
# CXL topology, a memory expander's volatile memory.  The readable report
# goes to $PMEMRAM_OUT/report.txt, which the host prints; the TAP stream
# checks that the report shows what it claims.
set -u
. ./lib.sh

plan 6
report=$PMEMRAM_OUT/report.txt

section() { printf '\n=== %s ===\n' "$*" >>"$report"; }
show() {
	printf '$ %s\n' "$*" >>"$report"
	"$@" >>"$report" 2>&1
}

state() {
	section "$1"
	printf 'MemTotal: %s kB\n' "$(meminfo_kb MemTotal)" >>"$report"
	show numactl -H
	show daxctl list -M
	show pmemramctl status
}

: >"$report"
section "kernel"
printf '%s\n' "$(uname -r)" "cmdline: $(cat /proc/cmdline)" >>"$report"

section "memory-side caches (ACPI HMAT)"
caches=0
for c in /sys/devices/system/node/node*/memory_side_cache/index*; do
	[ -d "$c" ] || continue
	caches=$((caches + 1))
	idx=$(cat "$c/indexing")
	case $idx in 0) idx="direct-mapped" ;; 1) idx="complex" ;; *) idx="other ($idx)" ;; esac
	wp=$(cat "$c/write_policy")
	case $wp in 0) wp="write-back" ;; 1) wp="write-through" ;; *) wp="other ($wp)" ;; esac
	printf '%s: size %d MiB, line %s B, %s, %s\n' \
		"${c#/sys/devices/system/}" $(($(cat "$c/size") >> 20)) "$(cat "$c/line_size")" \
		"$idx" "$wp" >>"$report"
done
[ "$caches" != 0 ] || echo "none" >>"$report"

section "page allocator shuffling"
printf 'page_alloc.shuffle parameter: %s\n' \
	"$(cat /sys/module/page_alloc/parameters/shuffle 2>/dev/null || echo absent)" >>"$report"
for f in enabled nodes reason order; do
	[ -r "/sys/kernel/mm/shuffle/$f" ] &&
		printf 'effective %s: %s\n' "$f" "$(cat "/sys/kernel/mm/shuffle/$f")" >>"$report"
done
for n in /sys/devices/system/node/node[0-9]*; do
	[ -r "$n/shuffle/enabled" ] &&
		printf 'node %s: shuffled %s, reason %s\n' "${n##*node}" "$(cat "$n/shuffle/enabled")" \
			"$(cat "$n/shuffle/reason")" >>"$report"
done

# What this kernel can hand to pmemram, and what needs a newer one.
section "dax sources on this kernel ($(uname -r))"
# source_line WHAT NOTE MODULE...: "yes" when every module is loaded or
# built in (/sys/module/NAME) or installed (modinfo), as a user would ask.
source_line() {
	local what=$1 note=$2 have=yes m
	shift 2
	for m in "$@"; do
		[ -d "/sys/module/$m" ] || modinfo "$m" >/dev/null 2>&1 || have=no
	done
	printf '%-36s %-3s (%s)\n' "$what:" "$have" "$note" >>"$report"
}
source_line "NVDIMM namespaces (libnvdimm)" "claims by uuid, device, region; convert/create through libndctl" \
	libnvdimm nd_pmem dax_pmem
source_line "soft-reserved memory (dax_hmem)" \
	"claims by hmem range or target node; 6.1 leaves it on device_dax, >= 6.3 gives it to kmem itself" dax_hmem
source_line "CXL pmem regions (cxl_*)" \
	"claims by memdev serial or CXL region; 6.1 builds pmem regions only, volatile ones need >= 6.3" \
	cxl_acpi cxl_pci cxl_mem cxl_pmem
source_line "CXL RAM regions (dax_cxl)" \
	"claims by memdev serial or CXL region; >= 6.3 hands them to kmem and onlines them itself" \
	cxl_acpi cxl_pci cxl_mem dax_cxl

# after: the closing report line and the checks both kinds of demo share.
after() {
	after_kb=$(meminfo_kb MemTotal)
	printf '\nMemTotal grew by %d MiB\n' $(((after_kb - before_kb) >> 10)) >>"$report"
	is "pmemramd reports $dev converged" "$(daemon_verdict "$dev")" "converged none"
	ok "MemTotal grew" test "$after_kb" -gt "$before_kb"
	ok "daxctl reports $dev in system-ram mode" grep -Eq '"mode": ?"system-ram"' "$report"
	ok "the report says which dax sources this kernel offers" grep -q "^NVDIMM namespaces (libnvdimm): *yes" "$report"
}

serial=$(cxl list -M 2>/dev/null | jq -r '[.[] | select(.ram_size)][0].serial // empty')
if [ -n "$serial" ]; then
	# A CXL memory expander's volatile memory: claimed by its serial, its RAM region made with
	# the cxl tool; the kernel onlines it in a zone of its own choosing, pmemramd moves it.
	hex=$(printf '%#x' "$serial")
	before_kb=$(meminfo_kb MemTotal)
	state "BEFORE: CXL memdev mem0 (serial $hex), $(($(cxl list -M -m mem0 | jq -r '.[0].ram_size') >> 20)) MiB of volatile memory, no region"
	section "pmemramctl claim demo --cxl-memdev $hex; cxl create-region -t ram -m mem0"
	show pmemramctl claim demo --cxl-memdev "$hex"
	systemctl start pmemramd.service
	start=$EPOCHREALTIME
	show cxl create-region -d decoder0.0 -t ram -m mem0
	R=$(cxl list -R | jq -r '.[0].region')
	wait_for 30 '[ -n "$(cxl_region_dax "$R")" ]'
	dev=$(cxl_region_dax "$R")
	wait_for 60 '[ "$(daemon_verdict "$dev")" = "converged none" ]'
	awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "region made and online as Movable in %.2f s\n", b - a }' >>"$report"
	show cat "/etc/pmemram/pmemram.conf.d/50-pmemramctl-demo.conf"
	show journalctl -b -u pmemramd --no-pager -o cat
	state "AFTER: $dev (CXL region $R) is System RAM on node $(cat "/sys/bus/dax/devices/$dev/target_node")"
	after
	is "every block of $dev online as Movable" "$(dev_state "$dev" | cut -d' ' -f2-)" "online Movable"
	ok "node 1 has memory now" test "$(node_mem_mb 1)" -gt 0
	done_testing
	exit
fi

uuid=$(new_uuid)
must "initialise the label area" init_labels
dev=$(mkns demo devdax all "$uuid") || bail "cannot create a devdax namespace"
before_kb=$(meminfo_kb MemTotal)
state "BEFORE: $dev is a device-dax character device"
section "pmemramctl claim demo --uuid $uuid (pmemramd does the rest)"
start=$EPOCHREALTIME
show pmemramctl claim demo --uuid "$uuid"
systemctl start pmemramd.service
wait_for 60 '[ "$(daemon_verdict "$dev")" = "converged none" ]'
awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "claimed and online in %.2f s\n", b - a }' >>"$report"
show cat "/etc/pmemram/pmemram.conf.d/50-pmemramctl-demo.conf"
show journalctl -b -u pmemramd --no-pager -o cat
state "AFTER: $dev is System RAM on node $(cat /sys/bus/dax/devices/$dev/target_node)"
after
ok "the report shows a direct-mapped cache" grep -q "direct-mapped" "$report"
ok "node 2 has memory now" test "$(node_mem_mb 2)" -gt 0

done_testing
