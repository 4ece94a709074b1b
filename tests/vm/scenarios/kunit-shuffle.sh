#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The mm-shuffle KUnit suite (kernel/patches, built in) ran at boot, every
# case passed and none is missing.  The host fails any run whose kernel log
# has a KTAP "not ok"; this scenario checks the counts.
set -u
. ./lib.sh

plan 6
klog=$(dmesg | sed 's/^\[[ 0-9.]*\] //')
ok "the mm-shuffle suite ran" grep -qx '    # Subtest: mm-shuffle' <<<"$klog"
ok "the decision table: 23 of 23 rows pass" \
	grep -qx '    # shuffle_decide_test: pass:23 fail:0 skip:0 total:23' <<<"$klog"
ok "other configured orders and order ranges (8 to 13): 18 of 18 rows pass" \
	grep -qx '    # shuffle_decide_config_test: pass:18 fail:0 skip:0 total:18' <<<"$klog"
ok "the suite's 6 tests pass (the decision, the parameters' setters, the node switch)" \
	grep -qx '# mm-shuffle: pass:6 fail:0 skip:0 total:6' <<<"$klog"
ok "the node switch rejects an invalid node or reason" \
	grep -qx '    ok [0-9]* shuffle_node_set_invalid_test' <<<"$klog"
is "no KUnit case failed anywhere" "$(grep -cE '^ *not ok ' <<<"$klog")" 0

done_testing
