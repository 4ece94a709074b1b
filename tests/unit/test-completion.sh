#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test-completion: pmemramctl's bash completion against a fake sysfs, procfs and configuration (TAP).
#
# Runs every check with the completion alone, then again with bash-completion loaded when
# $BASH_COMPLETION_SCRIPT (default /usr/share/bash-completion/bash_completion) exists.
set -u
export LC_ALL=C

completion=${PMEMRAMCTL_COMPLETION:-$(dirname "$0")/../../daemon/ctl/pmemramctl.bash-completion}
[[ $completion == /* ]] || completion=$PWD/$completion
bash_completion=${BASH_COMPLETION_SCRIPT:-/usr/share/bash-completion/bash_completion}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
finished=

# ---- the fake system -------------------------------------------------------------------------
sys=$tmp/sys
mkdir -p "$sys"/bus/dax/devices/{dax0.0,dax1.0,dax1.1,dax2} \
	"$sys"/bus/nd/devices/{region0,region1,namespace0.0,namespace1.0,ndbus0} \
	"$sys"/bus/cxl/devices/{region2,mem0,mem1,mem2,decoder0.0} \
	"$sys"/devices/system/node/{node0,node1} \
	"$sys"/devices/system/memory/{memory32,memory33} \
	"$tmp"/proc/{1,42,self} \
	"$tmp"/dirs/{cfg-a,cfg-b} \
	"$tmp"/etc/pmemram/pmemram.conf.d \
	"$tmp"/other
echo 6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5f >"$sys"/bus/nd/devices/namespace0.0/uuid
echo >"$sys"/bus/nd/devices/namespace1.0/uuid
echo 0x5eed0001 >"$sys"/bus/cxl/devices/mem0/serial
echo 0 >"$sys"/bus/cxl/devices/mem1/serial # no serial number
touch "$sys"/devices/system/node/possible "$sys"/devices/system/memory/block_size_bytes \
	"$tmp"/proc/meminfo "$tmp"/dirs/cfg-c.conf

conf=$tmp/etc/pmemram
blanks=$' \t\r' # after a header: the parser strips them
cat >"$conf"/pmemram.conf <<EOF
[global]
shuffle = auto
# [claim "commented"]
[claim "fast-tier"]
match = uuid:6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5f
	 [claim  "second"]$blanks
match = device:dax1.0
[claim "bad name"]
[claims "plural"]
[claim	"tab"]
[claim "spaced" ]
[class "bulk"]
nodes = pmem
[class "no-dash"]
EOF
printf '%s\n' '# Written by pmemramctl claim: do not edit.' '[claim "lab"]' 'match = device:dax0.0' \
	>"$conf"/pmemram.conf.d/50-pmemramctl-lab.conf
printf '%s\n' '[claim "manual"]' 'match = all-devdax' >"$conf"/pmemram.conf.d/50-pmemramctl-manual.conf
printf '%s\n' '[claim "second"]' 'online = movable' '[class "fast"]' >"$conf"/pmemram.conf.d/60-hand.conf
printf '%s\n' '[claim "hidden"]' >"$conf"/pmemram.conf.d/.70-hidden.conf
printf '%s\n' '[claim "notes"]' >"$conf"/pmemram.conf.d/notes.txt
printf '%s\n' '[claim "other"]' '[class "other_class"]' >"$tmp"/other/pmemram.conf

export PMEMRAM_SYSFS_ROOT=$sys PMEMRAM_PROCFS_ROOT=$tmp/proc PMEMRAM_CONFIG_DIR=$conf
uuid=6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5f

# ---- helpers ---------------------------------------------------------------------------------
# comp WORD...: complete the last word, as readline hands the line over (a "=" word stands for
# the split readline makes at '=' in "--opt=value": no blanks around it on the line).
comp()
{
	local w

	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE=
	for w; do
		[[ -z $COMP_LINE || $w == = || $COMP_LINE == *= ]] || COMP_LINE+=" "
		COMP_LINE+=$w
	done
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_pmemramctl pmemramctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" \
		>"$tmp/stdout" 2>"$tmp/stderr"
}

# check DESCRIPTION EXPECTED...: COMPREPLY holds exactly EXPECTED, in this order, and nothing was
# printed (but compopt's complaint on stderr that this is not a real completion).
check()
{
	local what=$1 got expected printed

	shift
	n=$((n + 1))
	got="${#COMPREPLY[@]}:$(printf '<%s>' "${COMPREPLY[@]}")"
	expected="$#:$(printf '<%s>' "$@")"
	printed=$(cat "$tmp/stdout" && grep -v 'compopt: not currently executing completion function' "$tmp/stderr")
	if [[ $got == "$expected" && -z $printed ]]; then
		echo "ok $n - $mode: $what"
	else
		echo "not ok $n - $mode: $what"
		echo "#   line:     $COMP_LINE"
		echo "#   got:      $got"
		echo "#   expected: $expected"
		[[ -z $printed ]] || printf "#   printed:  %s\n" "$printed"
		failed=$((failed + 1))
	fi
}

# shellcheck disable=SC2317 # a command for run to complete
zz_pmemram_test_command() { :; }

# ---- the checks ------------------------------------------------------------------------------
checks()
{
	# commands and global options
	comp pmemramctl ""
	check "commands" status plan doctor reconcile release reclaim udev-online claim unclaim shuffle hotplug classes \
		run cache-report help
	comp pmemramctl re
	check "commands by prefix" reconcile release reclaim
	comp pmemramctl --json cl
	check "command after a global option" claim classes
	comp pmemramctl -
	check "global options" -h --help -V --version -j --json

	# subcommands' options
	comp pmemramctl status -
	check "status options" -h --help -j --json
	comp pmemramctl doctor -
	check "doctor options" -h --help -j --json -c --config
	comp pmemramctl claim --
	check "claim long options" --help --json --config --uuid --device --region --hmem --cxl-region \
		--cxl-memdev --all-devdax --online --convert --destroy-data --create --create-region --from-daxctl
	comp pmemramctl cache-report -
	check "cache-report options" -h --help -j --json -p --pid -n --node -c --cache-size --shared-cache --seed --accesses \
		--zipf --svg
	comp pmemramctl release dax0.0 --d
	check "options after an argument" --dry-run
	comp pmemramctl run --class bulk -- -
	check "no options after --"

	# claim names from the configuration
	comp pmemramctl claim ""
	check "claim names: pmemram.conf, then pmemram.conf.d/*.conf" fast-tier second lab manual
	comp pmemramctl claim --device dax0.0 -j s
	check "claim name after options and their values" second
	shopt -s dotglob failglob
	comp pmemramctl claim ""
	check "claim names under dotglob and failglob" fast-tier second lab manual
	comp pmemramctl claim --config "$tmp"/other ""
	check "claim names under failglob, no pmemram.conf.d" other
	shopt -u dotglob failglob
	comp pmemramctl unclaim ""
	check "unclaim: pmemramctl's own drop-ins" lab
	comp pmemramctl claim --config "$tmp"/other ""
	check "claim names under --config DIR" other
	comp pmemramctl claim --config = "$tmp"/other ""
	check "claim names under --config=DIR" other
	comp pmemramctl claim -jc "$tmp"/other ""
	check "claim names under -jc DIR" other
	comp pmemramctl claim "-c$tmp/other" ""
	check "claim names under -cDIR" other
	comp pmemramctl claim --conf "$tmp"/other ""
	check "claim names under --conf DIR (abbreviated)" other
	PMEMRAM_CONFIG_DIR=$tmp/other comp pmemramctl claim ""
	check "claim names under \$PMEMRAM_CONFIG_DIR" other
	comp pmemramctl cache-report -c "$tmp"/other --pid 4
	check "cache-report -c is not --config" 42

	# dax devices, regions, namespaces from sysfs
	comp pmemramctl release ""
	check "release: dax devices" dax0.0 dax1.0 dax1.1
	comp pmemramctl reclaim --json dax1
	check "reclaim: dax devices by prefix" dax1.0 dax1.1
	comp pmemramctl release dax0.0 ""
	check "release takes one device"
	comp pmemramctl claim x --device ""
	check "claim --device DEVICE" dax0.0 dax1.0 dax1.1
	comp pmemramctl claim x --device = ""
	check "claim --device=DEVICE" dax0.0 dax1.0 dax1.1
	comp pmemramctl claim x -d dax1.
	check "claim -d DEVICE" dax1.0 dax1.1
	comp pmemramctl claim x --region ""
	check "claim --region" region0 region1
	comp pmemramctl claim x --cxl-region ""
	check "claim --cxl-region: CXL regions" region2
	comp pmemramctl claim x --cxl-memdev ""
	check "claim --cxl-memdev: memdevs' serials" 0x5eed0001
	comp pmemramctl claim x --uuid ""
	check "claim --uuid: namespaces with one" "$uuid"
	comp pmemramctl claim x --online ""
	check "claim --online" movable normal
	comp pmemramctl udev-online ""
	check "udev-online: memory blocks" memory32 memory33

	# tiering classes
	comp pmemramctl run --class ""
	check "run --class: class names" bulk fast
	comp pmemramctl run -C b
	check "run -C by prefix" bulk
	comp pmemramctl run --config "$tmp"/other --class = ""
	check "run --class= under --config" other_class
	comp pmemramctl run --class bulk zz_pmemram_test_co
	check "run: the command" zz_pmemram_test_command
	comp pmemramctl run --class bulk -- zz_pmemram_test_co
	check "run: the command after --" zz_pmemram_test_command
	comp pmemramctl run --class bulk zz_pmemram_test_command cfg-c
	check "run: the command's arguments (files here)" cfg-c.conf
	comp pmemramctl run --class bulk zz_pmemram_test_command --c
	check "run: the command's options are not run's"

	# other arguments and values
	comp pmemramctl shuffle ""
	check "shuffle apply" apply
	comp pmemramctl hotplug ""
	check "hotplug apply" apply
	comp pmemramctl cache-report --node ""
	check "cache-report --node" 0 1
	comp pmemramctl cache-report -p ""
	check "cache-report -p: processes" 1 42
	comp pmemramctl plan --config "$tmp"/dirs/cfg
	check "--config DIR: directories" "$tmp"/dirs/cfg-a "$tmp"/dirs/cfg-b
	comp pmemramctl reconcile --local --config = "$tmp"/dirs/cfg-b
	check "--config=DIR: directories" "$tmp"/dirs/cfg-b
	comp pmemramctl cache-report --pid 1 --svg "$tmp"/dirs/cfg
	check "cache-report --svg FILE: files and directories" "$tmp"/dirs/cfg-a "$tmp"/dirs/cfg-b "$tmp"/dirs/cfg-c.conf
	finished=$mode
}

# ran_to_end: after checks (called on its own, as failglob aborts every function on the way to
# the top), one more check that they ran to their end.
ran_to_end()
{
	n=$((n + 1))
	if [[ $finished == "$mode" ]]; then
		echo "ok $n - $mode: all checks ran"
	else
		echo "not ok $n - $mode: the checks stopped before their end"
		failed=$((failed + 1))
	fi
}

# ---- against pmemramctl itself ---------------------------------------------------------------
# A value for each option that takes one, which pmemramctl parses.
declare -A value=([config]=$tmp/other [uuid]=$uuid [device]=dax0.0 [region]=region0 [hmem]=60000000-6fffffff
	[cxl-region]=region2 [cxl-memdev]=0x5eed0001 [online]=movable
	[class]=bulk [pid]=1 [node]=0 [cache-size]=1M [shared-cache]=8-15 [seed]=1 [accesses]=1 [zipf]=1
	[svg]=$tmp/occupancy.svg)

# ctl_takes COMMAND OPTION: pmemramctl COMMAND takes OPTION as the completion does (with a value
# attached when the completion says it takes one): "COMMAND OPTION --help" shows the help.
# udev-online takes --help alone.  The environment points anything run by mistake at the fakes.
ctl_takes()
{
	# spec and entry: the completion's helpers set them
	# shellcheck disable=SC2034
	local cmd=$1 o=$2 spec entry long v args out

	_pmemramctl_spec "$cmd"
	if [[ $o == --* ]]; then
		_pmemramctl_entry "" "${o#--}"
	else
		_pmemramctl_entry "${o#-}" ""
	fi
	long=${entry#*/}
	v=${value[${long%=}]-}
	args=("$o")
	[[ $entry == *= && $o == --* ]] && args=("$o=$v")
	[[ $entry == *= && $o != --* ]] && args=("$o$v")
	[[ $cmd == udev-online ]] || args+=(--help)
	out=$(PMEMRAM_SOCKET=$tmp/no.sock PMEMRAM_BOOT_ROOT=$tmp PMEMRAM_SLICE_DIR=$tmp \
		"$PMEMRAMCTL" "$cmd" "${args[@]}" 2>&1 </dev/null) && [[ $out == Usage:* ]] && return 0
	echo "#   pmemramctl $cmd ${args[*]}: $(head -1 <<<"$out")"
	return 1
}

cli_checks()
{
	local c o listed=() offered

	if [[ ! -x ${PMEMRAMCTL:-} ]]; then
		echo "ok $((n += 1)) # SKIP \$PMEMRAMCTL not set: options not checked against pmemramctl"
		return
	fi
	while read -r c _; do
		listed+=("$c")
	done < <("$PMEMRAMCTL" --help | sed -n '/^Commands:/,/^$/{/^  [a-z]/p}')
	comp pmemramctl ""
	check "the commands of pmemramctl --help, and help" "${listed[@]}" help

	for c in "" "${listed[@]}"; do
		comp pmemramctl ${c:+"$c"} -
		offered=("${COMPREPLY[@]}")
		COMPREPLY=()
		for o in "${offered[@]}"; do
			if [[ -z $c ]]; then
				"$PMEMRAMCTL" "$o" --help >/dev/null 2>&1 || COMPREPLY+=("$o")
			else
				ctl_takes "$c" "$o" || COMPREPLY+=("$o")
			fi
		done
		check "pmemramctl ${c:-(global)} takes the ${#offered[@]} options offered (got: those it refuses)"
	done
}

# shellcheck source=../../daemon/ctl/pmemramctl.bash-completion
. "$completion" || {
	echo "Bail out! cannot read $completion"
	exit 1
}
cd "$tmp"/dirs || exit 99
mode=plain
checks
ran_to_end
cli_checks
if [[ -r $bash_completion ]]; then
	# shellcheck disable=SC1090
	. "$bash_completion"
	# shellcheck disable=SC1090
	. "$completion"
	mode=bash-completion
	checks
	ran_to_end
else
	echo "# $bash_completion absent: checked without bash-completion only"
fi
echo "1..$n"
exit $((failed > 0))
