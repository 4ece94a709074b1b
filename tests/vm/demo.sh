#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job: build what is missing (kernel, guest, project), boot the
# guest on the nvdimm+hmat-direct topology and show its persistent memory
# becoming RAM, before and after.
#
# Usage: tests/vm/demo.sh [extra run.sh options]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$repo/tests/deps.sh"
rc=0
"$repo/tests/vm/run.sh" -n demo "$@" demo || rc=$?
report=$cache/runs/demo/share/out/report.txt
if [ -s "$report" ]; then
	cat "$report"
	echo
	echo "(guest logs: $cache/runs/demo/share/out/, kernel console: $cache/runs/demo/console.log)"
fi
exit "$rc"
