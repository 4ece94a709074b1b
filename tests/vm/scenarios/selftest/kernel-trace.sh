#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Harness self-test: every assertion passes, but the kernel prints a Call
# Trace (SysRq 'l' backtraces all CPUs).  The host must FAIL the run.
set -u
. ./lib.sh
plan 1
ok "SysRq l accepted" sh -c 'echo l > /proc/sysrq-trigger'
sleep 2
done_testing
