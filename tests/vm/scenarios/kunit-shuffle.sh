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
ok "the decision table: 36 of 36 rows pass" \
	grep -qx '    # shuffle_decide_test: pass:36 fail:0 skip:0 total:36' <<<"$klog"
ok "other configured orders and MAX_ORDERs: 15 of 15 rows pass" \
	grep -qx '    # shuffle_decide_config_test: pass:15 fail:0 skip:0 total:15' <<<"$klog"
ok "the suite's 6 tests pass (the decision, the requests' nodes, the parameters' setters)" \
	grep -qx '# mm-shuffle: pass:6 fail:0 skip:0 total:6' <<<"$klog"
ok "a request counts only for a node with memory" grep -qx '    ok [0-9]* shuffle_request_counts_test' <<<"$klog"
is "no KUnit case failed anywhere" "$(grep -cE '^ *not ok ' <<<"$klog")" 0

done_testing
