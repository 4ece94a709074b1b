#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# page_alloc.shuffle given twice on the command line, as a distribution's
# default and an administrator's override would give it: the last occurrence
# wins.  The parameter reads the effective state, and a fresh 256 MiB buffer
# on node 0 shows what the allocator does: neighbouring 4 MiB pieces are
# physically consecutive for most of it when the free lists are in order
# (ratio >= 0.8), almost never when they are shuffled (ratio <= 0.05).
# Linux since 839195352d82 ignores a later "=0" and keeps shuffling.
#   EXPECT_SHUFFLED  Y if the last occurrence turns shuffling on, N if off
set -u
. ./lib.sh

: "${EXPECT_SHUFFLED:?}"
probe=/usr/lib/pmemram-test/pagemap-contig
pages=$((256 << 20 >> 12))
plan 3

note "command line: $(cat /proc/cmdline)"
is "page_alloc.shuffle reads $EXPECT_SHUFFLED" \
	"$(cat /sys/module/page_alloc/parameters/shuffle)" "$EXPECT_SHUFFLED"

m=$(numactl --membind=0 "$probe" 256 4) || bail "pagemap-contig on node 0 failed"
note "node 0: $m"
is "the whole buffer is on node 0" "$(sed -n 's/.*\bnode0=\([0-9]*\).*/\1/p' <<<"$m")" "$pages"
ratio=$(sed -n 's/.*\bratio=\([0-9.]*\).*/\1/p' <<<"$m")
if [ "$EXPECT_SHUFFLED" = Y ]; then
	ok "shuffled: consecutive-piece ratio $ratio <= 0.05" awk -v r="$ratio" 'BEGIN { exit !(r <= 0.05) }'
else
	ok "in order: consecutive-piece ratio $ratio >= 0.8" awk -v r="$ratio" 'BEGIN { exit !(r >= 0.8) }'
fi

done_testing
