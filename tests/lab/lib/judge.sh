# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# judge.sh - turn a serial log into one PASS:/FAIL: line per step.
#
# The guests report steps as XPS-RESULT lines (guest/lib.sh).  The judge
# adds what a guest cannot report about itself:
#   cpu-selfcheck  dom0 and the scenario's domUs agreed with the host's
#                  digests; a mismatch is a LAB FAULT (emulator), not a
#                  test failure
#   <step> missing no result line: the boot hung, timed out or crashed
#   log-clean      no kernel/Xen trouble anywhere in the log
#   complete       the scenario's end marker and dom0's XPS-DONE arrived
# Exit: 0 all pass, 1 some failure, 3 a lab fault (results untrustworthy).

# Kernel/Xen trouble, wherever it appears (Xen, dom0 console, domU console
# tails, dmesg dumps).  BUG/WARNING/Oops only as whole words.
JUDGE_BAD='(^|[^A-Za-z_])(BUG|WARNING|Oops)([^A-Za-z_]|$)|Call Trace|general protection|soft lockup|hung task|blocked for more than [0-9]+ seconds|Kernel panic'
# Known-harmless matches, each with the reason it is harmless.
JUDGE_ALLOW=(
)

judge_emit() { # judge_emit SCN STEP PASS|FAIL DETAIL
	if [ "$3" = PASS ]; then
		echo "PASS: lab/$LAB_ARCH/$1/$2"
	else
		echo "FAIL: lab/$LAB_ARCH/$1/$2${4:+ $4}"
		JUDGE_FAILS=$((JUDGE_FAILS + 1))
	fi
}

# judge_live LOG ELAPSED: while QEMU runs, one "LIVE: " line on stdout for
# each new milestone in LOG (dom0 up, a domU created, a step's result, a
# scenario's end, kernel trouble, a lab fault), read from the complete
# lines after the first JUDGE_LIVE_SEEN (which it advances). These are
# progress only: the verdicts are judge_run's, on the whole log.
JUDGE_LIVE_SEEN=0
judge_live() {
	local log=$1 t=$2 n
	[ -f "$log" ] || return 0
	n=$(wc -l <"$log")
	[ "$n" -gt "$JUDGE_LIVE_SEEN" ] || return 0
	sed -n "$((JUDGE_LIVE_SEEN + 1)),${n}p" "$log" | tr -d '\r\000' |
	awk -v a="$LAB_ARCH" -v t="+${t}s" -v bad="$JUDGE_BAD" '
		function live(s) { print "LIVE: [" t "] " substr(s, 1, 200); fflush() }
		{ sub(/^\[domU:[^]]*\] /, "") }
		/^XPS-DAEMONS dom0/ { live("lab/" a " dom0 up"); next }
		/^XPS-DOMU / { live("lab/" a "/" $3 " domU " $2 " up, domid " $4 ", " $5); next }
		/XPS-RESULT [^ ]+ (PASS|FAIL)/ {
			sub(/.*XPS-RESULT /, ""); r = $1; $1 = ""
			live("lab/" a "/" r $0); next }
		/^XPS-SCENARIO-END / { live("lab/" a "/" $2 " ended after " $3 "s"); next }
		/XPS-LABFAULT / { sub(/.*XPS-LABFAULT /, ""); live("lab/" a " LAB FAULT " $0); next }
		/^XPS-DONE/ { live("lab/" a " dom0 done"); next }
		/XPS-(SELFCHECK|SAMPLE) / { next }
		$0 ~ bad { live("lab/" a " trouble: " $0) }'
	JUDGE_LIVE_SEEN=$n
}

# judge_run DIR SCENARIO...: judge DIR/serial.log; writes DIR/results.txt.
judge_run() {
	local dir=$1; shift
	# The judge must always finish: a grep without a match is an answer.
	local -; set +e
	local log=$dir/clean.log s step steps line verdict detail bad a d
	[ -f "$dir/serial.log" ] || die "no $dir/serial.log"
	JUDGE_FAILS=0; JUDGE_LABFAULT=0
	# Serial output has CRs and, around resets, NULs.
	tr -d '\r\000' <"$dir/serial.log" >"$log"
	# File each guest's dmesg dump separately for reading.
	awk '/XPS-DMESG-BEGIN / { f = $NF; gsub(/[^A-Za-z0-9_.-]/, "_", f); f = dir "/dmesg-" f ".txt"; next }
	     /XPS-DMESG-END / { f = ""; next }
	     f != "" { sub(/^\[domU:[^]]*\] /, ""); print > f }' dir="$dir" "$log"
	# Offending lines, minus our own structured lines and the allow list.
	grep -nE "$JUDGE_BAD" "$log" | grep -vE 'XPS-(RESULT|SELFCHECK|LABFAULT) ' >"$dir/bad-lines.txt" || true
	for a in "${JUDGE_ALLOW[@]}"; do
		grep -vE "$a" "$dir/bad-lines.txt" >"$dir/bad-lines.tmp" || true
		mv "$dir/bad-lines.tmp" "$dir/bad-lines.txt"
	done
	# Why a marker may be missing: QEMU's exit status tells a timeout apart.
	local why="hang or crash; QEMU exited by itself"
	case "$(sed -n 's/^qemu_rc=//p' "$dir/qemu.log" 2>/dev/null)" in
	124|137) why="QEMU killed by the run's timeout: hang or too slow" ;;
	"") why="hang, crash or timeout" ;;
	esac
	{
	for s in "$@"; do
		steps=$(scenario_var "$s" steps)
		# domU names of this scenario, for attributing their log lines.
		local domus
		domus=$(grep -oE "XPS-DOMU [^ ]+ $s " "$log" | awk '{ print $2 }' | xargs)
		# A scenario past its budget: dom0 destroyed its domUs (the
		# domU-exit result says so), whatever QEMU did afterwards.
		local swhy=$why noresult=
		grep -qE "XPS-RESULT $s/domU-exit FAIL .*still running after" "$log" &&
			swhy="past the scenario's budget: dom0 destroyed its domU; slow or hung"
		for step in $steps; do
			if [ "$step" = cpu-selfcheck ]; then
				line=$(grep -oE "XPS-LABFAULT ($s|\*) .*" "$log" | head -n1 || true)
				if [ -n "$line" ]; then
					JUDGE_LABFAULT=1
					judge_emit "$s" "$step" FAIL "LAB FAULT (emulator, not the driver): ${line#XPS-LABFAULT }"
				elif grep -q 'XPS-SELFCHECK \* dom0 OK' "$log" && grep -qE "XPS-SELFCHECK $s [^ ]+ OK" "$log"; then
					judge_emit "$s" "$step" PASS
				else
					judge_emit "$s" "$step" FAIL "no self-check result from dom0 and a $s domU (boot stopped early?)"
				fi
				continue
			fi
			line=$(grep -oE "XPS-RESULT $s/$step (PASS|FAIL).*" "$log" | grep -m1 ' FAIL' ||
			       grep -oE -m1 "XPS-RESULT $s/$step (PASS|FAIL).*" "$log" || true)
			if [ -z "$line" ]; then
				judge_emit "$s" "$step" FAIL "no result ($swhy; see $dir/serial.log)"
				noresult=1
				continue
			fi
			read -r _ _ verdict detail <<<"$line"
			judge_emit "$s" "$step" "$verdict" "$detail"
			# where a scenario's minutes go (steps of 20 s or more)
			line=$(grep -oE -m1 "XPS-STEPTIME $s/$step [0-9]+" "$log" || true)
			if [ -n "$line" ] && [ "${line##* }" -ge 20 ]; then echo "TIME: step/$s/$step ${line##* }s"; fi
			if [ "$verdict" = PASS ] && [ -n "$detail" ]; then echo "INFO: lab/$LAB_ARCH/$s/$step $detail"; fi
		done
		# Results the scenario reported beyond its declared steps (setup
		# failures, timeouts) are failures worth seeing, or extra passes.
		while read -r _ step verdict detail; do
			step=${step#"$s"/}
			case " $steps " in *" $step "*) continue ;; esac
			judge_emit "$s" "$step" "$verdict" "$detail"
		done < <(grep -oE "XPS-RESULT $s/[^ ]+ (PASS|FAIL).*" "$log" || true)
		# log-clean: Xen/dom0 lines count for every scenario, a domU's
		# lines for its own scenario.
		bad=$(grep -v '\[domU:' "$dir/bad-lines.txt" || true)
		for d in $domus; do bad="$bad"$'\n'"$(grep -F "[domU:$d]" "$dir/bad-lines.txt" || true)"; done
		bad=$(echo "$bad" | grep . | cut -d: -f2- | cut -c1-160 || true)
		if [ -z "$bad" ]; then
			judge_emit "$s" log-clean PASS
		else
			judge_emit "$s" log-clean FAIL "$(echo "$bad" | wc -l) line(s), first: $(echo "$bad" | head -n1)"
			echo "$bad" | head -n 10 | sed "s|^|INFO: lab/$LAB_ARCH/$s/log-clean |"
		fi
		# A step without a result: what its domUs and dom0 said last
		# (outside their dmesg dumps), for a reader who has only this
		# output (a CI log) and not the serial log.
		if [ -n "$noresult" ]; then
			for d in $domus; do
				awk -v p="[domU:$d] " 'index($0, p) == 1 { l = substr($0, length(p) + 1)
					if (l ~ /^XPS-DMESG-BEGIN /) skip = 1
					if (!skip) print l
					if (l ~ /^XPS-DMESG-END /) skip = 0 }' "$log" |
					tail -n 20 | cut -c1-200 | sed "s|^|TAIL: lab/$LAB_ARCH/$s/$d |"
				grep -E "^xps: ${d}[: ]" "$log" | tail -n 8 | cut -c1-200 |
					sed "s|^|TAIL: lab/$LAB_ARCH/$s/dom0 |"
			done
		fi
		line=$(grep -oE "XPS-SCENARIO-END $s [0-9]+" "$log" || true)
		if [ -z "$line" ]; then
			judge_emit "$s" complete FAIL "no end marker ($swhy)"
		elif ! grep -q '^XPS-DONE' "$log"; then
			judge_emit "$s" complete FAIL "dom0 never reached XPS-DONE (hang after the scenario?)"
		else
			judge_emit "$s" complete PASS
			echo "TIME: scenario/$s ${line##* }s"
		fi
	done
	# CPU seconds each domain used (its last look before it ended; dom0's
	# at the end): where the 2 cores went
	grep -oE 'XPS-CPU [^ ]+ [0-9]+' "$log" | awk '{ print "TIME: cpu/" $2 " " $3 "s" }' || true
	grep -oE 'XPS-MEMLOW [^ ]+ [0-9]+' "$log" | awk '{ print "TIME: mem/" $2 "-lowest-available " $3 "MB" }' || true
	echo "SUMMARY: $JUDGE_FAILS failure(s)$([ $JUDGE_LABFAULT = 0 ] || echo ', LAB FAULT: the emulated CPU failed its self-check')"
	[ $JUDGE_LABFAULT = 0 ] || return 3
	[ $JUDGE_FAILS = 0 ] || return 1
	} | tee "$dir/results.txt"
	return "${PIPESTATUS[0]}"
}
