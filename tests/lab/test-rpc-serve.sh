#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-rpc-serve.sh - runs lib.sh's rpc_serve (dom0's side of the domUs'
# requests) on the host under dash, against a fake xenstore: a directory
# for the store and a fake xenstore-watch that prints each watched path
# once, then every line appended to an events file (what xenstored's
# watch events would be).  No QEMU, no root, seconds.  Prints PASS:/FAIL:
# lab/rpc-serve/<case> lines.
#   serves    a request is answered (res, then ack), once: the same
#             sequence number seen again is not run again
#   queued    a request written while the handler still runs the previous
#             one is answered too (a watch set anew per request missed it)
#   stdin     a handler that reads its stdin does not eat the watch's events
#   last      started with LAST, that request is not served again
#   gone      the domain's tree removed (with its watch event): rpc_serve
#             returns within 3 s, its watcher and ticker gone
#   gone-tick the tree removed with no event: returns on the next tick
#   replied   rpc_replied returns once the domain asks beyond the request
#             (it has read the reply), and fails, after its time, when
#             the domain never asks again
# and the domU's side, rpc, against it (relative paths are the domain's):
#   rpc       a request is answered at once: rpc waits on a watch of its
#             ack, not a slice of RPC_SLICE seconds (10); nothing of it
#             (the watch, its timer's sleep) is left running after
#   late-watch the ack written while the watch starts is still seen
#   reask     a request lost before dom0 saw it (as across a save) is
#             asked again after a slice, and answered
#   lost-reply the ack seen but the reply's read failing once (the
#             domain moved between them) is asked again, and the reply
#             printed (before the fix: rc=1 and no reply)
#   timeout   no answer: "rpc-timeout" and failure after RPC_WAIT
#             seconds, no watch or timer of it left behind
#   nowatch   no watch can be set: rpc still asks for RPC_WAIT seconds,
#             once a second at most, then "rpc-timeout" (it gave up at
#             once when it counted its asks)
#   locals    wait_for and rpc leave the caller's _n alone (wait_for's
#             counter was _n: bench-a64's count of 10 runs read 121)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sim=$(mktemp -d)
fails=0
command -v dash >/dev/null || { echo "FAIL: lab/rpc-serve/setup dash is not installed"; exit 1; }

mkdir -p "$sim/bin" "$sim/run"; : >"$sim/calls"
# (a path not starting with / is the domain's, SIM_HOME, as in a domU;
# every write fires the watches, as xenstored's would)
cat >"$sim/bin/xenstore-read" <<'EOS'
#!/bin/sh
p=$1; case "$p" in /*) ;; *) p=$SIM_HOME/$p ;; esac
# (SIM_RES_LOST: the first read of a reply fails, as when the domain
# moved between dom0's ack and that read)
case "$p" in */data/xps/res)
	if [ -n "${SIM_RES_LOST:-}" ] && [ ! -e "$SIM/res-lost" ]; then : >"$SIM/res-lost"; exit 1; fi ;;
esac
[ -f "$SIM/store$p" ] || exit 1
cat "$SIM/store$p"
EOS
cat >"$sim/bin/xenstore-exists" <<'EOS'
#!/bin/sh
p=$1; case "$p" in /*) ;; *) p=$SIM_HOME/$p ;; esac
[ -e "$SIM/store$p" ]
EOS
cat >"$sim/bin/xenstore-write" <<'EOS'
#!/bin/sh
p=$1; case "$p" in /*) ;; *) p=$SIM_HOME/$p ;; esac
mkdir -p "$(dirname "$SIM/store$p")" && echo "$2" >"$SIM/store$p" && echo "$p" >>"$SIM/events"
EOS
cat >"$sim/bin/xenstore-chmod" <<'EOS'
#!/bin/sh
exit 0
EOS
cat >"$sim/bin/xenstore-watch" <<'EOS'
#!/bin/sh
# (SIM_NOWATCH: the watch cannot be set, as when xenstored refuses it)
[ -z "${SIM_NOWATCH:-}" ] || exit 1
# xenstored fires each watch once when it is set, and every event after
# that (n: the events so far; those written while tail starts come too,
# SIM_WATCH_DELAY widens that window)
n=$(wc -l <"$SIM/events")
printf '%s\n' "$@"
echo $$ >"$SIM/watch.pid"
[ -z "${SIM_WATCH_DELAY:-}" ] || sleep "$SIM_WATCH_DELAY"
exec tail -n +$((n + 1)) -f "$SIM/events"
EOS
chmod +x "$sim/bin/"*
trap 'pkill -f "tail -n 0 -f $sim/events" 2>/dev/null; rm -rf "$sim"' EXIT

# start_serve TICK ID [LAST]: rpc_serve in the background, its tick TICK
# seconds; its pid in $serve
start_serve() {
	tick=$1; shift
	: >"$sim/events"
	mkdir -p "$sim/store/local/domain/$1/data/xps"
	echo "$1" >"$sim/store/local/domain/$1/domid"
	# shellcheck disable=SC2016 # the script is expanded by dash, not here
	SIM=$sim PATH="$sim/bin:$PATH" XPS_RUN=$sim/run RPC_TICK=$tick dash -c '
		. "$1/guest/lib.sh"
		t_rpc() { # the handler: logs each call; "slow" takes 1 s, "cat" reads stdin
			echo "$RPC_SEQ $*" >>"$SIM/calls"
			case "$2" in
			slow) sleep 1 ;;
			cat) timeout 3 cat >/dev/null ;;
			esac
			RPC_REPLY="did $2"
		}
		rpc_serve "$2" t "${3:-0}"' sh "$here" "$@" &
	serve=$!
	sleep 0.5
}
# request ID SEQ CMD: what a domU's rpc writes, and the event it fires
request() {
	echo "$2 $3" >"$sim/store/local/domain/$1/data/xps/req"
	echo "/local/domain/$1/data/xps/req" >>"$sim/events"
}
acked() { [ "$(cat "$sim/store/local/domain/$1/data/xps/ack" 2>/dev/null)" = "$2" ]; }
# wait_acked ID SEQ [TENTHS]: acked within TENTHS/10 s (4 s)
wait_acked() { local n=0; until acked "$1" "$2"; do n=$((n + 1)); [ $n -lt "${3:-40}" ] || return 1; sleep 0.1; done; }
result() { if [ "$2" = ok ]; then echo "PASS: lab/rpc-serve/$1 $3"; else echo "FAIL: lab/rpc-serve/$1 $3"; fails=$((fails + 1)); fi; }
calls() { grep -c " $1\$" "$sim/calls"; }
# gone ID: is rpc_serve's process gone within 3 s
ended() { local n=0; while kill -0 "$serve" 2>/dev/null; do n=$((n + 1)); [ $n -lt 30 ] || return 1; sleep 0.1; done; }

# Ticks every 30.5 s (a sleep no one else runs): in these cases only the watch's events wake it.
start_serve 30.5 7
request 7 1 ping
wait_acked 7 1; r=$(cat "$sim/store/local/domain/7/data/xps/res" 2>/dev/null)
request 7 1 ping; sleep 1   # the same request again
if acked 7 1 && [ "$r" = "did ping" ] && [ "$(calls ping)" = 1 ]; then result serves ok "res '$r', 1 call"
else result serves bad "ack '$(cat "$sim/store/local/domain/7/data/xps/ack" 2>/dev/null)' res '$r', $(calls ping) call(s)"; fi

request 7 2 slow; sleep 0.3; request 7 3 after-slow
if wait_acked 7 3 && [ "$(calls slow)" = 1 ] && [ "$(calls after-slow)" = 1 ]; then result queued ok "both answered"
else result queued bad "ack '$(cat "$sim/store/local/domain/7/data/xps/ack" 2>/dev/null)', calls: $(tr '\n' ';' <"$sim/calls")"; fi

# (a domU sends its next request once the last is acked: so does this)
request 7 4 cat; wait_acked 7 4 20; request 7 5 after-cat
if wait_acked 7 5 10 && [ "$(calls after-cat)" = 1 ]; then result stdin ok "served after a handler read stdin"
else result stdin bad "ack '$(cat "$sim/store/local/domain/7/data/xps/ack" 2>/dev/null)', calls: $(tr '\n' ';' <"$sim/calls")"; fi

wp=$(cat "$sim/watch.pid")
rm -rf "$sim/store/local/domain/7"
echo /local/domain/7/domid >>"$sim/events"
if ended; then
	left=''; sleep 0.3   # (killed, and reaped)
	# (alive: not a zombie; here nothing may reap the orphans)
	# (no grep -q at a pipe's end: with pipefail, ps's SIGPIPE fails it)
	[ -n "$(ps -o stat= -p "$wp" | grep -v '^Z')" ] && left="$left watcher"
	[ -n "$(ps -eo stat=,args= | grep -v '^Z' | grep 'sleep 30\.5')" ] && left="$left ticker"
	[ -e "$sim/run/rpc-7.fifo" ] && left="$left fifo"
	if [ -n "$left" ]; then result gone bad "returned, but left its$left"
	else result gone ok "returned, watcher, ticker and fifo gone"; fi
else result gone bad "still serving 3 s after the domain went"; kill "$serve"; fi

: >"$sim/calls"
mkdir -p "$sim/store/local/domain/8/data/xps"; echo "5 ping" >"$sim/store/local/domain/8/data/xps/req"
start_serve 1 8 5
sleep 1.5
if [ "$(calls ping)" = 0 ] && ! acked 8 5; then result last ok "request 5 not served again"
else result last bad "$(calls ping) call(s)"; fi
rm -rf "$sim/store/local/domain/8"
if ended; then result gone-tick ok "returned on a tick"; else result gone-tick bad "still serving 3 s after the domain went silently"; kill "$serve"; fi

# replied: rpc_replied 9 3 while the domain's last request is 3, then 4
mkdir -p "$sim/store/local/domain/9/data/xps"; echo "3 save-restore" >"$sim/store/local/domain/9/data/xps/req"
# shellcheck disable=SC2016 # expanded by dash
SIM=$sim PATH="$sim/bin:$PATH" dash -c '. "$1/guest/lib.sh"; rpc_replied 9 3 5; echo "rc=$?" >"$2"' sh "$here" "$sim/replied" &
rp=$!
sleep 1
early=$(cat "$sim/replied" 2>/dev/null)
echo "4 move-log" >"$sim/store/local/domain/9/data/xps/req"
wait "$rp"
# shellcheck disable=SC2016 # expanded by dash
SIM=$sim PATH="$sim/bin:$PATH" timeout 5 dash -c '. "$1/guest/lib.sh"; rpc_replied 9 4 1' sh "$here"
never=$?
if [ -z "$early" ] && [ "$(cat "$sim/replied")" = rc=0 ] && [ "$never" = 1 ]; then
	result replied ok "waited while the last request was 3, returned on 4; failed after 1 s with no request beyond 4"
else
	result replied bad "before request 4: '${early:-still waiting}', after: '$(cat "$sim/replied")', no request beyond 4: rc=$never"
fi

# The domU's side: domU_rpc ID [VAR=VALUE...] CMD [ARGS]: rpc under dash
# as domain ID would run it, in a session of its own; prints "rc=RC
# secs=S reply=REPLY left=" and what of the session still runs 0.3 s
# after (nothing: no watch, timer or sleep of rpc left behind)
domU_rpc() {
	local id=$1; shift
	local vars=()
	while [[ $1 == [A-Z]*=* ]]; do vars+=("$1"); shift; done
	# shellcheck disable=SC2016 # expanded by dash and bash -c
	setsid -w bash -c 'echo $$ >"$1"; shift; exec "$@"' sh "$sim/sess-$id" \
		env SIM="$sim" SIM_HOME="/local/domain/$id" PATH="$sim/bin:$PATH" \
		RPC_SEQFILE="$sim/rpcseq-$id" "${vars[@]}" dash -c '
		. "$1/guest/lib.sh"; shift
		t0=$(date +%s%N); r=$(rpc "$@"); rc=$?
		t=$(( ($(date +%s%N) - t0) / 10000000 ))
		echo "rc=$rc secs=$((t / 100)).$((t / 10 % 10)) reply=$r"' sh "$here" "$@"
	sleep 0.3
	echo "left=$(ps -eo sess=,stat=,args= | awk -v s="$(cat "$sim/sess-$id")" '$1 == s && $2 !~ /^Z/ { $1 = $2 = ""; print }' | tr -s ' \n' ' ')"
}
# stop_serve ID: the domain goes (its tree and a watch event), so that
# rpc_serve ends with its watcher and ticker
stop_serve() {
	rm -rf "$sim/store/local/domain/$1"
	echo "/local/domain/$1/domid" >>"$sim/events"
	ended || kill "$serve" 2>/dev/null
	wait "$serve" 2>/dev/null
}
: >"$sim/calls"
start_serve 30.5 10
out=$(domU_rpc 10 ping 1 2 | tr '\n' ' ')
case "$out" in
"rc=0 secs="[0-2].*" reply=did ping left= ") result rpc ok "$out";;
*) result rpc bad "$out (expected an answer within 3 s)";;
esac
# the ack written after the watch's first read but before its events
# flow (the handler takes 1 s, the watch 2 s to start): a real watch
# sees it; the fake lost it until it counted the events (CI, 2026-12-06:
# the rpc case took 10.2 s)
out=$(domU_rpc 10 SIM_WATCH_DELAY=2 slow 3 4 | tr '\n' ' ')
case "$out" in
"rc=0 secs="[0-3].*" reply=did slow left= ") result late-watch ok "$out";;
*) result late-watch bad "$out (expected an answer within 4 s)";;
esac
# lost-reply: the ack seen, the reply's first read fails: rpc asks again
# (dom0 answers the same number from what it wrote) and prints the reply
out=$(domU_rpc 10 SIM_RES_LOST=1 RPC_SLICE=1 RPC_WAIT=10 ping | tr '\n' ' ')
case "$out" in
"rc=0 secs="[0-3].*" reply=did ping left= ") result lost-reply ok "$out";;
*) result lost-reply bad "$out (expected the reply read again)";;
esac
stop_serve 10

# reask: the request written while dom0 does not serve is lost before it
# looks (its node removed), then dom0 serves
rm -rf "$sim/store/local/domain/11"; mkdir -p "$sim/store/local/domain/11"; echo 11 >"$sim/store/local/domain/11/domid"
domU_rpc 11 RPC_SLICE=1 RPC_WAIT=20 ping >"$sim/reask" &
rq=$!
sleep 0.5; rm -f "$sim/store/local/domain/11/data/xps/req"
start_serve 30.5 11
wait "$rq"
case "$(cat "$sim/reask")" in
"rc=0 "*"reply=did ping"?"left=") result reask ok "$(cat "$sim/reask" | tr '\n' ' ')";;
*) result reask bad "$(cat "$sim/reask") (expected the request asked again and answered)";;
esac
stop_serve 11

# timeout: nobody serves domain 12
mkdir -p "$sim/store/local/domain/12"; echo 12 >"$sim/store/local/domain/12/domid"
fifos() { find /tmp -maxdepth 1 -name 'xs-await.*' 2>/dev/null | sort; }
fifos >"$sim/fifos0"
out=$(domU_rpc 12 RPC_SLICE=1 RPC_WAIT=2 ping | tr '\n' ' ')
[ -z "$(fifos | comm -13 "$sim/fifos0" -)" ] || out="$out (a fifo left in /tmp)"
case "$out" in
"rc=1 secs="[2-3].*" reply=rpc-timeout left= ") result timeout ok "$out";;
*) result timeout bad "$out (expected rpc-timeout after 2 s, nothing left)";;
esac

# nowatch: every watch fails at once
mkdir -p "$sim/store/local/domain/14"; echo 14 >"$sim/store/local/domain/14/domid"
: >"$sim/events"
out=$(domU_rpc 14 SIM_NOWATCH=1 RPC_SLICE=1 RPC_WAIT=3 ping | tr '\n' ' ')
asks=$(grep -c '^/local/domain/14/data/xps/req$' "$sim/events")
case "$out" in
"rc=1 secs="[3-4].*" reply=rpc-timeout left= ")
	if [ "$asks" -le 5 ]; then result nowatch ok "$out, asked $asks times"
	else result nowatch bad "$out, but asked $asks times in 3 s"; fi ;;
*) result nowatch bad "$out, asked $asks times (expected rpc-timeout after 3 s)";;
esac

# locals: a caller's _n survives wait_for (which polls twice) and rpc
# (one slice of 1 s, then its timeout)
mkdir -p "$sim/store/local/domain/13"; echo 13 >"$sim/store/local/domain/13/domid"
# shellcheck disable=SC2016 # expanded by dash
out=$(env SIM="$sim" SIM_HOME=/local/domain/13 PATH="$sim/bin:$PATH" RPC_SEQFILE="$sim/rpcseq-13" \
	RPC_SLICE=1 RPC_WAIT=1 dash -c '. "$1/guest/lib.sh"
		_n=7; wait_for 1 false; a=$_n
		_n=7; rpc ping >/dev/null; echo "after wait_for $a, after rpc $_n"' sh "$here")
if [ "$out" = "after wait_for 7, after rpc 7" ]; then result locals ok "$out"
else result locals bad "$out (a caller's _n was 7)"; fi

exit $((fails > 0))
