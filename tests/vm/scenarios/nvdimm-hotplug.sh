#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Persistent memory that arrives after boot: the host hot-adds an NVDIMM
# through the QEMU monitor (host_request nvdimm-add, served by run.sh), the
# kernel learns of it through the NFIT hotplug notification, and the real
# ndctl and daxctl make a devdax namespace of it and then System RAM on the
# NVDIMM's node.
#   HOTPLUG_NODE  the NUMA node of the new NVDIMM (default 2, nvdimm0's)
set -u
. ./lib.sh

node=${HOTPLUG_NODE:-2}
id=nvdimm1
nd=/sys/bus/nd/devices
plan 18
bs=$(block_size)
# The NVDIMM holds four memory blocks; its namespace three, which leaves at
# least two whole blocks after the namespace's own metadata (struct pages
# and the info block) and the rounding of kmem's range to whole blocks.
size_mib=$((4 * bs >> 20))
ns_size=$((3 * bs))

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# words TEXT: TEXT on one line.
words() { tr -s '\n' ' ' <<<"$1" | sed 's/ $//'; }
regions() { (cd "$nd" && ls -d region* 2>/dev/null); }

if [ "$PMEMRAM_PLATFORM" = trixie ]; then
	is "Debian 13's kernel onlines hot-added memory itself" \
		"$(cat /sys/devices/system/memory/auto_online_blocks)" online
else
	is "kernel leaves hot-added memory offline" \
		"$(cat /sys/devices/system/memory/auto_online_blocks)" offline
fi
before_kb=$(meminfo_kb MemTotal)
before_node_mb=$(node_mem_mb "$node")
before_node_mb=${before_node_mb:-0} # numactl leaves out a node without memory
before_regions=$(regions)
note "before: MemTotal $before_kb kB, node $node $before_node_mb MB, regions: $(words "$before_regions")"

echo "pmemram-test: requesting nvdimm-add $id $size_mib $node" >/dev/kmsg
t0=$(now_ms)
rc=0
reply=$(host_request nvdimm-add "$id" "$size_mib" "$node") || rc=$?
t1=$(now_ms)
note "host: $reply"
is "host_request nvdimm-add $id $size_mib $node succeeded" "$rc" 0
[ "$rc" = 0 ] || bail "the host could not hot-add $id: $(words "$reply")"
note "nvdimm-add took $((t1 - t0)) ms"

# The new region: whichever region was not there before.
region=
for ((i = 0; i < 600; i++)); do
	region=$(regions | grep -vxF "${before_regions:-none}" | head -n 1)
	[ -z "$region" ] || break
	sleep 0.1
done
t2=$(now_ms)
[ -n "$region" ] || bail "no new region in $nd 60 s after the hot-add of $id"
note "$region visible $((t2 - t1)) ms after the host's reply"
ok "ndctl list -R shows $region" sh -c "ndctl list -R | grep -q '\"dev\":\"$region\"'"
is "$region is $size_mib MiB" "$(cat "$nd/$region/size")" "$((size_mib << 20))"
is "$region starts where the host put $id" \
	"$(cat "$nd/$region/resource")" "$(sed -n 's/.* at \(0x[0-9a-f]*\),.*/\1/p' <<<"$reply")"
is "$region targets node $node" "$(cat "$nd/$region/target_node")" "$node"
nmem=$(cut -d, -f1 "$nd/$region/mapping0")
note "$region is on $nmem"

# A hot-added NVDIMM's label area is blank, so the region starts out
# label-less, one raw namespace over all of it; initialise the labels to
# carve a namespace of the size we want.
must "disable $region" ndctl disable-region "$region"
must "initialise the labels of $nmem" ndctl init-labels "$nmem"
must "enable $region" ndctl enable-region "$region"
ns_json=$(ndctl create-namespace -r "$region" -m devdax -a 2M -s "$ns_size" 2>&1) ||
	bail "ndctl create-namespace -r $region -m devdax -s $ns_size failed: $(words "$ns_json")"
dev=$(sed -n 's/.*"chardev":"\(dax[0-9.]*\)".*/\1/p' <<<"$ns_json" | head -n 1)
dax=/sys/bus/dax/devices/$dev
ok "ndctl create-namespace made a dax device ($dev) on $region" test -n "$dev" -a -e "$dax"
is "$dev starts on device_dax" "$(basename "$(readlink "$dax/driver")")" device_dax
is "$dev targets node $node" "$(cat "$dax/target_node")" "$node"

# The whole memory blocks inside the dax device's range are what kmem adds.
start=$(($(cat "$dax/resource")))
end=$((start + $(cat "$dax/size")))
first=$(((start + bs - 1) / bs))
want_blocks=$(seq "$first" $((end / bs - 1)))
nblocks=$(echo "$want_blocks" | grep -c .)
note "$dev: $(printf '%#x-%#x' "$start" "$end"), whole blocks: $(words "$want_blocks")"

daxctl_admin
ok "daxctl reconfigure-device --mode=system-ram $dev" \
	daxctl reconfigure-device --mode=system-ram "$dev"
is "$dev is bound to kmem" "$(basename "$(readlink "$dax/driver")")" kmem
ok "at least two memory blocks were added" test "$nblocks" -ge 2
is "the kmem range covers exactly the whole blocks of $dev" "$(words "$(kmem_blocks)")" "$(words "$want_blocks")"
after_kb=$(meminfo_kb MemTotal)
is "MemTotal grew by exactly the onlined blocks" \
	"$((after_kb - before_kb))" "$((nblocks * bs / 1024))"
is "every block of $dev is online in zone Movable" \
	"$(echo "$want_blocks" | zones_of_blocks | sort | uniq -c | sed 's/^ *//')" \
	"$nblocks online Movable"
is "every block of $dev belongs to node $node" \
	"$(echo "$want_blocks" | while read -r b; do ls -d "/sys/devices/system/memory/memory$b/node$node"; done 2>/dev/null | grep -c .)" \
	"$nblocks"
is "numactl -H shows node $node grown by that memory" \
	"$(($(node_mem_mb "$node") - before_node_mb))" "$((nblocks * bs >> 20))"
chain=$(iomem_chain "System RAM (kmem)")
note "iomem: $chain"
ok "/proc/iomem has System RAM (kmem) under $dev under Persistent Memory" \
	grep -q "^System RAM (kmem) < $dev < .*Persistent Memory" <<<"$chain"

# What the kernel said from the request on, for the log.
dmesg | sed -n '/pmemram-test: requesting nvdimm-add/,$p' | sed 's/^/kernel: /' >&2

done_testing
