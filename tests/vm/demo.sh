#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job: build what is missing (both platforms' kernels and guests,
# and the project), boot the trixie guest (Debian 13 on 6.12) twice and show
# slow memory becoming RAM, before and after: an NVDIMM behind an HMAT
# memory-side cache (nvdimm+hmat-direct), then a CXL memory expander's
# volatile memory (cxl-ram).
#
# Usage: tests/vm/demo.sh [extra run.sh options]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

"$repo/tests/deps.sh"
# bookworm's kernel and guest too, as the test command uses them.
ensure_image bookworm
ensure_image trixie
export PMEMRAM_KERNEL_OUT=$kernel_out PMEMRAM_IMAGE=$image
rc=0
for demo in demo:nvdimm+hmat-direct demo-cxl:cxl-ram; do
	name=${demo%%:*}
	"$repo/tests/vm/run.sh" -p trixie -n "$name" -t "${demo#*:}" "$@" demo || rc=$?
	report=$cache/runs/$name/share/out/report.txt
	if [ -s "$report" ]; then
		cat "$report"
		echo
		echo "(guest logs: $cache/runs/$name/share/out/, kernel console: $cache/runs/$name/console.log)"
	fi
done
exit "$rc"
