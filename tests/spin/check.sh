#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: model-check the qspinlock-pv wait/kick handshake (qspl_pv.pml)
# with SPIN, exhaustively, and print one line per property:
#   PASS: spin/<property> (N states)   or   FAIL: spin/<property> <why>
#
# Properties, each for pv (fair) and pv-unfair, each in several sizes
# (CPUs x rounds: 3x1, 2x3, and 4x1 where it stays fast):
#   mutex        assertions (mutual exclusion, one hash entry per lock,
#                QSPL_SLOW only with an entry), spurious wakeups allowed
#   lost-wakeup  assertions and no invalid end state, with wakeups only
#                by kick: a halted CPU that is never kicked is one
# Then a self-test: seven deliberately broken variants must each FAIL, so the
# check cannot pass vacuously.
#
# Installs Debian's spin with apt-get when it is missing (needs root).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
model=$here/qspl_pv.pml
work=$(mktemp -d "${TMPDIR:-/tmp}/xps-spin.XXXXXX")
trap 'rm -rf "$work"' EXIT

if ! command -v spin >/dev/null; then
	if [ "$(id -u)" -eq 0 ]; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -q --no-install-recommends spin >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null 2>&1 &&
			  apt-get install -y -q --no-install-recommends spin >/dev/null 2>&1; }
	fi
	if ! command -v spin >/dev/null; then
		echo "FAIL: spin/setup the spin package is not installed (apt-get install spin)"
		exit 1
	fi
fi
cc=${CC:-gcc}

# verify DEFINES PAN_FLAGS: run spin -a, gcc and pan in $work/run; sets
# $states and $result (pass, or the reason it did not).
verify() {
	local defs=$1 flags=$2 d=$work/run out
	rm -rf "$d"
	mkdir -p "$d"
	# shellcheck disable=SC2086
	if ! (cd "$d" && spin -a $defs "$model") >"$d/spin.log" 2>&1; then
		result="spin -a failed: $(tail -n 1 "$d/spin.log")"
		return
	fi
	if ! (cd "$d" && nice -n 19 "$cc" -O2 -DSAFETY -DCOLLAPSE -o pan pan.c) \
		>"$d/cc.log" 2>&1; then
		result="gcc pan.c failed: $(tail -n 1 "$d/cc.log")"
		return
	fi
	# shellcheck disable=SC2086
	out=$(cd "$d" && nice -n 19 ./pan -m2000000 $flags 2>&1)
	states=$(echo "$out" | sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' | head -n 1)
	if echo "$out" | grep -q 'max search depth too small'; then
		result="search depth too small: not exhaustive"
	elif echo "$out" | grep -q 'errors: 0$'; then
		result=pass
	else
		result=$(echo "$out" | grep -m1 -E '^pan:[0-9]*: |^pan: ' | sed 's/^pan:[0-9]*: //')
		[ -n "$result" ] || result="pan found an error"
	fi
}

fail=0
sizes=("-DNCPU=3 -DROUNDS=1" "-DNCPU=2 -DROUNDS=3")
for mode in pv pv-unfair; do
	m=""
	[ "$mode" = pv-unfair ] && m=-DUNFAIR
	for prop in mutex lost-wakeup; do
		if [ "$prop" = mutex ]; then
			defs="$m -DSPURIOUS" flags=-E list=("${sizes[@]}")
		else
			defs="$m" flags="" list=("${sizes[@]}" "-DNCPU=4 -DROUNDS=1")
		fi
		total=0 why="" desc=""
		for size in "${list[@]}"; do
			n=${size#-DNCPU=}
			desc="$desc ${n%% *}x${size##*=}"
			verify "$defs $size" "$flags"
			if [ "$result" != pass ]; then
				why="${size//-D/}: $result"
				break
			fi
			total=$(awk -v a="$total" -v b="$states" 'BEGIN { printf "%.0f", a + b }')
		done
		if [ -z "$why" ]; then
			echo "PASS: spin/$mode-$prop ($total states, CPUs x rounds:$desc)"
		else
			echo "FAIL: spin/$mode-$prop $why"
			fail=1
		fi
	done
done

# Self-test: each broken variant must be caught, by the property named.
selftest() {
	local name=$1 defs=$2 flags=$3 want=$4
	verify "$defs -DNCPU=3 -DROUNDS=1" "$flags"
	if [ "$result" = pass ]; then
		echo "FAIL: spin/selftest-$name the broken variant passed: the check is vacuous"
		fail=1
	elif ! echo "$result" | grep -q "$want"; then
		echo "FAIL: spin/selftest-$name failed for another reason: $result"
		fail=1
	else
		echo "PASS: spin/selftest-$name (caught: $result)"
	fi
}
selftest waiter-order "-DBROKEN_WAITER_ORDER" "" "invalid end state"
selftest kick-early "-DBROKEN_KICK_EARLY" "" "invalid end state"
selftest kick-early-unfair "-DBROKEN_KICK_EARLY -DUNFAIR" "" "invalid end state"
selftest nest-clear "-DBROKEN_NEST_CLEAR" "" "invalid end state"
selftest slow-first "-DBROKEN_SLOW_FIRST -DSPURIOUS" "-E" "assertion violated"
selftest rehash-early "-DBROKEN_REHASH_EARLY -DSPURIOUS" "-E" "assertion violated"
selftest owner-rehash "-DBROKEN_OWNER_REHASH -DSPURIOUS" "-E" "assertion violated"
exit $fail
