#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The files pmemramd writes for others, checked by the programs that read them: the Prometheus
# text by promtool and by a real node_exporter's textfile collector (on 127.0.0.1, a free port),
# the node-feature-discovery file against NFD's and Kubernetes' rules.  Both the export fixture
# (tests/unit/export-sample) and a pmemramd run on this machine with nothing claimed.
# Usage: tests/unit/metrics-scrape.sh BUILD-DIR (where make check built export-sample and pmemramd).
# Ends with "N passed, N failed".
set -uo pipefail

build=${1:?usage: metrics-scrape.sh BUILD-DIR}
passed=0
failed=0
exporter_pid=
daemon_pid=
t=$(mktemp -d)

cleanup() {
	[ -z "$exporter_pid" ] || kill "$exporter_pid" 2>/dev/null
	[ -z "$daemon_pid" ] || kill "$daemon_pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT

# check NAME COMMAND...: one test point.
check() {
	local name=$1
	shift
	if "$@" >"$t/out" 2>&1; then
		echo "ok - $name"
		passed=$((passed + 1))
	else
		echo "not ok - $name"
		sed 's/^/    /' "$t/out" | head -n 20
		failed=$((failed + 1))
	fi
}

# nfd_check FILE: the comment, "# +expiry-time=" in RFC 3339 and in the future, then only
# pmemram.io/NAME=VALUE lines with names and values of at most 63 characters of [A-Za-z0-9._-]
# that start and end with a letter or digit (a value may be empty); at most 64 KiB.
nfd_check() {
	local file=$1 n=0 line expiry part='[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?'
	[ "$(stat -c %s "$file")" -le 65536 ] || { echo "larger than 64 KiB"; return 1; }
	while IFS= read -r line; do
		n=$((n + 1))
		case $n in
		1) [ "${line:0:1}" = "#" ] || { echo "line 1 is not a comment: $line"; return 1; } ;;
		2)
			expiry=${line#"# +expiry-time="}
			[ "$expiry" != "$line" ] || { echo "line 2 is not the expiry: $line"; return 1; }
			[[ $expiry =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})$ ]] ||
				{ echo "not RFC 3339: $expiry"; return 1; }
			[ "$(date -d "$expiry" +%s)" -gt "$(date +%s)" ] || { echo "expired: $expiry"; return 1; }
			;;
		*)
			[[ $line =~ ^pmemram\.io/($part)=(($part)?)$ ]] || { echo "not a valid label: $line"; return 1; }
			;;
		esac
	done <"$file"
	[ "$n" -ge 3 ] || { echo "no labels"; return 1; }
	echo "$((n - 2)) labels"
}

port_is_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# scrape DIR OUT: run node_exporter with only the textfile collector on DIR, its /metrics in OUT.
scrape() {
	local dir=$1 out=$2 port
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 30000))
		port_is_free "$port" || continue
		/usr/bin/prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
			--collector.disable-defaults --collector.textfile \
			--collector.textfile.directory="$dir" >"$t/exporter.log" 2>&1 &
		exporter_pid=$!
		for _ in $(seq 50); do
			curl -sf "http://127.0.0.1:$port/metrics" >"$out" && break
			kill -0 "$exporter_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$exporter_pid" 2>/dev/null
		wait "$exporter_pid" 2>/dev/null
		exporter_pid=
		[ -s "$out" ] && return 0
	done
	echo "node_exporter did not serve /metrics:"
	cat "$t/exporter.log"
	return 1
}

# served DIR PATTERN...: node_exporter serves the directory's files without a scrape error, with
# a line matching each pattern (extended regular expressions).
served() {
	local dir=$1 p
	shift
	scrape "$dir" "$t/scraped" || return 1
	grep -qx 'node_textfile_scrape_error 0' "$t/scraped" || {
		grep -E 'textfile|^# ' "$t/scraped" | grep -v '^# [HT]' | head
		cat "$t/exporter.log"
		return 1
	}
	for p in "$@"; do
		grep -Eqx -- "$p" "$t/scraped" || { echo "not served: $p"; return 1; }
	done
	echo "$(grep -c '^pmemram_' "$t/scraped") pmemram samples served"
}

# The fixture.
mkdir -p "$t/sample"
check "export-sample writes both files" "$build/tests/unit/export-sample" "$t/sample/pmemram.prom" "$t/sample/nfd"
check "promtool check metrics: the fixture" sh -c "promtool check metrics <'$t/sample/pmemram.prom'"
check "NFD feature file: the fixture" nfd_check "$t/sample/nfd"
check "node_exporter serves the fixture" served "$t/sample" \
	'pmemram_ready 1' 'pmemram_reconciles_total\{result="converged"\} 3' \
	'pmemram_dax_devices\{source="nvdimm",state="system-ram"\} 2' \
	'pmemram_release_failures_total\{error="EBUSY",outcome="rolled-back"\} 2' \
	'pmemram_node_memory_side_cache_bytes\{indexing="direct-mapped",level="1",node="1",write_policy="write-back"\} 1\.34217728e\+08' \
	'pmemram_class_node\{class="slow",node="2"\} 1' \
	'pmemram_class_memory_bytes\{class="fast",node="0"\} 6\.7108864e\+07' \
	'pmemram_class_memory_outside_bytes\{class="fast"\} 4096' \
	'pmemram_node_pgpromote_success_total\{node="2"\} 17'

# pmemramd on this machine, nothing claimed (it changes nothing), writing its files once it started.
mkdir -p "$t/daemon/etc" "$t/daemon/textfile"
PMEMRAM_CONFIG_DIR=$t/daemon/etc PMEMRAM_SLICE_DIR=$t/daemon/slices PMEMRAM_LOG_TARGET=stderr \
	"$build/pmemramd" --socket "$t/daemon/pmemramd.sock" --settle-timeout 0 \
	--metrics-textfile "$t/daemon/textfile/pmemramd.prom" --nfd-features "$t/daemon/nfd" 2>"$t/daemon.log" &
daemon_pid=$!
for _ in $(seq 100); do
	grep -qx 'pmemram_ready 1' "$t/daemon/textfile/pmemramd.prom" 2>/dev/null && [ -s "$t/daemon/nfd" ] && break
	sleep 0.1
done
kill "$daemon_pid" 2>/dev/null
wait "$daemon_pid" 2>/dev/null
daemon_pid=
check "pmemramd writes both files" test -s "$t/daemon/textfile/pmemramd.prom" -a -s "$t/daemon/nfd"
check "promtool check metrics: pmemramd's" sh -c "promtool check metrics <'$t/daemon/textfile/pmemramd.prom'"
check "NFD feature file: pmemramd's" nfd_check "$t/daemon/nfd"
check "node_exporter serves pmemramd's" served "$t/daemon/textfile" \
	'pmemram_ready 1' 'pmemram_reconciles_total\{result="converged"\} 1' 'pmemram_unmatched_claims 0'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
