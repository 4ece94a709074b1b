#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's quick start, as a new user runs it on a machine with a CXL
# memory expander (QEMU's mem0, serial 0x5eed0101, the serial the README
# shows): the commands of its indented blocks, read from the README itself
# (run.sh puts it in the share), in order and word for word.  The kernel of
# this bench makes no region at probe, so the claim as written matches a
# memdev with no region, and warns so: the README says to add
# --create-region=ram then, and the run does that.  Then the
# memory is given back with the README's second block.  Every command's
# output goes to out/readme-quickstart.txt, the transcript the note reads.
set -u
. ./lib.sh

plan 20
readme=/mnt/pmemram/README.md
[ -r "$readme" ] || bail "no README.md in the share"
transcript=$PMEMRAM_OUT/readme-quickstart.txt
cxl_modules_ok

# The indented lines of the quick start that run pmemramctl, one per line.
commands=$(awk '/^## Quick start/ { on = 1; next } /^## / { on = 0 } on && /^    pmemramctl / { sub(/^    /, ""); print }' \
	"$readme")
note "the README's commands: $(paste -sd';' - <<<"$commands")"
is "the README's quick start has the six pmemramctl commands" "$(wc -l <<<"$commands")" 6

# run_readme N: the README's Nth pmemramctl command, as written; its output
# goes to the transcript, its exit status to stdout.
run_readme() {
	local cmd rc=0
	cmd=$(sed -n "$1p" <<<"$commands")
	printf '\n$ %s\n' "$cmd" >>"$transcript"
	# shellcheck disable=SC2086 # the README's words
	$cmd >>"$transcript" 2>&1 || rc=$?
	echo "$rc"
}

is "1. pmemramctl status" "$(run_readme 1)" 0
# doctor's exit is 1 for warnings: here the memdev with capacity in no region.
is "2. pmemramctl doctor: a warning (exit 1)" "$(run_readme 2)" 1
ok "doctor names mem0's serial and the claim with --create-region=ram" \
	grep -q 'claim NAME --cxl-memdev 0x5eed0101 --create-region=ram' "$transcript"
claim=$(sed -n 3p <<<"$commands")
is "3. the README's claim names 0x5eed0101" "$claim" "pmemramctl claim expander --cxl-memdev 0x5eed0101"
rc=$(run_readme 3)
note "the claim as written exited $rc"
ok "the claim as written warns: mem0 is in no region, add --create-region=ram" \
	grep -q 'CXL memdev 0x5eed0101 has no region with a dax device.*--create-region=ram' "$transcript"
is "the claim as written leaves the memory where it was: no region" "$(cxl_regions)" ""
# What the README says next, for a kernel that made no region.
printf '\n$ %s --create-region=ram\n' "$claim" >>"$transcript"
ok "the claim with --create-region=ram, as the README says" sh -c "$claim --create-region=ram >>'$transcript' 2>&1"
# pmemramd makes the region after the reload: its dax device comes a moment later.
# shellcheck disable=SC2016 # expanded by wait_for
ok "its memory is online as Movable" \
	wait_for 60 'dax=$(cxl_region_dax "$(cxl_regions)") && [ -n "$dax" ] && [ "$(dev_state "$dax")" = "4 online Movable" ]'
dax=$(cxl_region_dax "$(cxl_regions)")
note "the expander's dax device: $dax"
is "4. pmemramctl status" "$(run_readme 4)" 0
ok "status shows it as system-ram" grep -q "^  $dax *system-ram" "$transcript"
is "pmemramd's verdict: converged" "$(daemon_verdict "$dax")" "converged none"

# The second block names dax0.0: the device this machine gave.
is "5. the README's release names the device this machine gave" "$(sed -n 5p <<<"$commands")" \
	"pmemramctl release $dax"
is "5. pmemramctl release $dax" "$(run_readme 5)" 0
is "6. pmemramctl unclaim expander" "$(run_readme 6)" 0
is "the device is back on device_dax" "$(dev_driver "$dax")" device_dax

done_testing
