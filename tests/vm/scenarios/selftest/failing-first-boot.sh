#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# (Runs with scenarios/ as its working directory.)
# Harness self-test: two boots; an assertion of the first fails, the second
# passes all of its own.  The host must FAIL the run, naming the first boot.
set -u
. ./lib.sh
if [ "${PMEMRAM_BOOT:-1}" = 1 ]; then
	plan 1
	is "deliberately wrong in boot 1, for the harness self-test" "$((2 + 2))" 5
	touch "$PMEMRAM_OUT/reboot-requested"
else
	plan 1
	is "two plus two in boot 2" "$((2 + 2))" 4
fi
done_testing
