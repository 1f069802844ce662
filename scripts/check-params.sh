#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-params.sh KO...: doc/parameters.md against `modinfo -p` of the
# built modules. For each module: the same parameter names, and for each
# the default the doc gives equals the "(default X" in its
# MODULE_PARM_DESC. Prints one PASS:/FAIL: line per module.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
doc=$root/doc/parameters.md
rc=0
[ $# -gt 0 ] || { echo "usage: $0 KO..." >&2; exit 2; }
for ko in "$@"; do
	m=$(basename "$ko" .ko)
	# "name default" from the doc's table under "## <module>"
	want=$(awk -v m="$m" '
		/^## / { on = ($2 == m) ; next }
		on && /^\| `/ { n = $2; d = $4; gsub(/`/, "", n); print n, d }' "$doc" | sort)
	got=$(/sbin/modinfo -p "$ko" | awk -F: '{
		n = $1; d = $0; sub(/^[^:]*:/, "", d)
		if (match(d, /\(default [^ ]+/)) { d = substr(d, RSTART + 9, RLENGTH - 9); match(d, /^[A-Za-z0-9_-]+/); d = substr(d, 1, RLENGTH) } else d = "?"
		print n, d }' | sort)
	if [ -z "$want" ]; then
		echo "FAIL: params/$m not in doc/parameters.md"; rc=1
	elif [ "$want" = "$got" ]; then
		echo "PASS: params/$m $(echo "$got" | wc -l) parameter(s) and defaults match doc/parameters.md"
	else
		echo "FAIL: params/$m doc vs modinfo: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
		rc=1
	fi
done
exit $rc
