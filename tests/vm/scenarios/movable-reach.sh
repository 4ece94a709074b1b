#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Whether default allocations reach a memory-only node whose memory is all
# Movable while the DRAM nodes have no Movable memory.  Documentation on
# CXL memory warns that the page allocator then skips the Movable-only node
# and only demotion fills it; pmemramctl doctor does not warn about such a
# layout because this scenario shows the kernel reaching the node.  The
# NVDIMM's node 2 is onlined Movable by daxctl, then one process with no
# memory policy, running on node 0's CPUs, touches more anonymous memory
# than nodes 0 and 1 have free: its pages are counted per node.  A kernel
# that skipped the node would fail here (or kill the process), and doctor
# would then need the finding.
set -u
. ./lib.sh

probe=/usr/lib/pmemram-test/pagemap-contig
plan 3

must "auto-online off (daxctl refuses to reconfigure under 'online')" \
	sh -c 'echo offline >/sys/devices/system/memory/auto_online_blocks'
must "create a devdax namespace" ndctl create-namespace -f -e namespace0.0 -m devdax -a 2M
must "online it through kmem, Movable" daxctl reconfigure-device --mode=system-ram dax0.0
# zones NODE: the node's zones with present pages, comma-separated.
zones() { awk -v n="$1" '/^Node/ { node = $2 + 0; zone = $4 } /^ +present/ && node == n && $2 > 0 { print zone }' /proc/zoneinfo | paste -sd,; }
note "zones with present pages: node 0 $(zones 0), node 1 $(zones 1), node 2 $(zones 2)"
is "node 2 has only Movable memory" "$(zones 2)" "Movable"
ok "nodes 0 and 1 have no Movable memory" sh -c "! echo '$(zones 0),$(zones 1)' | grep -qw Movable"

free01=$(($(node_free_mb 0) + $(node_free_mb 1)))
free2=$(node_free_mb 2)
size=$(((free01 + free2 / 2) / 4 * 4))
note "free: nodes 0 and 1 $free01 MiB, node 2 $free2 MiB; touching $size MiB from node 0's CPUs"
m=$(taskset -c 0 "$probe" --no-thp "$size" 4) || bail "pagemap-contig of $size MiB failed (OOM?)"
note "$m"
node2=$(sed -n 's/.*\bnode2=\([0-9]*\).*/\1/p' <<<"$m")
ok "node 2 served part of the buffer ($((${node2:-0} * 4 / 1024)) MiB)" test "${node2:-0}" -gt 0
note "$(grep -E 'pgdemote|pgscan_kswapd |pgsteal_kswapd ' /proc/vmstat | paste -sd' ')"

done_testing
