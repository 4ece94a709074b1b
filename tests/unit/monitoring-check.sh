#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The monitoring files pmemram ships (daemon/monitoring/), checked against the programs that read
# them and against the metrics pmemramd really writes (TAP):
#   pmemram-alerts.yml       promtool check rules;
#   pmemram-alerts.test.yml  promtool test rules, with a firing and a quiet case for each alert;
#   pmemram-dashboard.json   valid JSON (jq), Grafana's shape (a datasource variable every query
#                            uses, unique panel ids), expressions that parse (promtool);
# and every pmemram_* metric name and label name in the rules, their tests and the dashboard's
# queries is one pmemramd writes: first the scrape that tests/unit/export-sample writes from the
# export fixture; a family the fixture lacks must be a name daemon/lib/export/metrics.c writes as
# a string literal, or one of its vmstat families ("pmemram_node_%s_total", "pmemram_%s_total")
# for a counter daemon/lib/tiering/class-usage.c names.  promtool and jq missing is a failure.
# Usage: tests/unit/monitoring-check.sh [BUILD-DIR] (where make check built export-sample; the
# current directory by default, as make check runs it).  Sources from $PMEMRAM_SRCDIR, else the
# tree this script is in.  Ends with "N passed, N failed".
set -uo pipefail
export LC_ALL=C

build=${1:-.}
src=${PMEMRAM_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
mon=$src/daemon/monitoring
rules=$mon/pmemram-alerts.yml
rules_test=$mon/pmemram-alerts.test.yml
dashboard=$mon/pmemram-dashboard.json
metrics_c=$src/daemon/lib/export/metrics.c
class_usage_c=$src/daemon/lib/tiering/class-usage.c
# labels Prometheus adds to every series (target labels)
target_labels='instance job'
n=0
passed=0
failed=0
t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT

echo "1..12"

# check NAME COMMAND...: one test point.
check() {
	local name=$1
	shift
	n=$((n + 1))
	if "$@" >"$t/out" 2>&1; then
		echo "ok $n - $name"
		passed=$((passed + 1))
	else
		echo "not ok $n - $name"
		sed 's/^/# /' "$t/out" | head -n 30
		failed=$((failed + 1))
	fi
}

tools() {
	local tool rc=0
	for tool in promtool jq; do
		command -v "$tool" || { echo "$tool is missing (Debian: ${tool/promtool/prometheus})"; rc=1; }
	done
	return $rc
}

# Every alert of the rules has a test case where it fires and one where it must not: the test
# file's "alertname: NAME" lines, each followed by its "exp_alerts:" ("exp_alerts: []": quiet).
alerts_covered() {
	local names
	names=$(sed -n 's/^[[:space:]]*- alert:[[:space:]]*\([A-Za-z0-9_]*\)[[:space:]]*$/\1/p' "$rules")
	[ -n "$names" ] || { echo "no alerts in $rules"; return 1; }
	awk -v names="$names" '
		BEGIN { n = split(names, list, "\n") }
		/^[[:space:]]*#/ { next }
		/^[[:space:]]*alertname:/ { name = $2; next }
		/^[[:space:]]*exp_alerts:/ && name != "" {
			if ($2 == "[]") quiet[name] = 1; else fires[name] = 1
			name = ""
		}
		END {
			for (i = 1; i <= n; i++) {
				if (!(list[i] in fires)) { print list[i] ": no case where it fires"; bad = 1 }
				if (!(list[i] in quiet)) { print list[i] ": no case where it must not fire"; bad = 1 }
			}
			if (!bad) print n " alerts, each tested firing and quiet"
			exit bad
		}' "$rules_test"
}

# The dashboard's expressions, one a line, Grafana's variables given values: the panels' targets
# and the query variables' queries.
dashboard_exprs() {
	jq -r '(.panels[]?, .panels[]?.panels[]?) | .targets[]? | .expr // empty' "$dashboard" &&
		jq -r '.templating.list[]? | select(.type == "query") | (.query | if type == "object" then .query else . end) // empty' \
			"$dashboard"
}

dashboard_shape() {
	local bad
	jq -e '.schemaVersion >= 36' "$dashboard" >/dev/null || { echo "schemaVersion below 36"; return 1; }
	jq -e '[.templating.list[] | select(.type == "datasource" and .name == "datasource" and .query == "prometheus")] | length == 1' \
		"$dashboard" >/dev/null || { echo "no datasource variable \"datasource\" of Prometheus"; return 1; }
	jq -e '[(.panels[], .panels[].panels[]?) | .id] | length == (unique | length)' "$dashboard" >/dev/null ||
		{ echo "panel ids are not unique"; return 1; }
	# every panel but rows, its targets and the query variables on ${datasource}, each target an expr
	bad=$(jq -r '
		((.panels[], .panels[].panels[]?) | select(.type != "row") |
			(select(.datasource.uid != "${datasource}") | "panel \(.id) \(.title): datasource \(.datasource)"),
			(select((.targets | length) == 0) | "panel \(.id) \(.title): no targets"),
			(.title as $p | .targets[] |
				(select(.datasource.uid != "${datasource}") | "panel \($p) target \(.refId): datasource \(.datasource)"),
				(select((.expr // "") == "") | "panel \($p) target \(.refId): no expr"))),
		(.templating.list[] | select(.type == "query" and .datasource.uid != "${datasource}") |
			"variable \(.name): datasource \(.datasource)")' "$dashboard") || return 1
	[ -z "$bad" ] || { echo "$bad"; return 1; }
	echo "$(jq '[.panels[] | select(.type != "row")] | length' "$dashboard") panels on \${datasource}"
}

# The dashboard's expressions parse as PromQL: promtool checks them as recording rules.
dashboard_promql() {
	local i=0 expr
	dashboard_exprs >"$t/exprs" || return 1
	sed -e 's/\$__rate_interval/5m/g' -e 's/\$__interval/1m/g' -e 's/\$instance/.*/g' \
		-e 's/^label_values(\([^,]*\), *[a-z_]*)$/\1/' "$t/exprs" >"$t/exprs.promql"
	{
		echo "groups:"
		echo "  - name: dashboard"
		echo "    rules:"
		while IFS= read -r expr; do
			i=$((i + 1))
			echo "      - record: dashboard:expr$i"
			echo "        expr: $(jq -Rn --arg e "$expr" '$e')"
		done <"$t/exprs.promql"
	} >"$t/dashboard-rules.yml"
	grep -q 'record: dashboard:expr1$' "$t/dashboard-rules.yml" || { echo "no expressions in the dashboard"; return 1; }
	promtool check rules "$t/dashboard-rules.yml"
}

# The families the fixture's scrape has, "NAME LABEL..." a line (a family without labels: NAME).
scrape_families() {
	grep -v '^#' "$t/sample.prom" | sed -n 's/^\(pmemram_[a-z0-9_]*\)\({[^}]*}\)\{0,1\} .*$/\1 \2/p' |
		awk '{
			name = $1; labels = $2; gsub(/"[^"]*"/, "", labels); gsub(/[{}=]/, "", labels); gsub(/,/, " ", labels)
			if (!(name in seen)) { seen[name] = 1; order[++n] = name }
			k = split(labels, l, " ")
			for (i = 1; i <= k; i++) if (!((name, l[i]) in has)) { has[name, l[i]] = 1; lab[name] = lab[name] " " l[i] }
		}
		END { for (i = 1; i <= n; i++) print order[i] lab[order[i]] }'
}

# family NAME: its label names, one line ("" for none), or fails when pmemramd writes no such family.
family() {
	local name=$1 counter
	if grep -q "^$name\( \|$\)" "$t/families"; then
		grep "^$name\( \|$\)" "$t/families" | cut -s -d' ' -f2-
		return 0
	fi
	if grep -q "\"$name\"" "$metrics_c"; then
		echo "?" # a literal of metrics.c the fixture does not write: its labels are not known
		return 0
	fi
	if [[ $name =~ ^pmemram_node_(pg(promote|demote)_[a-z0-9_]+)_total$ ]]; then
		counter=${BASH_REMATCH[1]}
		grep -q '"pmemram_node_%s_total"' "$metrics_c" && grep -q "\"$counter\"" "$class_usage_c" && { echo "node"; return 0; }
	elif [[ $name =~ ^pmemram_(pg(promote|demote)_[a-z0-9_]+)_total$ ]]; then
		counter=${BASH_REMATCH[1]}
		grep -q '"pmemram_%s_total"' "$metrics_c" && grep -q "\"$counter\"" "$class_usage_c" && { echo; return 0; }
	fi
	return 1
}

# names_written FILE...: every pmemram_* name in the files (comments left out) is a family
# pmemramd writes.
names_written() {
	local name bad=0 from_scrape=0 from_source=0
	grep -hv '^[[:space:]]*#' "$@" | grep -oE '(^|[^A-Za-z0-9_:])pmemram_[a-z0-9_]+' | sed 's/^[^p]//' | sort -u >"$t/names"
	[ -s "$t/names" ] || { echo "no pmemram_ names in $*"; return 1; }
	while IFS= read -r name; do
		if grep -q "^$name\( \|$\)" "$t/families"; then
			from_scrape=$((from_scrape + 1))
		elif family "$name" >/dev/null; then
			from_source=$((from_source + 1))
			echo "$name: not in the fixture's scrape; metrics.c writes it (a literal, or a vmstat family)"
		else
			echo "$name: pmemramd writes no such family"
			bad=1
		fi
	done <"$t/names"
	echo "$((from_scrape + from_source)) names: $from_scrape in the fixture's scrape, $from_source from metrics.c"
	return $bad
}

# selector_labels TEXT-FILE: "NAME LABEL" for each label matcher of a pmemram_* selector.
selector_labels() {
	grep -oE 'pmemram_[a-z0-9_]+\{[^}]*\}' "$1" | while IFS= read -r sel; do
		grep -oE '[a-zA-Z_][a-zA-Z0-9_]*[[:space:]]*(=~|!~|!=|=)[[:space:]]*"' <<<"${sel#*\{}" |
			sed -E "s/^([a-zA-Z_][a-zA-Z0-9_]*).*/${sel%%\{*} \1/"
	done
}

# labels_written TEXT-FILE: the label names of the expressions in the file are ones pmemramd
# writes: a pmemram_* selector's on that family, those of by/without/on/ignoring/group_* clauses,
# legends' {{LABEL}} and annotations' $labels.LABEL on some family, or a target label.  Lines
# "LEGEND<TAB>EXPR" of the dashboard have their legend checked against the expression's "by".
labels_written() {
	local file=$1 name label labels all bad=0 n=0 legend expr by l
	# file: node_textfile_mtime_seconds's (node_exporter), for the file's age
	all=" $target_labels file $(cut -s -d' ' -f2- "$t/families" | tr ' ' '\n' | sort -u | tr '\n' ' ')"
	while read -r name label; do
		n=$((n + 1))
		labels=$(family "$name") || { echo "$name: no such family"; bad=1; continue; }
		[ "$labels" != "?" ] || continue
		[[ " $labels $target_labels " == *" $label "* ]] || { echo "$name{$label}: pmemramd writes it with labels: ${labels:-none}"; bad=1; }
	done < <(selector_labels "$file")
	while read -r label; do
		n=$((n + 1))
		[[ $all == *" $label "* ]] || { echo "$label: no family pmemramd writes has this label"; bad=1; }
	done < <({
		grep -oE '\b(by|without|on|ignoring|group_left|group_right)[[:space:]]*\([^)]*\)' "$file" |
			sed -E 's/^[a-z_]+[[:space:]]*\(//; s/\)$//' | tr ',' '\n'
		grep -oE '\$labels\.[a-zA-Z_][a-zA-Z0-9_]*' "$file" | sed 's/^\$labels\.//'
	} | tr -d ' \t' | grep -v '^$' | sort -u)
	# legends: a label an aggregation "by (...)" drops is not in the result
	while IFS=$'\t' read -r legend expr; do
		[ -n "$legend" ] || continue
		by=$(grep -oE '^[a-z_]+[[:space:]]+by[[:space:]]*\([^)]*\)' <<<"$expr" | sed -E 's/^.*\(//; s/\)$//' | tr -d ' ' | tr ',' ' ')
		for l in $(grep -oE '\{\{[[:space:]]*[a-zA-Z_][a-zA-Z0-9_]*[[:space:]]*\}\}' <<<"$legend" | tr -d '{} '); do
			n=$((n + 1))
			if [ -n "$by" ]; then
				[[ " $by " == *" $l "* ]] || { echo "legend {{$l}} of $expr: the aggregation keeps only $by"; bad=1; }
			else
				[[ $all == *" $l "* ]] || { echo "legend {{$l}} of $expr: no family pmemramd writes has this label"; bad=1; }
			fi
		done
	done < <(grep $'\t' "$file" || true)
	echo "$n label uses checked"
	[ "$n" -gt 0 ] || { echo "no labels found in $file"; bad=1; }
	return $bad
}

check "promtool and jq are installed" tools
check "promtool check rules: pmemram-alerts.yml" promtool check rules "$rules"
check "promtool test rules: pmemram-alerts.test.yml" promtool test rules "$rules_test"
check "every alert is tested firing and quiet" alerts_covered
check "pmemram-dashboard.json is valid JSON" jq empty "$dashboard"
check "the dashboard's panels and variables query \${datasource}" dashboard_shape
check "the dashboard's expressions are PromQL (promtool)" dashboard_promql
check "export-sample writes the fixture's scrape" "$build/tests/unit/export-sample" "$t/sample.prom" "$t/sample.nfd"
scrape_families >"$t/families" 2>/dev/null || : >"$t/families"
# the rules and their tests without comments; the dashboard's expressions, and "LEGEND<TAB>EXPR"
grep -hv '^[[:space:]]*#' "$rules" "$rules_test" >"$t/rules.txt" 2>/dev/null
{
	dashboard_exprs
	jq -r '(.panels[]?, .panels[]?.panels[]?) | .targets[]? | select(.legendFormat) | "\(.legendFormat)\t\(.expr)"' "$dashboard"
} >"$t/dashboard.txt" 2>/dev/null
check "the rules' metric names are ones pmemramd writes" names_written "$t/rules.txt"
check "the dashboard's metric names are ones pmemramd writes" names_written "$t/dashboard.txt"
check "the rules' label names are ones pmemramd writes" labels_written "$t/rules.txt"
check "the dashboard's label names are ones pmemramd writes" labels_written "$t/dashboard.txt"

[ "$n" = 12 ] || echo "Bail out! $n tests run, 12 planned"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
