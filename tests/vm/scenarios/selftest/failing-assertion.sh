#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# (Runs with scenarios/ as its working directory.)
# Harness self-test: one of two assertions fails.  The host must FAIL the run
# and name the failed assertion.
set -u
. ./lib.sh
plan 2
is "two plus two" "$((2 + 2))" 4
is "deliberately wrong, for the harness self-test" "$((2 + 2))" 5
done_testing
