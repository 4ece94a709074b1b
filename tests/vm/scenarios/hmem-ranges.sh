#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An hmem device in two pieces: hmem.0's dax region is dynamic, so its device
# is shrunk to 64 MiB, a second device takes the 64 MiB after it, and the
# first grows back to 128 MiB, which the kernel can only give it past the
# second: two physical ranges with a gap between them (mapping0, mapping1).
# A claim by physical range that holds both matches it, and pmemramd refuses
# it (ranges-split, naming the ranges) instead of onlining blocks worked out
# from its first address and its size; status shows both ranges.
set -u
. ./lib.sh

plan 9
range=60000000-6fffffff
dax=/sys/bus/dax/devices

H=
for d in "$dax"/dax*; do
	case $(realpath "$d") in */platform/hmem.*) H=$(basename "$d") ;; esac
done
[ -n "$H" ] || bail "no dax device below a hmem platform device"
R=${H#dax} R=${R%%.*}
note "hmem device: $H, dax region $R"

must "disable $H" daxctl disable-device "$H"
must "shrink $H to 64 MiB" sh -c "printf %s $((64 << 20)) | dd of=$dax/$H/size status=none"
S=$(daxctl create-device -r "$R" -s 64M | jq -r '.[0].chardev // .chardev')
[ -n "$S" ] && [ "$S" != null ] || bail "cannot create a second device in dax region $R"
note "second device: $S, $(cat "$dax/$S/mapping0/start")-$(cat "$dax/$S/mapping0/end")"
note "dax region $R: $(cat "$dax/$H/../dax_region/available_size") bytes available; $H on '$(dev_driver "$H")'"
# Creating the second device brought the first back on device_dax.
[ "$(dev_driver "$H")" = none ] || must "disable $H again" daxctl disable-device "$H"
# dd, not echo: dash's echo says "I/O error" whatever the kernel's error was.
must "grow $H to 128 MiB" sh -c "printf %s $((128 << 20)) | dd of=$dax/$H/size status=none"
must "enable $H on device_dax" daxctl enable-device "$H"

# ranges DEV: its mappingN (not the write-only "mapping" beside them) in device order.
ranges() { for m in "$dax/$1"/mapping[0-9]*; do echo "$(($(cat "$m/page_offset"))) $(cat "$m/start")-$(cat "$m/end")"; done | sort -n | cut -d' ' -f2; }
is "$H has two mappings" "$(ranges "$H" | grep -c .)" 2
want=$(ranges "$H" | paste -sd' ')
note "$H ranges: $want"
is "they are 0x60000000-0x63ffffff and 0x68000000-0x6bffffff" "$want" \
	"0x60000000-0x63ffffff 0x68000000-0x6bffffff"
is "$H is on device_dax" "$(dev_driver "$H")" device_dax

must "claim the soft-reserved range" pmemramctl claim soft --hmem "$range"
must "reconcile" pmemramctl reconcile
is "daemon: $H refused ranges-split" "$(daemon_verdict "$H")" "refused ranges-split"
ok "the verdict names $H and both ranges" sh -c "pmemramctl plan --json | jq -r '.devices[] | select(.device == \"$H\") | .text' |
	grep -qF '$H has 2 physical ranges that are not one range of whole memory blocks (0x60000000-0x63ffffff, 0x68000000-0x6bffffff)'"
is "$H is left on device_dax" "$(dev_driver "$H")" device_dax
bs=$(block_size)
is "no memory block of the window was added" \
	"$(for b in $(seq $((0x60000000 / bs)) $((0x6fffffff / bs))); do [ -e /sys/devices/system/memory/memory$b ] && echo "$b"; done | grep -c .)" 0
prov() { pmemramctl status --json | jq -r --arg d "$1" ".dax_devices[] | select(.device == \$d) | $2"; }
is "status: both ranges, no single one" "$(prov "$H" '"\(.range) \(.ranges | join(" "))"')" \
	"null 0x60000000-0x63ffffff 0x68000000-0x6bffffff"
is "status: $S is one range" "$(prov "$S" '"\(.range) \(.ranges | length)"')" "0x64000000-0x67ffffff 1"

done_testing
