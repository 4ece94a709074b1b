#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The mm-shuffle KUnit suite (kernel/patches, built in) ran at boot, every
# case passed and none is missing.  The host fails any run whose kernel log
# has a KTAP "not ok"; this scenario checks the counts.
set -u
. ./lib.sh

plan 5
klog=$(dmesg | sed 's/^\[[ 0-9.]*\] //')
ok "the mm-shuffle suite ran" grep -qx '    # Subtest: mm-shuffle' <<<"$klog"
ok "the decision table: 36 of 36 rows pass" \
	grep -qx '    # shuffle_decide_test: pass:36 fail:0 skip:0 total:36' <<<"$klog"
ok "other configured orders and MAX_ORDERs: 15 of 15 rows pass" \
	grep -qx '    # shuffle_decide_config_test: pass:15 fail:0 skip:0 total:15' <<<"$klog"
ok "the suite's 5 tests pass (the decision and the parameters' setters)" \
	grep -qx '# mm-shuffle: pass:5 fail:0 skip:0 total:5' <<<"$klog"
is "no KUnit case failed anywhere" "$(grep -cE '^ *not ok ' <<<"$klog")" 0

done_testing
