#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Harness self-test: the scenario never finishes.  The host must kill the
# guest at its timeout and FAIL the run.
set -u
. ./lib.sh
plan 1
sleep infinity
