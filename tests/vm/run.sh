#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot the pmemram test kernel and guest in QEMU and run one scenario in it.
#
# Usage: tests/vm/run.sh [options] SCENARIO
#   -p, --platform NAME   trixie (default: Debian 13, linux-source-6.12) or
#                         bookworm (Debian 12, linux-source-6.1); default
#                         $PMEMRAM_PLATFORM, else trixie
#   -t, --topology NAME   nvdimm+hmat-direct (default), nvdimm+spare-node,
#                         hmat-complex, no-cache, legacy-pmem, hmem, cxl-pmem,
#                         cxl-interleave, cxl-ram, cxl-ram-interleave,
#                         hmem-node
#   -a, --append ARGS     extra kernel command-line arguments
#   -T, --timeout SEC     whole-run limit (default 600)
#   -M, --maxmem SIZE     room for hot-added memory, QEMU's maxmem (default 8G)
#   -e, --env VAR=VALUE   set VAR in the scenario's environment (repeatable)
#   -n, --name ID         run directory name (default: SCENARIO-TOPOLOGY-PLATFORM)
#   -q, --quiet           print only the verdict line
#       --list-topologies
# Environment: PMEMRAM_KVM=1 uses KVM instead of TCG; PMEMRAM_CACHE (default
# /var/cache/pmemram) holds the kernel, the image and the run directories;
# PMEMRAM_PROJECT_BUILD (default $PMEMRAM_CACHE/build) the project's build;
# PMEMRAM_KERNEL_OUT and PMEMRAM_IMAGE, both set, name the platform's kernel
# build and image (run-all.sh's, made once) instead of making them.  The
# scenario sees the platform's name in $PMEMRAM_PLATFORM.
#
# The scenario is tests/vm/scenarios/SCENARIO.sh.  It runs inside the guest
# as a systemd unit after boot and prints TAP; the host gets the TAP, the
# scenario's stderr, the journal and the whole kernel log (the serial console
# goes to a file, the rest through a 9p share).  The run fails on a failed or
# missing assertion, a non-zero scenario exit, a timeout, or a kernel
# WARNING/BUG/oops/Call Trace.  Exit status: 0 pass, 1 fail, 2 usage.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

topologies="nvdimm+hmat-direct nvdimm+spare-node hmat-complex no-cache legacy-pmem hmem cxl-pmem cxl-interleave cxl-ram cxl-ram-interleave hmem-node"
topology=nvdimm+hmat-direct
platform=${PMEMRAM_PLATFORM:-trixie}
append=
timeout_s=600
maxmem=8G
name=
quiet=0
envs=()

usage() {
	awk 'NR > 1 && /^# SPDX-License-Identifier:/ { next } NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	-p | --platform)
		case ${2:-} in trixie | bookworm) ;; *) bench_die "bad --platform '${2:-}' (trixie or bookworm)" ;; esac
		platform=$2; shift 2 ;;
	-t | --topology) topology=${2:?}; shift 2 ;;
	-a | --append) append=${2?}; shift 2 ;;
	-T | --timeout) timeout_s=${2:?}; shift 2 ;;
	-M | --maxmem)
		[[ ${2:-} =~ ^[1-9][0-9]*[MG]$ ]] || bench_die "bad --maxmem '${2:-}' (such as 24G)"
		maxmem=$2; shift 2 ;;
	-e | --env)
		[[ ${2:-} =~ ^[A-Z_][A-Z0-9_]*=[^\'\\]*$ ]] || bench_die "bad --env '${2:-}' (VAR=VALUE)"
		envs+=("$2"); shift 2 ;;
	-n | --name) name=${2:?}; shift 2 ;;
	-q | --quiet) quiet=1; shift ;;
	--list-topologies) echo "$topologies" | tr ' ' '\n'; exit 0 ;;
	-h | --help) usage 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
scenario=$1
[ -f "$repo/tests/vm/scenarios/$scenario.sh" ] ||
	bench_die "no scenario '$scenario' (tests/vm/scenarios/$scenario.sh)"

# QEMU arguments of each topology.  nvdimm+hmat-direct is the topology of
# the design brief: node 0 CPUs + DRAM, node 1 memory-only behind a 128 MiB
# direct-mapped memory-side cache, node 2 the NVDIMM.
topology_args() {
	local assoc=direct cache=1 spare=0
	root_bus=
	case $1 in
	nvdimm+hmat-direct) ;;
	# The same and an empty node 3, for an NVDIMM hot-added on a node of its
	# own (QEMU gives the hot-pluggable range to the last node).
	nvdimm+spare-node) spare=1 ;;
	hmat-complex) assoc=complex ;;
	no-cache) cache=0 ;;
	# nvdimm+hmat-direct with 256 MiB of node 1 soft-reserved (x86 memmap=
	# type 0xefffffff, no EFI needed): hmem.0 and its dax device, target
	# node 1.  A range running into the BIOS area at the top of low memory
	# makes the hmem probe fail with -ENOMEM; this one is known good.
	hmem) kargs+=("memmap=256M%0x60000000-1+0xefffffff") ;;
	hmem-node)
		# Soft-reserved memory that is a NUMA node of its own, as firmware
		# describes a memory expander it set up: node 0 the CPUs and 1 GiB,
		# node 1 256 MiB, memory-only and all soft-reserved (memmap= type
		# 0xefffffff), node 2 1 GiB of plain memory after it (so the BIOS
		# area at the top of low memory lies outside the range), and an
		# HMAT.  6.12 makes hmem.N only of a wholly soft-reserved SRAT
		# range: hmem's range, a part of node 1, gets none there.
		local t lat bw
		qargs+=(-machine pc,hmat=on -smp 2 -m 2304M
			-object memory-backend-ram,id=m0,size=1G
			-object memory-backend-ram,id=m1,size=256M
			-object memory-backend-ram,id=m2,size=1G
			-numa node,nodeid=0,cpus=0-1,memdev=m0
			-numa node,nodeid=1,memdev=m1,initiator=0
			-numa node,nodeid=2,memdev=m2,initiator=0)
		for t in 0:10:10G 1:100:1G 2:10:10G; do
			IFS=: read -r t lat bw <<<"$t"
			qargs+=(-numa "hmat-lb,initiator=0,target=$t,hierarchy=memory,data-type=access-latency,latency=$lat"
				-numa "hmat-lb,initiator=0,target=$t,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bw")
		done
		kargs+=("memmap=256M%0x40000000-1+0xefffffff")
		return
		;;
	legacy-pmem)
		# Node 0 has the CPUs and 3 GiB, node 1 the GiB above 4 GiB (pc
		# puts RAM past 3 GiB there), which memmap= declares persistent.
		# Without a SRAT node for it, kmem rejects the region (node -1).
		qargs+=(-machine pc -m 4G -smp 2
			-object memory-backend-ram,id=m0,size=3G
			-object memory-backend-ram,id=m1,size=1G
			-numa node,nodeid=0,cpus=0-1,memdev=m0
			-numa node,nodeid=1,memdev=m1)
		kargs+=("memmap=1G!4G")
		return
		;;
	cxl-pmem)
		# Node 0 has the CPUs and 2 GiB.  A CXL host bridge (pxb-cxl) with
		# one root port and a type-3 device: 512 MiB of persistent memory
		# (QEMU 7.2's type-3 has no volatile memory) with a 256 MiB label
		# area, serial number 0x5eed0001, and a 4 GiB fixed memory window
		# onto that host bridge, which Linux gives a node of its own (1).
		# Devices without a bus would land on the pxb-cxl bus, which takes
		# only bridges: the root disk and the share go on pcie.0.
		truncate -s 512M "$run/cxl-mem0.img"
		truncate -s 256M "$run/cxl-lsa0.img"
		qargs+=(-machine q35,cxl=on,cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G
			-smp 2 -m 2G
			-object memory-backend-ram,id=m0,size=2G
			-numa node,nodeid=0,cpus=0-1,memdev=m0
			-object "memory-backend-file,id=cxl-mem0,share=on,mem-path=$run/cxl-mem0.img,size=512M"
			-object "memory-backend-file,id=cxl-lsa0,share=on,mem-path=$run/cxl-lsa0.img,size=256M"
			-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
			-device cxl-rp,port=0,bus=cxl.1,id=rp0,chassis=0,slot=2
			-device cxl-type3,bus=rp0,memdev=cxl-mem0,lsa=cxl-lsa0,sn=0x5eed0001,id=cxl-pmem0)
		root_bus=pcie.0
		return
		;;
	cxl-interleave)
		# cxl-pmem with two type-3 devices behind one host bridge, each on
		# a root port of its own (port ids 0 and 1): 512 MiB of persistent
		# memory and a 256 MiB label area each, serial numbers 0x5eed0001
		# and 0x5eed0002.  The 4 GiB window targets the host bridge alone
		# (1-way at the root), so the host bridge's HDM decoder spreads a
		# region over its two root ports: a 2-way interleaved pmem region
		# of 1 GiB, which the scenario makes with cxl create-region -w 2.
		local i
		qargs+=(-machine q35,cxl=on,cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G
			-smp 2 -m 2G
			-object memory-backend-ram,id=m0,size=2G
			-numa node,nodeid=0,cpus=0-1,memdev=m0
			-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1)
		for i in 0 1; do
			truncate -s 512M "$run/cxl-mem$i.img"
			truncate -s 256M "$run/cxl-lsa$i.img"
			qargs+=(-object "memory-backend-file,id=cxl-mem$i,share=on,mem-path=$run/cxl-mem$i.img,size=512M"
				-object "memory-backend-file,id=cxl-lsa$i,share=on,mem-path=$run/cxl-lsa$i.img,size=256M"
				-device "cxl-rp,port=$i,bus=cxl.1,id=rp$i,chassis=0,slot=$((2 + i))"
				-device "cxl-type3,bus=rp$i,memdev=cxl-mem$i,lsa=cxl-lsa$i,sn=0x5eed000$((1 + i)),id=cxl-pmem$i")
		done
		root_bus=pcie.0
		return
		;;
	cxl-ram | cxl-ram-interleave)
		# cxl-pmem's machine with volatile type-3 devices (QEMU 8.1 and
		# later): 512 MiB of RAM each and no label area, serial numbers
		# 0x5eed0101 (and 0x5eed0102 for cxl-ram-interleave, each on a root
		# port of its own, for a 2-way RAM region over the host bridge).
		# Nothing programs their decoders at boot: a RAM region comes from
		# cxl create-region -t ram, and 6.12 hands its dax device to kmem.
		local i n=1
		[ "$1" = cxl-ram ] || n=2
		qargs+=(-machine q35,cxl=on,cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G
			-smp 2 -m 2G
			-object memory-backend-ram,id=m0,size=2G
			-numa node,nodeid=0,cpus=0-1,memdev=m0
			-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1)
		for ((i = 0; i < n; i++)); do
			qargs+=(-object "memory-backend-ram,id=cxl-vmem$i,share=on,size=512M"
				-device "cxl-rp,port=$i,bus=cxl.1,id=rp$i,chassis=0,slot=$((2 + i))"
				-device "cxl-type3,bus=rp$i,volatile-memdev=cxl-vmem$i,sn=0x5eed010$((1 + i)),id=cxl-vmem$i")
		done
		root_bus=pcie.0
		return
		;;
	*) bench_die "unknown topology '$1' (one of: $topologies)" ;;
	esac
	truncate -s 1026M "$run/nvdimm0.img"
	qargs+=(-machine pc,nvdimm=on,hmat=on -smp 2 -m "2G,slots=4,maxmem=$maxmem"
		-object memory-backend-ram,id=m0,size=1G
		-object memory-backend-ram,id=m1,size=1G
		-numa node,nodeid=0,cpus=0-1,memdev=m0
		-numa node,nodeid=1,memdev=m1,initiator=0
		-numa node,nodeid=2,initiator=0)
	[ "$spare" = 0 ] || qargs+=(-numa node,nodeid=3,initiator=0)
	local t lat bw
	for t in 0:10:10G 1:30:5G 2:100:1G; do
		IFS=: read -r t lat bw <<<"$t"
		qargs+=(-numa "hmat-lb,initiator=0,target=$t,hierarchy=memory,data-type=access-latency,latency=$lat"
			-numa "hmat-lb,initiator=0,target=$t,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bw")
	done
	if [ "$cache" = 1 ]; then
		qargs+=(-numa "hmat-cache,node-id=1,size=128M,level=1,associativity=$assoc,policy=write-back,line=64")
	fi
	qargs+=(-object "memory-backend-file,id=nv0,share=on,mem-path=$run/nvdimm0.img,size=1026M"
		-device nvdimm,id=nvdimm0,memdev=nv0,node=2,label-size=2M)
}

# Requests from the scenario for what only the host can do to the machine,
# such as plugging in a device (lib.sh's host_request).  The guest writes
# share/out/host-request.N, one line "VERB ARGS...", and renames it into
# place; the host answers share/out/host-reply.N the same way: the exit
# status on the first line, then text for the guest.  $run/host-requests.log
# keeps both.  Verbs:
#   nvdimm-add ID SIZE_MIB NODE  hot-add NVDIMM ID with SIZE_MIB MiB of
#       persistent memory (and a 2 MiB label area, like nvdimm0) on NUMA
#       node NODE, backed by $run/ID.img; the reply gives its address.

# hmp COMMAND: run one command on the QEMU monitor and print its output, the
# lines between the echoed command and the next prompt.  Fails (saying why)
# when the monitor cannot be reached or does not answer within 60 s.
hmp() {
	local raw i text
	raw=$(mktemp "$run/hmp.XXXXXX")
	# shellcheck disable=SC2094 # the writer watches what socat has received
	{
		printf '%s\n' "$1"
		# Hold the connection until the prompt after the command is back.
		for ((i = 0; i < 600; i++)); do
			[ "$(grep -o '(qemu)' "$raw" | wc -l)" -lt 2 ] || break
			! grep -q ' socat\[[0-9]*\] E ' "$raw" || break
			sleep 0.1
		done
	} | socat -t 0.2 - "UNIX-CONNECT:$run/monitor.sock" >"$raw" 2>&1
	# Drop the carriage returns and the line editor's cursor movements.
	text=$(tr -d '\r' <"$raw" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g')
	rm -f "$raw"
	if [ "$(grep -o '(qemu)' <<<"$text" | wc -l)" -lt 2 ]; then
		echo "no answer from the QEMU monitor $run/monitor.sock to '$1': $(tail -n 1 <<<"$text")"
		return 1
	fi
	awk 'p && /^\(qemu\)/ { exit } p { print } /^\(qemu\)/ { p = 1 }' <<<"$text"
}

# hmp_ok COMMAND: hmp, failing with the monitor's own words on an error.
hmp_ok() {
	local text
	text=$(hmp "$1") || {
		echo "$text"
		return 1
	}
	if grep -q '^Error' <<<"$text"; then
		echo "monitor refused '$1': $(grep '^Error' <<<"$text" | head -n 3 | tr '\n' ' ' | sed 's/ $//')"
		return 1
	fi
	[ -z "$text" ] || echo "$text"
}

# host_nvdimm_add ID SIZE_MIB NODE: the nvdimm-add request.
host_nvdimm_add() {
	[ $# = 3 ] || {
		echo "usage: nvdimm-add ID SIZE_MIB NODE"
		return 2
	}
	local id=$1 size=$2 node=$3 img label=2 text where
	[[ $id =~ ^[a-z][a-z0-9_]*$ ]] || {
		echo "nvdimm-add: bad ID '$id' (a lower-case letter, then letters, digits or _)"
		return 2
	}
	[[ $size =~ ^[1-9][0-9]*$ ]] || {
		echo "nvdimm-add: bad SIZE_MIB '$size'"
		return 2
	}
	[[ $node =~ ^[0-9]+$ ]] || {
		echo "nvdimm-add: bad NODE '$node'"
		return 2
	}
	img=$run/$id.img
	if [ -e "$img" ] || [[ $img == *,* ]]; then
		echo "nvdimm-add: cannot use $img as the backing file of $id (exists, or a comma in the path)"
		return 1
	fi
	truncate -s "$((size + label))M" "$img" || {
		echo "nvdimm-add: cannot create $img"
		return 1
	}
	hmp_ok "object_add memory-backend-file,id=$id-mem,share=on,mem-path=$img,size=$((size + label))M" || {
		rm -f "$img"
		return 1
	}
	hmp_ok "device_add nvdimm,id=$id,memdev=$id-mem,node=$node,label-size=${label}M" || {
		hmp "object_del $id-mem" >/dev/null || true
		rm -f "$img"
		return 1
	}
	where=$(hmp "info memory-devices" | awk -v id="\"$id\"" '
		$1 == "Memory" { p = ($4 == id) } p && $1 == "addr:" { a = $2 } p && $1 == "slot:" { s = $2 }
		END { if (a != "") print "at " a ", slot " s }')
	echo "nvdimm $id: $size MiB ${where:-(not in info memory-devices)}, node $node, label area $label MiB, backed by $img"
}

# serve_request VERB ARGS...: one request; prints the reply text.
serve_request() {
	case ${1:-} in
	nvdimm-add) shift; host_nvdimm_add "$@" ;;
	'') echo "empty request"; return 2 ;;
	*) echo "unknown request '$1' (known: nvdimm-add)"; return 2 ;;
	esac
}

# serve_requests: answers the guest's requests until QEMU has exited (run.sh
# creates $run/qemu-exited) or run.sh is gone.
serve_requests() {
	local req n words st text t0
	while kill -0 "$$" 2>/dev/null && [ ! -e "$run/qemu-exited" ]; do
		for req in "$out"/host-request.*; do
			n=${req##*.}
			if ! [[ $n =~ ^[0-9]+$ ]] || [ -e "$out/host-reply.$n" ]; then
				continue
			fi
			read -r -a words <"$req" || true
			st=0
			t0=$(date +%s%N)
			text=$(serve_request "${words[@]+"${words[@]}"}" 2>&1) || st=$?
			printf '%s\n%s\n' "$st" "$text" >"$out/.host-reply.$n.tmp"
			mv -f "$out/.host-reply.$n.tmp" "$out/host-reply.$n"
			printf '%s request %s: %s\n  reply %s after %d ms: %s\n' "$(date +%T.%N | cut -c1-12)" \
				"$n" "${words[*]+"${words[*]}"}" "$st" $((($(date +%s%N) - t0) / 1000000)) \
				"$text" >>"$run/host-requests.log"
		done
		sleep 0.2
	done
}

name=${name:-$scenario-$topology-$platform}
run=$cache/runs/$name
out=$run/share/out
# run-all.sh builds the kernel and the image once for all its lanes.
if [ -n "${PMEMRAM_KERNEL_OUT:-}" ] && [ -n "${PMEMRAM_IMAGE:-}" ]; then
	kernel_out=$PMEMRAM_KERNEL_OUT image=$PMEMRAM_IMAGE
else
	ensure_image "$platform"
fi

rm -rf "$run"
mkdir -p "$out"
cp -a "$repo/tests/vm/scenarios" "$run/share/scenarios"
# The README, for the scenario that follows its quick start word for word.
cp "$repo/README.md" "$run/share/README.md"
for e in "PMEMRAM_PLATFORM=$platform" "${envs[@]+"${envs[@]}"}"; do
	printf "export %s='%s'\n" "${e%%=*}" "${e#*=}"
done >"$run/share/scenario.env"

qargs=()
kargs=(root=/dev/vda rw console=ttyS0 panic=5 nokaslr "pmemram.scenario=$scenario")
topology_args "$topology"
# shellcheck disable=SC2206 # extra arguments are split on purpose
kargs+=($append)
if [ "${PMEMRAM_KVM:-0}" = 1 ]; then
	qargs+=(-accel kvm -cpu host)
else
	# One thread for every vCPU.  Multi-threaded TCG (QEMU 7.2) now and then
	# let a vCPU execute the int3 of a text patch the kernel had finished
	# (static keys flipped while the other vCPU runs that code: "int3: 0000
	# [#1]"), and died of SIGSEGV in memory_region_dispatch_write while the
	# guest probed its PCI devices.  The vCPUs still interleave, so
	# scenarios that race two CPUs still race; run-all.sh runs guests side
	# by side instead.
	qargs+=(-accel tcg,thread=single -cpu max)
fi
qemu-img create -q -f qcow2 -b "$image" -F raw "$run/root.qcow2"
qargs+=(-kernel "$kernel_out/bzImage" -append "${kargs[*]}")
if [ -n "$root_bus" ]; then
	qargs+=(-drive "file=$run/root.qcow2,format=qcow2,if=none,id=root"
		-device "virtio-blk-pci,drive=root,bus=$root_bus"
		-fsdev "local,path=$run/share,security_model=none,id=share"
		-device "virtio-9p-pci,fsdev=share,mount_tag=pmemram,bus=$root_bus")
else
	qargs+=(-drive "file=$run/root.qcow2,format=qcow2,if=virtio"
		-virtfs "local,path=$run/share,mount_tag=pmemram,security_model=none,id=share")
fi
qargs+=(-display none -serial "file:$run/console.log"
	-monitor "unix:$run/monitor.sock,server=on,wait=off"
	-no-reboot)
printf '%q ' qemu-system-x86_64 "${qargs[@]}" >"$run/qemu.cmdline"

[ "$quiet" = 1 ] || bench_log "booting '$scenario' on $topology${append:+ ($append)}; run dir $run"
start=$(date +%s.%N)
# A scenario that needs a reboot (to see what happens at boot) leaves
# out/reboot-requested; the guest then boots again from the same disk and
# NVDIMM images, up to max_boots times, all within the one timeout.  Host
# requests are served during every boot.  A guest that also leaves
# out/next-cmdline gets that as the next boot's whole kernel command line.
max_boots=4
boot=1
retried=0
problems=()
notes=()
boot_limit=${PMEMRAM_BOOT_LIMIT:-300} # seconds from QEMU start to the scenario start
# sample_cpus: where each vCPU is, five times a second apart, with the
# kernel symbol of each instruction pointer, into $run/cpus-at-timeout.txt.
# Taken just before a run times out: a guest that hangs with interrupts off
# prints nothing on its console, and this is then the only trace of it.
sample_cpus() {
	local i regs
	for ((i = 1; i <= 5; i++)); do
		echo "== sample $i"
		regs=$(hmp "info registers -a") || {
			echo "$regs"
			return
		}
		grep -o 'RIP=[0-9a-f]*' <<<"$regs" | cut -d= -f2 |
			while read -r rip; do
				printf '%s %s\n' "$rip" "$(rip_symbol "$rip")"
			done
		sleep 1
	done >"$run/cpus-at-timeout.txt" 2>&1
}
# rip_symbol ADDR: the System.map symbol at or below ADDR, as sym+0xoff.  Kernel text is in
# the top 2 GiB (ffffffff8...): the low 32 bits are compared, which awk's doubles hold exactly.
rip_symbol() {
	awk -v a="$1" '
		function low(s,  i, v) { v = 0; s = tolower(substr(s, length(s) - 7))
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		BEGIN { hi = tolower(substr(a, 1, length(a) - 8)); t = low(a) }
		tolower(substr($1, 1, length($1) - 8)) == hi { v = low($1); if (v <= t && v >= best) { best = v; name = $3 } }
		END { if (name != "") printf "%s+0x%x\n", name, t - best; else print "?" }' \
		"$kernel_out/System.map"
}
# boot_once: one QEMU run within what is left of the timeout; rc is its exit
# status, or "hung" when the scenario did not start within boot_limit.
boot_once() {
	local q waited=0 sampled=0
	timeout -k 10 "$left" qemu-system-x86_64 "${qargs[@]}" >"$run/qemu.log" 2>&1 &
	q=$!
	while kill -0 "$q" 2>/dev/null; do
		if [ "$sampled" = 0 ] && [ "$waited" -ge $((left - 20)) ]; then
			sampled=1
			sample_cpus
		fi
		if [ ! -e "$run/share/out/uptime-at-start" ] && [ "$waited" -ge "$boot_limit" ]; then
			kill "$q" 2>/dev/null
			wait "$q" 2>/dev/null || true
			rc=hung
			return
		fi
		sleep 1
		waited=$((waited + 1))
	done
	wait "$q" || rc=$?
}
while :; do
	echo "$boot" >"$run/share/boot"
	rc=0
	left=$(echo "$timeout_s - ($(date +%s.%N) - $start)" | bc | cut -d. -f1)
	[ "${left:-0}" -gt 0 ] || { rc=124; break; }
	rm -f "$run/qemu-exited" "$run/share/out/uptime-at-start"
	serve_requests &
	server=$!
	boot_once
	touch "$run/qemu-exited"
	wait "$server" || true
	# A fault of the emulator, not of the guest, and only before the
	# scenario started (nothing in the guest has changed yet): TCG now and
	# then loses a vCPU's timer early in boot (RCU stall reports, then
	# nothing).  One retry per run, said in the verdict.  (Multi-threaded
	# TCG's stale int3 and SIGSEGV, once retried here too, cannot happen
	# with one thread: a QEMU that dies now fails the run.)
	what=
	if [ "$rc" = hung ]; then
		what="hung"
	fi
	if [ -n "$what" ]; then
		# Each attempt's logs kept apart: console.failed<boot>.<attempt>.log.
		kept=console.failed$boot.$((retried + 1)).log
		mv "$run/console.log" "$run/$kept"
		cp "$run/qemu.log" "$run/qemu.${kept#console.}"
		if [ "$retried" = 1 ]; then
			problems+=("boot $boot: $what before the scenario started, twice (see $kept)")
			break
		fi
		retried=1
		notes+=("boot $boot retried: in the first attempt, $what before the scenario started ($kept)")
		[ "$quiet" = 1 ] || bench_log "boot $boot: $what before the scenario started; retrying once"
		continue
	fi
	[ "$rc" = 0 ] && [ -f "$run/share/out/reboot-requested" ] || break
	[ "$boot" -lt "$max_boots" ] || break
	rm -f "$run/share/out/reboot-requested"
	mv "$run/console.log" "$run/console.boot$boot.log"
	# The guest may hand over the next boot's command line, as a boot loader
	# would read it from the guest's configuration (/etc/kernel/cmdline).
	if [ -s "$out/next-cmdline" ]; then
		next=$(tr '\n' ' ' <"$out/next-cmdline")
		mv "$out/next-cmdline" "$run/next-cmdline.boot$((boot + 1))"
		for i in "${!qargs[@]}"; do
			[ "${qargs[$i]}" != -append ] || qargs[i + 1]=$next
		done
		[ "$quiet" = 1 ] || bench_log "boot $((boot + 1)) takes its command line from the guest: $next"
	fi
	[ "$quiet" = 1 ] || bench_log "boot $boot asked for a reboot"
	boot=$((boot + 1))
done
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
elapsed=$(printf '%.1f' "$elapsed")

# Verdict.
case $rc in
0 | hung) ;;
124 | 137)
	problems+=("timed out after ${timeout_s}s")
	[ ! -s "$run/cpus-at-timeout.txt" ] ||
		problems+=("vCPUs just before the timeout: $(awk '!/^==/ { print $2 }' "$run/cpus-at-timeout.txt" | sort | uniq -c | sort -rn | head -n 4 | awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }') (cpus-at-timeout.txt)")
	;;
*) problems+=("qemu exited with status $rc: $(tail -n 3 "$run/qemu.log" | tr '\n' ' ')") ;;
esac
# Every boot's TAP counts: each must have its plan complete, no failure, no
# bail-out and exit status 0.  (A boot the scenario did not reach leaves none.)
planned=0 passed=0 failed=0
for ((b = 1; b <= boot; b++)); do
	tap=$out/result.boot$b.tap
	at=""
	[ "$boot" = 1 ] || at="boot $b: "
	# A boot cut short (timeout, crash) leaves only the partial result.tap.
	if [ ! -f "$tap" ] && [ "$b" = "$boot" ] && [ -f "$out/result.tap" ]; then
		cp "$out/result.tap" "$tap"
		echo none >"$out/exit-status.boot$b"
	fi
	if [ ! -f "$tap" ]; then
		problems+=("${at}no TAP (the scenario did not run)")
		continue
	fi
	st=$(cat "$out/exit-status.boot$b" 2>/dev/null || echo none)
	[ "$st" = 0 ] || problems+=("${at}scenario exit status: $st")
	pl=$( (sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$tap" || true) | head -n 1)
	pa=$(grep -c '^ok ' "$tap" || true)
	fa=$(grep -c '^not ok ' "$tap" || true)
	if [ -z "$pl" ]; then
		problems+=("${at}no TAP plan line")
	elif [ $((pa + fa)) != "$pl" ]; then
		problems+=("${at}planned $pl assertions, saw $((pa + fa))")
	fi
	[ "$fa" = 0 ] || problems+=("${at}$fa assertion(s) failed")
	! grep -q '^Bail out!' "$tap" || problems+=("${at}$(grep -m1 '^Bail out!' "$tap")")
	planned=$((planned + ${pl:-0})) passed=$((passed + pa)) failed=$((failed + fa))
done
tap=$out/result.tap

kernel_bad='WARNING:|BUG:|Call Trace|Oops|Kernel panic|general protection fault|UBSAN:|KASAN:'
[ ! -f "$out/reboot-requested" ] || problems+=("boot $boot still asked for a reboot (at most $max_boots boots)")
# console.failed*.log, from a boot that was retried, is left out: its stall
# reports are why it was retried, and the verdict says so.
# A scenario names a kernel message it expects, one that matches the
# pattern above without being trouble, with a line "# vm: kernel-message-ok
# REGEX"; such lines are left out of the check.
kernel_ok=$(sed -n 's/^# vm: kernel-message-ok \(..*\)$/\1/p' "$repo/tests/vm/scenarios/$scenario.sh" | paste -sd'|')
for f in "$run"/console.boot*.log "$run/console.log" "$out/dmesg.txt"; do
	[ -f "$f" ] || continue
	# The first line of trouble, if any.  Not a test of the pipeline's
	# status: under pipefail, the first grep is killed by SIGPIPE when the
	# second stops at its match, and the pipeline would read as no match.
	bad=$(grep -Ev "${kernel_ok:-^$}" "$f" | grep -Em1 "$kernel_bad" || true)
	if [ -n "$bad" ]; then
		problems+=("kernel trouble in $(basename "$f"): $bad")
		break
	fi
done
# KUnit suites built into the kernel run at boot and report in KTAP.
if [ -f "$out/dmesg.txt" ] && grep -Eq '\] +not ok [0-9]+ ' "$out/dmesg.txt"; then
	problems+=("KUnit failure: $(grep -Em1 '\] +not ok [0-9]+ ' "$out/dmesg.txt" | sed 's/^\[[ 0-9.]*\] *//')")
fi
boot_s=$(cat "$out/uptime-at-start" 2>/dev/null || echo '?')
echo "$elapsed" >"$run/elapsed-seconds"

if [ ${#problems[@]} = 0 ]; then
	echo "PASS $name: $passed/$planned assertions, guest up in ${boot_s}s, run ${elapsed}s${notes[0]:+ (${notes[*]})}"
	exit 0
fi
echo "FAIL $name (run dir $run):"
for p in "${problems[@]}"; do echo "  - $p"; done
for n in "${notes[@]}"; do echo "  - note: $n"; done
if [ "$failed" != 0 ]; then
	echo "  failed assertions:"
	awk '/^not ok /{p=1; print "    " FILENAME ": " $0; next} /^#/{if (p) print "    " $0; next} {p=0}' \
		"$out"/result.boot*.tap
fi
if [ -s "$out/scenario.log" ]; then
	echo "  scenario stderr (tail):"
	tail -n 15 "$out/scenario.log" | sed 's/^/    /'
fi
if [ -s "$run/host-requests.log" ]; then
	echo "  host requests (tail):"
	tail -n 10 "$run/host-requests.log" | sed 's/^/    /'
fi
echo "  guest kernel log (tail):"
tail -n 25 "$(if [ -s "$out/dmesg.txt" ]; then echo "$out/dmesg.txt"; else echo "$run/console.log"; fi)" |
	sed 's/^/    /'
exit 1
