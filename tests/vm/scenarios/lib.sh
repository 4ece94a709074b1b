# SPDX-License-Identifier: GPL-2.0-or-later
# TAP helpers and system probes for scenarios running inside the guest.
# Sourced by each scenario; stdout is the TAP stream, stderr the log.

_tap_n=0
_tap_failed=0

plan() { echo "1..$1"; }

# ok DESCRIPTION CMD...: one assertion, passing when CMD succeeds.
ok() {
	local desc=$1 out rc=0
	shift
	_tap_n=$((_tap_n + 1))
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" = 0 ]; then
		echo "ok $_tap_n - $desc"
	else
		_tap_failed=$((_tap_failed + 1))
		echo "not ok $_tap_n - $desc"
		echo "# command: $*"
		echo "# exit status $rc"
		[ -z "$out" ] || printf '%s\n' "$out" | head -n 20 | sed 's/^/# /'
	fi
	echo "[$_tap_n] $desc: rc=$rc" >&2
}

# is DESCRIPTION GOT EXPECTED: one assertion comparing two strings.
is() {
	_tap_n=$((_tap_n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $_tap_n - $1"
	else
		_tap_failed=$((_tap_failed + 1))
		echo "not ok $_tap_n - $1"
		echo "# got:      '$2'"
		echo "# expected: '$3'"
	fi
	echo "[$_tap_n] $1: got '$2' expected '$3'" >&2
}

# bail REASON: abort the scenario; the host reports the reason.
bail() {
	echo "Bail out! $*"
	exit 1
}

# must DESCRIPTION CMD...: a step the rest of the scenario depends on.
must() {
	local desc=$1
	shift
	echo "+ $*" >&2
	"$@" >&2 || bail "$desc failed: $*"
}

done_testing() { [ "$_tap_failed" = 0 ]; }

# Show a step's output in the log and, as TAP comments, on the host.
note() { echo "# $*"; }

meminfo_kb() { awk -v k="$1:" '$1 == k {print $2}' /proc/meminfo; }
# vmstat NAME: a /proc/vmstat counter.
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

# The kernel's trace buffer (tracefs, mounted by tracefs_mount when it is not),
# and the shuffle walks' event: one line per zone and order walked, "... node=N
# zone=Z order=O range=(S ~ E) nr_free=F found=W swaps=X ns=T".
tracing=/sys/kernel/tracing
shuffle_event=$tracing/events/shuffle/mm_shuffle_zone_order
tracefs_mount() { [ -e $tracing/trace ] || mount -t tracefs nodev $tracing; }
# shuffle_trace_start: empty the buffer and trace the shuffle walks; shuffle_trace_stop.
shuffle_trace_start() { : >$tracing/trace && echo 1 >$shuffle_event/enable; }
shuffle_trace_stop() { echo 0 >$shuffle_event/enable; }
# shuffle_walks [FILE]: the walks in the buffer (or a copy of it), from "node=" on.
shuffle_walks() { grep -o 'node=.*' "${1:-$tracing/trace}"; }
block_size() { printf '%d' "0x$(cat /sys/devices/system/memory/block_size_bytes)"; }

# kmem_ranges: "start end" (hex, inclusive) of each System RAM (kmem) range.
kmem_ranges() {
	sed -n 's/^ *\([0-9a-f]*\)-\([0-9a-f]*\) : System RAM (kmem)$/\1 \2/p' /proc/iomem
}

# kmem_blocks: memory block numbers covered by the kmem ranges.
kmem_blocks() {
	local bs s e
	bs=$(block_size)
	kmem_ranges | while read -r s e; do
		seq $((0x$s / bs)) $(((0x$e + 1) / bs - 1))
	done
}

# zones_of_blocks: "state zone" of each block given on stdin, one per line.
zones_of_blocks() {
	local b
	while read -r b; do
		echo "$(cat "/sys/devices/system/memory/memory$b/state")" \
			"$(cat "/sys/devices/system/memory/memory$b/valid_zones")"
	done
}

# node_mem_mb N, node_free_mb N: the node's size and its free memory from
# numactl -H, in MB.
node_numactl_mb() { numactl -H | awk -v n="$1" -v k="$2:" '$1 == "node" && $2 == n && $3 == k {print $4}'; }
node_mem_mb() { node_numactl_mb "$1" size; }
node_free_mb() { node_numactl_mb "$1" free; }

# anon_nodes PID: "N0=pages N2=pages ..." over the process's anonymous
# mappings, nodes in order, only those with pages.
anon_nodes() {
	awk '/ anon=/ { for (i = 1; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split(substr($i, 2), a, "="); n[a[1]] += a[2] } }
		END { for (k in n) print k, n[k] }' "/proc/$1/numa_maps" | sort -n | awk '{ printf "%sN%s=%s", sep, $1, $2; sep = " " }'
}

# memtier_of_node N: the memory_tier directory whose nodelist holds node N.
memtier_of_node() {
	local t
	for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
		[ -f "$t/nodelist" ] || continue
		if node_in_list "$1" "$(cat "$t/nodelist")"; then
			basename "$t"
			return 0
		fi
	done
	return 1
}

# node_in_list N LIST: LIST is a kernel range list such as 0-1,3.
node_in_list() {
	local r
	for r in ${2//,/ }; do
		if [ "${r#*-}" != "$r" ]; then
			[ "$1" -ge "${r%-*}" ] && [ "$1" -le "${r#*-}" ] && return 0
		else
			[ "$1" = "$r" ] && return 0
		fi
	done
	return 1
}

# iomem_chain NAME: the first /proc/iomem entry called NAME and its ancestors,
# innermost first: "System RAM (kmem) < dax0.0 < Persistent Memory".
iomem_chain() {
	awk -v want="$1" '
	{ match($0, /^ */); depth = RLENGTH / 2; sub(/^ *[0-9a-f]+-[0-9a-f]+ : /, "")
	  name[depth] = $0 }
	$0 == want { for (d = depth; d >= 0; d--) printf "%s%s", name[d], (d ? " < " : "\n"); exit }
	' /proc/iomem
}

# ---- pmemramd ----

# dev_blocks DEV: the memory blocks whose whole range lies in dax device DEV
# (what kmem adds for it), one id per line, whether they exist now or not.
dev_blocks() {
	local d=/sys/bus/dax/devices/$1 bs start size
	bs=$(block_size)
	start=$(($(cat "$d/resource")))
	size=$(cat "$d/size")
	seq $(((start + bs - 1) / bs)) $(((start + size) / bs - 1))
}

# floor_bind DEV: DEV from device_dax to kmem with bare sysfs writes: unbind device_dax, kmem
# new_id (and bind); the kernel adds the blocks offline.
floor_bind() {
	local dev=$1 drivers=/sys/bus/dax/drivers
	echo "$dev" >"$drivers/device_dax/unbind" &&
		echo "$dev" >"$drivers/device_dax/remove_id" 2>/dev/null
	echo "$dev" >"$drivers/kmem/new_id" || return 1
	[ -e "$drivers/kmem/$dev" ] || echo "$dev" >"$drivers/kmem/bind"
}
# floor_on DEV BLOCK...: DEV to System RAM with bare sysfs writes, no tool (the floor of the
# online benchmarks): floor_bind, then online each block Movable.
floor_on() {
	local dev=$1 b
	shift
	floor_bind "$dev" || return 1
	for b in "$@"; do
		echo online_movable >"/sys/devices/system/memory/memory$b/state" || return 1
	done
}
# floor_off DEV BLOCK...: back to device_dax the same way (each block offline first).
floor_off() {
	local dev=$1 b drivers=/sys/bus/dax/drivers
	shift
	for b in "$@"; do
		[ "$(cat "/sys/devices/system/memory/memory$b/state")" = offline ] ||
			echo offline >"/sys/devices/system/memory/memory$b/state" || return 1
	done
	echo "$dev" >"$drivers/kmem/unbind" && echo "$dev" >"$drivers/kmem/remove_id" 2>/dev/null
	echo "$dev" >"$drivers/device_dax/new_id" 2>/dev/null
	[ -e "$drivers/device_dax/$dev" ] || echo "$dev" >"$drivers/device_dax/bind"
}

# ms T0 T1: milliseconds between two $EPOCHREALTIME readings.
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) * 1000 }'; }

# online_timed BLOCK...: online each block Movable with one sysfs write, in order, and set
# per_block to each write's time in ms (no fork inside the timed span).  Bails out when a write
# fails.
online_timed() {
	local b t0
	per_block=()
	for b in "$@"; do
		t0=$EPOCHREALTIME
		echo online_movable >"/sys/devices/system/memory/memory$b/state" || bail "cannot online memory$b"
		per_block+=("$(ms "$t0" "$EPOCHREALTIME")")
	done
}

# daxctl_admin: where the kernel onlines hot-added memory itself (auto_online_blocks "online",
# Debian 13's default), set it to "offline", as daxctl asks of its users before it reconfigures a
# device ("kernel policy will auto-online memory, aborting"); nothing where it reads otherwise.
daxctl_admin() {
	local knob=/sys/devices/system/memory/auto_online_blocks
	[ "$(cat "$knob")" != online ] || echo offline >"$knob"
}

# bench_methods DEV TRIALS BLOCK...: bring DEV (held by pmemramd, on device_dax) online as
# Movable TRIALS times each with bare sysfs writes (floor), daxctl and pmemramctl reclaim, in
# turns, and back; one assertion and one "# BENCH method=M trial=T ms=X blocks=N" line each.
bench_methods() {
	local dev=$1 trials=$2 n t method t0 t1 rc
	shift 2
	n=$#
	daxctl_admin # the same policy for the three methods
	for t in $(seq "$trials"); do
		for method in floor daxctl pmemramd; do
			t0=$EPOCHREALTIME # microseconds, no fork inside the timed span
			case $method in
			floor) floor_on "$dev" "$@" ;;
			daxctl) daxctl reconfigure-device --mode=system-ram "$dev" >/dev/null 2>&1 ;;
			pmemramd) pmemramctl reclaim "$dev" >/dev/null ;;
			esac
			rc=$?
			t1=$EPOCHREALTIME
			is "trial $t, $method: $n blocks online Movable" "$rc $(dev_state "$dev")" "0 $n online Movable"
			note "BENCH method=$method trial=$t ms=$(ms "$t0" "$t1") blocks=$n"
			case $method in
			floor) floor_off "$dev" "$@" ;;
			daxctl) daxctl reconfigure-device --mode=devdax -f "$dev" >/dev/null 2>&1 ;;
			pmemramd) pmemramctl release "$dev" >/dev/null ;;
			esac || bail "cannot put $dev back to devdax after $method"
			[ "$(dev_driver "$dev")" = device_dax ] || bail "$dev not on device_dax after $method"
		done
	done
}

# big_devdax MIB: hot-add an NVDIMM of MIB MiB on node 2 through the host, label it, and make it
# one devdax namespace (region1); sets big_dev to its dax device.  Bails out when a step fails.
big_devdax() {
	local reply nmem
	reply=$(host_request nvdimm-add big "$1" 2) || bail "hot-add failed: $reply"
	wait_for 60 '[ -d /sys/bus/nd/devices/region1 ]' || bail "region1 did not appear"
	nmem=$(cut -d, -f1 /sys/bus/nd/devices/region1/mapping0)
	must "disable region1" ndctl disable-region region1
	must "initialise the labels of $nmem" ndctl init-labels "$nmem"
	must "enable region1" ndctl enable-region region1
	ndctl create-namespace -r region1 -m devdax -a 2M >"$PMEMRAM_OUT/ns-big.json" ||
		bail "cannot create a devdax namespace on region1"
	big_dev=$(jq -r '.daxregion.devices[0].chardev' "$PMEMRAM_OUT/ns-big.json")
}

# dev_state DEV: "N online Movable" style summary of DEV's blocks ("" when none exist).
dev_state() {
	dev_blocks "$1" | while read -r b; do
		f=/sys/devices/system/memory/memory$b
		[ -d "$f" ] || { echo absent; continue; }
		if [ "$(cat "$f/state")" = online ]; then
			echo "online $(cat "$f/valid_zones" | cut -d' ' -f1)"
		else
			cat "$f/state"
		fi
	done | sort | uniq -c | sed 's/^ *//' | paste -sd, -
}

# daemon_count NAME: one of pmemramd's counters (reconciles, uevents, uevents_echo...) from status.
daemon_count() { pmemramctl status --json | jq -r ".daemon.daemon.$1"; }

dev_driver() { basename "$(readlink "/sys/bus/dax/devices/$1/driver" 2>/dev/null)" 2>/dev/null || echo none; }

# wait_for SECONDS 'SHELL CONDITION': evaluate the condition (in this shell,
# afresh each time) every 0.2 s until it holds; fails on timeout.
wait_for() {
	# The counter's name must not hide a variable the condition uses.
	local _wait_for_left=$(($1 * 5))
	while [ "$_wait_for_left" -gt 0 ]; do
		eval "$2" >/dev/null 2>&1 && return 0
		sleep 0.2
		_wait_for_left=$((_wait_for_left - 1))
	done
	echo "still false after $1 s: $2" >&2
	return 1
}

# daemon_verdict DEV: the daemon's "verdict reason" for DEV from pmemramctl status --json.
daemon_verdict() {
	pmemramctl status --json |
		jq -r --arg d "$1" '.daemon.reconcile.plan.devices[]? | select(.device == $d) | "\(.verdict) \(.reason)"'
}

# converged_after T: the monotonic time (seconds) of pmemramd's first
# "converged" reconcile logged after monotonic time T (seconds); empty if none.
converged_after() {
	timeout 60 journalctl -b -u pmemramd -o json |
		jq -r --argjson t "$1" 'select((.MESSAGE | test("converged")) and ((.__MONOTONIC_TIMESTAMP | tonumber) / 1e6 > $t))
			| (.__MONOTONIC_TIMESTAMP | tonumber) / 1e6' | head -n 1
}

# new_uuid: a fresh namespace UUID.
new_uuid() { cat /proc/sys/kernel/random/uuid; }

# init_labels: give the NVDIMMs an (empty) label area, so region0 can hold
# several namespaces (a label-less region is one raw namespace).
init_labels() {
	ndctl disable-region all >&2 && ndctl init-labels -f all >&2 && ndctl enable-region all >&2
}

# mkns NAME MODE SIZE UUID: create a namespace on region0 (SIZE "all": the
# rest of it); prints its dax device (devdax) or block device (fsdax).
mkns() {
	local size=(-s "$3")
	[ "$3" != all ] || size=()
	ndctl create-namespace -r region0 -m "$2" "${size[@]}" -a 2M -n "$1" -u "$4" >"$PMEMRAM_OUT/ns-$1.json" || return 1
	jq -r '.daxregion.devices[0].chardev // .blockdev' "$PMEMRAM_OUT/ns-$1.json"
}

# dax_of NS: the dax device of devdax namespace NS ("" when it has none).
dax_of() {
	local h
	h=$(cat "/sys/bus/nd/devices/$1/holder")
	[ -n "$h" ] && find "/sys/bus/nd/devices/$h/" -mindepth 1 -maxdepth 1 -name 'dax*.*' -printf '%f\n' | head -n 1
}
# ns_online NS: NS is devdax, its dax device enabled and all of its memory
# online as Movable.
ns_online() {
	local d
	[ "$(cat "/sys/bus/nd/devices/$1/mode")" = dax ] || return 1
	d=$(dax_of "$1")
	[ -n "$d" ] && [ "$(dev_state "$d")" = "$(dev_blocks "$d" | grep -c .) online Movable" ]
}

# file_put DEV DIR: a new ext4 file system on /dev/DEV holding DIR/data, 16 MiB
# of random bytes, unmounted again; prints the file's checksum.
file_put() {
	mkfs.ext4 -q -F "/dev/$1" >&2 && mkdir -p "$2" && mount "/dev/$1" "$2" || return 1
	head -c 16M /dev/urandom >"$2/data" && sync && sha256sum <"$2/data"
	umount "$2"
}
# file_sum DEV DIR: the checksum of file_put's file, /dev/DEV mounted on DIR for
# the read only.
file_sum() {
	mount "/dev/$1" "$2" && sha256sum <"$2/data"
	umount "$2"
}

# host_request VERB ARGS...: ask the host (tests/vm/run.sh, which lists the
# verbs) to do something to the machine, such as hot-adding a device.  The
# request and the reply travel as files through the share; waits up to
# $host_request_timeout seconds (default 120) for the reply, prints its text
# and returns its status (124 when no reply came).
host_request() {
	local out=${PMEMRAM_OUT:?} n=1 reply i st
	while [ -e "$out/host-request.$n" ]; do n=$((n + 1)); done
	if ! printf '%s\n' "$*" >"$out/.host-request.$n.tmp" ||
		! mv "$out/.host-request.$n.tmp" "$out/host-request.$n"; then
		echo "host_request: cannot write $out/host-request.$n"
		return 1
	fi
	reply=$out/host-reply.$n
	for ((i = 0; i < ${host_request_timeout:-120} * 10; i++)); do
		[ -e "$reply" ] && break
		sleep 0.1
	done
	if [ ! -e "$reply" ]; then
		echo "host_request: no reply to '$*' in ${host_request_timeout:-120} s ($reply)"
		return 124
	fi
	st=$(head -n 1 "$reply")
	tail -n +2 "$reply"
	[[ $st =~ ^[0-9]+$ ]] || {
		echo "host_request: $reply starts with '$st', not an exit status"
		return 1
	}
	return "$st"
}

# ---- CXL and daxctl ----

# cxl_regions: the CXL regions (bus/cxl), sorted, on one line; empty when none.
cxl_regions() { find /sys/bus/cxl/devices/ -maxdepth 1 -name 'region*' -printf '%f\n' | sort | paste -sd' ' -; }

# cxl_region_dax REGION: the dax device of CXL region REGION ("region0"),
# nothing when it has none (yet).
cxl_region_dax() {
	find "/sys/bus/cxl/devices/$1/" -mindepth 2 -maxdepth 2 -path '*/dax_region*/dax[0-9]*' -printf '%f\n' 2>/dev/null |
		head -n 1
}

# cxl_modules_ok: one assertion for each CXL module that udev loads for
# QEMU's CXL host bridge and type-3 devices.
cxl_modules_ok() {
	local m
	for m in cxl_acpi cxl_pci cxl_mem cxl_pmem; do
		ok "udev loaded $m" wait_for 10 "grep -q '^$m ' /proc/modules"
	done
}

# nd_region_of_cxl R: the nvdimm region of CXL pmem region R, the one at R's
# address (the nd bus numbers its regions on its own).  Says why and fails
# when there is not exactly one.
nd_region_of_cxl() {
	local start f found=
	start=$(($(cat "/sys/bus/cxl/devices/$1/resource")))
	for f in /sys/bus/nd/devices/region*/resource; do
		[ "$(($(cat "$f")))" != "$start" ] || found="$found $(basename "$(dirname "$f")")"
	done
	if [ "$(wc -w <<<"$found")" != 1 ]; then
		echo "not one nvdimm region at $1's $(printf %#x "$start"): '${found# }'"
		return 1
	fi
	echo "${found# }"
}

# daxctl_dev DEV [OPTION...]: daxctl list -d DEV with the options, as one
# JSON object (daxctl prints a lone device as an object or in an array).
daxctl_dev() {
	local d=$1 out
	shift
	out=$(daxctl list "$@" -d "$d") || return
	jq -c 'if type == "array" then .[0] else . end' <<<"$out"
}

# daxctl_ram JSON: "MODE ONLINE/TOTAL MOVABLE" of a daxctl_dev DEV -M object.
daxctl_ram() { jq -r '"\(.mode) \(.online_memblocks)/\(.total_memblocks) \(.movable)"' <<<"$1"; }
