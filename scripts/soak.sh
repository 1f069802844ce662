#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# soak.sh [ours|stock]: make soak (issue #16), not part of make check.
# One lab boot of the soak scenario (tests/lab/scenarios/soak.sh):
# xen-blkfront-64k (or, with "stock", Debian's xen-blkfront) through 50
# xl save/restore cycles, 20 live migrations to localhost and 100
# unbind/reload cycles, fio verify loops on every disk throughout.
# XPS_SCN_SOAK_SAVES, _MIGRATIONS and _RELOADS change the counts.
# Writes the run's table to <out>/soak.md (out: XPS_LAB_OUT, default
# build/soak-<driver>) and prints it, and the boot's own lines (XPS-*,
# dom0's "xps:" notes, every guest's) to <out>/soak-lines.txt: the raw
# record doc/reliability.md keeps beside a table; exits non-zero when a
# check of the boot failed.
#
# soak.sh --table OUT: only the table, from a finished run's folder.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1

# serial_of OUT: the boot's console (the lab writes OUT/<boot>/serial.log)
serial_of() { ls "$1"/*/serial.log 2>/dev/null | head -n 1; }

# table OUT: one row per looped step from the XPS-SOAK lines (STEP N
# ok|bad SECS corrupt=0|1 hang=0|1 [pool_live=PAGES/GRANTS]), the final
# leaks step, and the kernel's BUG/WARNING/Oops lines of every guest
table() {
	local out=$1 dir serial bad
	serial=$(serial_of "$out")
	dir=$(dirname "$serial")
	[ -f "$serial" ] || { echo "soak: no serial.log under $out" >&2; return 1; }
	echo "| step | cycles done | of | failed | corruptions | hangs | pool pages / grants left | seconds (sum, longest) |"
	echo "|---|---|---|---|---|---|---|---|"
	# the "of" column: the counts the scenario planned (its XPS-SOAK-PLAN
	# line: STEP=COUNT...)
	grep -a 'XPS-SOAK ' "$serial" | sed 's/.*XPS-SOAK //' | awk -v want="$(grep -a -m1 'XPS-SOAK-PLAN' "$serial" | sed 's/.*XPS-SOAK-PLAN *//; s/\r$//')" '
	BEGIN { split(want, w, " "); for (i in w) { split(w[i], kv, "="); of[kv[1]] = kv[2] } }
	{
		s = $1
		if (!(s in n)) order[++ns] = s
		n[s]++
		if ($3 != "ok") bad[s]++
		sum[s] += $4
		if ($4 > mx[s]) mx[s] = $4
		for (i = 5; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "corrupt") cor[s] += kv[2]
			if (kv[1] == "hang") hang[s] += kv[2]
			if (kv[1] == "pool_live") {
				pool[s] = 1
				if (kv[2] != "0") { split(kv[2], pg, "/"); if (pg[1] + pg[2] > lp[s] + lg[s]) { lp[s] = pg[1]; lg[s] = pg[2] } }
			}
		}
	}
	END {
		for (i = 1; i <= ns; i++) {
			s = order[i]
			printf "| %s | %d | %s | %d | %d | %d | %s | %d, %d |\n", s, n[s], (s in of) ? of[s] : "?",
				bad[s], cor[s], hang[s], (s in pool) ? sprintf("%d / %d", lp[s], lg[s]) : "-", sum[s], mx[s]
		}
	}'
	echo
	grep -a 'XPS-RESULT soak/leaks ' "$serial" | sed 's/.*XPS-RESULT soak\/leaks /leaks (after the last rmmod): /'
	# the judge's list (tests/lab/lib/judge.sh: JUDGE_BAD, less its
	# allowed lines) over the boot's whole console, every guest's too
	# (each line "N:TEXT"; a guest's text begins "[domU:NAME] ", Xen's
	# "(XEN) ", dom0's is the rest): how many, and whose
	if [ -f "$dir/bad-lines.txt" ]; then
		bad=$(awk 'function add(k) { if (!(k in n)) o[++no] = k; n[k]++; t++ }
			{ sub(/^[0-9]+:/, "") }
			/^\[domU:[^]]*\] / { w = substr($1, 7); sub(/\]$/, "", w); add("domU " w); next }
			/^\(XEN\) / { add("Xen"); next }
			{ add("dom0") }
			END { printf "%d", t; for (i = 1; i <= no; i++) s = s (i > 1 ? ", " : "") o[i] " " n[o[i]]; if (t) printf " (%s)", s }' "$dir/bad-lines.txt")
	fi
	echo "kernel BUG/WARNING/Oops lines (the judge's bad-lines.txt, Xen, dom0 and domUs): ${bad:-no bad-lines.txt}"
	echo "checks: $(grep -c '^PASS' "$dir/results.txt" 2>/dev/null) passed, $(grep -c '^FAIL' "$dir/results.txt" 2>/dev/null) failed"
	grep '^FAIL' "$dir/results.txt" 2>/dev/null | cut -c1-300
}

if [ "${1:-}" = --table ]; then
	table "$2"
	exit
fi

driver=${1:-ours}
case "$driver" in ours|stock) ;; *) echo "usage: $0 [ours|stock] | --table OUT" >&2; exit 2 ;; esac
out=${XPS_LAB_OUT:-$root/build/soak-$driver}
export XPS_SCN_SOAK_DRIVER=$driver
mods=()
if [ "$driver" = ours ]; then
	scripts/lab-modules.sh "$root/build/lab-modules" >/dev/null || exit 1
	mods=(--modules "$root/build/lab-modules")
fi
t0=$(date +%s)
XPS_LAB_OUT=$out tests/lab/lab run "${mods[@]}" soak
rc=$?
{
	echo "# make soak: $driver, $(date -u +%F), commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (modified)'), $(( ($(date +%s) - t0) / 60 )) min"
	echo
	table "$out"
} >"$out/soak.md"
serial=$(serial_of "$out")
[ -z "$serial" ] || grep -aE 'XPS-[A-Z]|xps: ' "$serial" | tr -d '\r' >"$out/soak-lines.txt"
cat "$out/soak.md"
exit $rc
