#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Three checks of the tree's hygiene, one test each:
# format: the C lines changed since BASE follow .clang-format (git clang-format of clang-format
#   14, in --diff mode over them); fails naming FILE:LINE of each line it would change, with
#   the diff.
# spdx: every tracked source file names its license in an SPDX-License-Identifier line at its
#   top (after a script's shebang), the license COPYING gives its part of the tree, with its
#   text in LICENSES/.  Left out, as COPYING says: README files and Markdown, the fuzz corpora,
#   the kernel series (kernel/patches/), COPYING, LICENSES/ and .gitignore.
# text: no tracked text file holds a control character other than tab and newline (a form feed
#   typed for troff's \f, say); fails naming FILE:LINE.  Binary files and the fuzz corpora are
#   left out, and the license texts (their form feeds are the originals').
#
# Usage: tests/format-check.sh [BASE]
# BASE defaults to the commit that added .clang-format: the tree was not reformatted then, so
# only the lines changed since are held to it, the work tree's uncommitted changes included.
# A shallow clone may not reach that commit (its oldest commit then seems to add every file):
# the format check falls back to the lines HEAD changes against its parent, and says so; with
# no parent either (depth 1) nothing tells what changed: it says so and is not counted.
# To format the flagged lines:
#   git-clang-format-14 --binary clang-format-14 --extensions c,h BASE
# Ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

case ${1:-} in
-h | --help) awk 'NR > 1 && /^# SPDX-License-Identifier:/ { next } NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
-*) echo "format-check: unknown option $1" >&2; exit 2 ;;
esac

passed=0
failed=0
pass() { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

# shallow_edge COMMIT: whether COMMIT is where a shallow clone's history was cut.
shallow_edge() {
	local f
	f=$(git rev-parse --git-path shallow)
	[ -f "$f" ] && grep -qx "$(git rev-parse "$1")" "$f"
}

# diff_lines: FILE:LINE[-LAST] of each change in the diff on stdin, which goes from the files
# as they are to the files formatted: its - lines (for a pure insertion, the line it goes
# before), in the file's numbering.
diff_lines() {
	awk '
		function flush() { if (first) printf "  %s:%d%s\n", file, first, (last > first ? "-" last : ""); first = 0 }
		/^diff --git / { flush(); hunk = 0; next }
		!hunk && /^\+\+\+ / { file = substr($0, 5); sub(/^b\//, "", file); next }
		/^@@ / { flush(); hunk = 1; split($2, a, ","); line = -a[1]; next }
		!hunk { next }
		/^-/ { if (!first) first = line; last = line; line++; next }
		/^\+/ { if (!first) first = last = line; next }
		/^ / { flush(); line++ }
		END { flush() }
	'
}

check_format() {
	local base what out rc=0

	if [ $# -gt 0 ]; then
		base=$(git rev-parse --verify -q "$1^{commit}") || { fail "format: no commit $1"; return; }
		what="the lines changed since $1"
	else
		base=$(git log --format=%H -1 --diff-filter=A -- .clang-format)
		what="the lines changed since .clang-format came (${base:0:12})"
		if [ -z "$base" ] || shallow_edge "$base"; then
			if ! git rev-parse --verify -q HEAD^ >/dev/null || shallow_edge HEAD; then
				echo "format: shallow clone without HEAD's parent: no way to tell which lines changed, not checked"
				return
			fi
			base=$(git rev-parse HEAD^)
			what="the lines HEAD changes (shallow clone: .clang-format's commit is not in it)"
		fi
	fi
	# git-clang-format-14 exits 0 whether or not it finds lines to change: its output tells.
	out=$(GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=color.ui GIT_CONFIG_VALUE_0=never \
		git-clang-format-14 --binary clang-format-14 --style file --extensions c,h --diff "$base" 2>&1) || rc=$?
	if [ "$rc" != 0 ]; then
		fail "format: git-clang-format-14 failed (exit $rc):"
		sed 's/^/  /' <<<"$out"
	elif ! grep -q '^diff --git ' <<<"$out"; then
		pass "format: $what follow .clang-format"
	else
		fail "format: $what do not follow .clang-format:"
		diff_lines <<<"$out"
		echo "The diff (to apply it: git-clang-format-14 --binary clang-format-14 --extensions c,h ${base:0:12}):"
		sed 's/^/  /' <<<"$out"
	fi
}

# license PATH: the license COPYING gives PATH.
license() {
	case $1 in
	daemon/lib/*) echo LGPL-2.1-or-later ;;
	tests/vm/guest/pagemap-contig.c) echo GPL-2.0-only ;;
	*) echo GPL-2.0-or-later ;;
	esac
}

check_spdx() {
	local f top id want n=0 bad=()

	while IFS= read -r -d '' f; do
		case $f in
		kernel/patches/* | tests/fuzz/corpus/* | LICENSES/* | COPYING | .gitignore | *.md | README | */README) continue ;;
		# formats without comments; debian/copyright states the licenses itself
		debian/changelog | debian/copyright | debian/source/format) continue ;;
		esac
		[ -f "$f" ] || continue # deleted in the work tree, not committed yet
		n=$((n + 1))
		top=$(head -n 2 "$f")
		case $top in
		'#!'*) top=${top#*$'\n'} ;;
		*) top=${top%%$'\n'*} ;;
		esac
		id=$(sed -n 's/^.*SPDX-License-Identifier: \([^ ]*\).*$/\1/p' <<<"$top")
		want=$(license "$f")
		if [ -z "$id" ]; then
			bad+=("$f: no SPDX-License-Identifier line at the top")
		elif [ "$id" != "$want" ]; then
			bad+=("$f: $id, but COPYING gives this part $want")
		elif [ ! -f "LICENSES/$id.txt" ]; then
			bad+=("$f: $id has no LICENSES/$id.txt")
		fi
	done < <(git ls-files -z)
	if [ ${#bad[@]} = 0 ]; then
		pass "spdx: all $n source files name their license"
	else
		fail "spdx: ${#bad[@]} of $n source files:"
		printf '  %s\n' "${bad[@]}"
	fi
}

check_text() {
	local bad
	# -I: binary files are not text; the fuzz corpora hold control bytes on purpose.
	bad=$(git ls-files -z -- . ':!:tests/fuzz/corpus' ':!:LICENSES' ':!:COPYING' | xargs -0 grep -InP '[\x00-\x08\x0b-\x1f\x7f]' -- 2>/dev/null |
		cut -d: -f1,2 || true)
	if [ -z "$bad" ]; then
		pass "text: no control characters in the tracked text files"
	else
		fail "text: control characters at:"
		printf '  %s\n' $bad
	fi
}

check_format "$@"
check_spdx
check_text
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
