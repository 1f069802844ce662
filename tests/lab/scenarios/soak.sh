# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # the scenario interface (<fn>_steps, _budget,
# _domus, _lab_xen) is read by dom0-init, the judge and the helpers; the
# blkfront_life_* functions and BFL_* settings come from blkfront-life.sh
# soak - make soak (issue #16), not make check: blkfront-life's domU
# (three disks with xen-blkfront-64k, a fio write+verify loop on each, a
# 6 MB reference on xvdb) through its life in loops, on a Xen that can
# migrate PV guests (soak_lab_xen=shadow, as migrate.sh).  Steps:
#   load        xen-grant-pool and xen-blkfront-64k, the reference written
#   saves       xl save / xl restore SAVES (50) times in a row with the
#               loops running and dom0 holding xvdc's I/O across each
#               save: each time no loop fails, each disk completes I/O
#               after it (every loop a whole run after every fifth and
#               the last, XPS_SCN_SOAK_RUN_AFTER_EVERY), each disk
#               counts one resume and no error, some held request is
#               replayed, the reference verifies
#   migrate     the same across xl migrate to localhost, MIGRATIONS (20)
#   detaches    xl block-detach and block-attach of xvdc DETACHES (20)
#               times, fio writing to it, the loops running on the others:
#               its fio ends (errors) and the disk goes, it comes back to
#               the same driver, its reference data and a fresh write
#               verify, the other disks' loops never fail
#   reload-load RELOADS (100) unbinds with fio randrw in flight on xvda,
#               then bind or rmmod and modprobe in turn; after each
#               unbind the pool holds no page and no grant, after each
#               bind the reference verifies
#   leaks       no pool page or grant live after the last rmmod
# Beside bfl, the crowd (XPS_SCN_SOAK_GUESTS guests in all, 8 by
# default, so 7 more: sk1 ... sk7), running with the same driver
# throughout, so every move above happens next to seven more guests:
#   crowd-up    (bfl, before its load) every crowd domU loaded the
#               driver and wrote its reference
#   crowd-skK   (skK) while it waits, a 64 KB read of its disk every
#               60 s answers; once bfl's moves, detaches and step net
#               are done (its reloads move no domain) or its domain is
#               gone, dom0 takes the crowd domUs in turn: each starts a
#               fio verify loop, and dom0 saves and restores it, then
#               migrates it to localhost (SOAK_CROWD_MOVES); after each,
#               the domU judges itself as bfl's moves are judged (a
#               resume on its disk, no error, a whole loop run after the
#               move, the reference verifies; an XPS-SOAK crowd-saves or
#               crowd-migrate line); then its loop had no failed run,
#               and ours: no error counted, unbound and rmmod'ed with no
#               xen-grant-pool page or grant live
# bfl also has a vif (XPS_SCN_SOAK_NET=0: none): xen-netfront-pgnt in
# bfl against xen-netback-pgnt in dom0 (make soak-stock: Debian's
# xen-netfront and xen-netback), and a loop of transfers with dom0
# beside the fio loops through the moves and the detaches, each run
# SOAK_NET_MB (2) MB each way with sha256 and size compared (netfront.sh's
# nf_send and nf_recv); a move is judged on it as on the fio loops (a
# whole run after the move, no failed run, no corrupt one):
#   net         (bfl, after the detaches) every run of the loop passed,
#               one more transfer each way after the last move, ours
#               with ours: the last reconnection's "persistent grants:
#               the backend maps all" line; the frontend unbound and
#               rmmod'ed, and ours: xen-grant-pool holds no pool but
#               the block frontend's
# Every cycle prints an XPS-SOAK line; scripts/soak.sh turns them and the
# boot's kernel logs into the run's table.  XPS_SCN_SOAK_SAVES,
# _MIGRATIONS, _DETACHES and _RELOADS set the counts;
# XPS_SCN_SOAK_DRIVER=stock runs load, saves, migrate and detaches with
# Debian's xen-blkfront (the reference row:
# it has no counters, so a cycle is judged by its loops, the reference
# data, the disks still bound and the guest's new domain id).
. "${LAB_DIR:-/xps}/scenarios/blkfront-life.sh"
BFL_SAVES=${XPS_SCN_SOAK_SAVES:-50}
BFL_MIGRATIONS=${XPS_SCN_SOAK_MIGRATIONS:-20}
BFL_DETACHES=${XPS_SCN_SOAK_DETACHES:-20}
BFL_CYCLES=${XPS_SCN_SOAK_RELOADS:-100}
BFL_POOLCHECK=1
# a whole run of every loop after every fifth move and the last, I/O on
# each disk after the others (blkfront-life's bfl_move_one): with a run
# after each, save cycles took 91 to 156 s (2026-12-07), and 50 saves
# and 20 migrations more than a session
BFL_RUN_AFTER_EVERY=${XPS_SCN_SOAK_RUN_AFTER_EVERY:-5}
# dom0's run folder: /run/xps, where dom0-init and blkfront-life keep
# theirs (a host test sets XPS_RUN, as for lib.sh's rpc_serve)
SOAK_RUN=${XPS_RUN:-/run/xps}
bfl_scenario soak "cpu-selfcheck load saves migrate detaches reload-load leaks" "${XPS_SCN_SOAK_DRIVER:-ours}"
! bf_stock || BFL_CYCLES=0
soak_lab_xen=shadow
# Measured alone (2026-12-06, loops running across the moves, 2 or 3 of
# each): a save/restore cycle 64 to 73 s, a migration 78 and 93 s, a
# detach 36 s, a reload 5 to 7 s; the budget allows two to four times
# that, and 600 s for the boot and the load.
soak_budget=$((600 + (BFL_SAVES + BFL_MIGRATIONS) * 220 + BFL_DETACHES * 150 + BFL_CYCLES * 20))

# ---- the crowd ---------------------------------------------------------------
# 1 vCPU and 384 MB each (netpairs': with less, the 90 MB initramfs does
# not unpack), one 32 MB disk on a dom0 loop device (sparse: a loop
# writes 8 MB of it), no vif (rpc is over xenstore).  Eight guests take
# 3 GB, more than a 4 GB lab leaves beside dom0: this boot gets 6 GB.
SOAK_GUESTS=${XPS_SCN_SOAK_GUESTS:-8}
SOAK_CROWD=$((SOAK_GUESTS > 1 ? SOAK_GUESTS - 1 : 0))
soak_crowd=$(_k=1; while [ $_k -le $SOAK_CROWD ]; do printf 'sk%d ' $_k; _k=$((_k + 1)); done)
soak_crowd=${soak_crowd% }
soak_selfcheck_domus=bfl
if [ "$SOAK_CROWD" -gt 0 ]; then
	soak_domus="bfl $soak_crowd"
	soak_lab_mem=6144
	soak_steps="$soak_steps crowd-up"
	for _d in $soak_crowd; do soak_steps="$soak_steps crowd-$_d"; done
	BFL_PLAN_MORE="crowd=$SOAK_CROWD crowd-saves=$SOAK_CROWD crowd-migrate=$SOAK_CROWD"
fi
# what dom0 does to each crowd domU in turn, after bfl's loops
SOAK_CROWD_MOVES="save-restore migrate"
soak_budget=$((soak_budget + SOAK_CROWD * 2 * 220))

# ---- the net pair ------------------------------------------------------------
SOAK_NET=${XPS_SCN_SOAK_NET:-1}
SOAK_NET_MB=${XPS_SCN_SOAK_NET_MB:-2}
if [ "$SOAK_NET" = 1 ]; then
	NF_SCN=soak NF_DEFAULT=${XPS_SCN_SOAK_DRIVER:-ours} NB_DEFAULT=${XPS_SCN_SOAK_DRIVER:-ours}
	. "${LAB_DIR:-/xps}/scenarios/netfront.sh"
	soak_steps="$soak_steps net"
	BFL_PLAN_MORE="${BFL_PLAN_MORE:+$BFL_PLAN_MORE }net=1"
	BFL_MOVES_BEGIN=soak_net_up
fi
BFL_MOVES_END=soak_moves_end
# a crowd domU's loop (in its turn only, one at a time): 2 MB a run at
# 1 MB/s, and its reference past the loop's 8 MB
SOAK_LOOP="--bssplit=4k/50:64k/50 --size=2M --iodepth=4 --rate=1m"
SOAK_REF="--name=sref --filename=/dev/xvda --rw=randwrite --bssplit=4k/50:64k/50 --offset=28M --size=2M --iodepth=4 --verify=crc32c"

soak_dom0_prepare() {
	blkfront_life_dom0_prepare || return 1
	rm -f "$SOAK_RUN"/soak-up-*
	for _d in $soak_crowd; do
		truncate -s 32M "/tmp/$_d.img" && _l=$(losetup -f --show "/tmp/$_d.img") || return 1
		eval "SOAK_LOOP_$_d=\$_l"
	done
	[ "$SOAK_NET" != 1 ] || netfront_dom0_prepare
}

soak_domU_cfg() {
	case "$1" in
	bfl)
		blkfront_life_domU_cfg
		[ "$SOAK_NET" != 1 ] || echo "vif = [ 'mac=00:16:3e:00:00:$(printf %02x "$2"), bridge=xenbr0' ]" ;;
	*)
		echo "memory = 384"
		echo "vcpus = 1"
		eval "echo \"disk = [ 'format=raw, vdev=xvda, access=rw, script=xps-block, target=\$SOAK_LOOP_$1' ]\"" ;;
	esac
}

# the stock drivers kept out of ours' way (one module_blacklist: a
# second would replace the first)
soak_domU_cmdline() {
	_bl=''
	bf_stock || _bl=xen_blkfront
	if [ "$1" = bfl ] && [ "$SOAK_NET" = 1 ] && [ "$NF_DRIVER" != stock ]; then
		_bl="${_bl:+$_bl,}xen_netfront"
	fi
	[ -z "$_bl" ] || echo "module_blacklist=$_bl"
}

# dom0: the crowd's requests (bfl's go to blkfront-life's handler)
soak_rpc() {
	case "$2" in
	# (the crowd domUs name themselves: an xl domname for each of
	# seven polls would cost the busiest domain's CPU)
	crowd-up) # NAME ok|failed: a crowd domU's load
		echo "$4" >"$SOAK_RUN/soak-up-$3"
		RPC_REPLY=ok ;;
	crowd-count) # "REPORTED OK": crowd domUs that said how their load went
		RPC_REPLY="$(cat "$SOAK_RUN"/soak-up-* 2>/dev/null | wc -l) $(cat "$SOAK_RUN"/soak-up-* 2>/dev/null | grep -c '^ok')" ;;
	crowd-poll) # NAME: "turn" while dom0's mover is at NAME (the
		# mover starts once bfl said crowd-go or its domain is gone:
		# dom0-init says when), "stop" once it is done with NAME,
		# "soon" while the mover is at another, else "wait"
		RPC_REPLY='wait'
		if [ -e "$SOAK_RUN/soak-stop-$3" ]; then
			RPC_REPLY=stop
		elif [ "$(cat "$SOAK_RUN"/soak-turn 2>/dev/null)" = "$3" ]; then
			RPC_REPLY=turn
		elif [ -d "$SOAK_RUN"/soak-mover ]; then
			RPC_REPLY=soon
		elif [ -e "$SOAK_RUN"/bfl.gone ]; then
			soak_mover_start
		fi ;;
	crowd-go) # from bfl: its moves and detaches are done
		soak_mover_start
		RPC_REPLY=ok ;;
	crowd-ready) # NAME: its loop runs, the mover may move it
		touch "$SOAK_RUN/soak-ready-$3"
		RPC_REPLY=ok ;;
	crowd-settled) # NAME N: the domU judged its move N
		echo "$4" >"$SOAK_RUN/soak-settled-$3"
		RPC_REPLY=ok ;;
	*) blkfront_life_rpc "$@" ;;
	esac
}

# soak_mover_start: dom0, soak_crowd_mover in the background, once (its
# notes on dom0's console, as rpc_serve's own)
soak_mover_start() {
	! mkdir "$SOAK_RUN"/soak-mover 2>/dev/null || soak_crowd_mover </dev/null &
}

# soak_crowd_mover: dom0, each crowd domU that loaded, in turn: its
# turn (it starts its loop and says so, up to 600 s), then each of
# SOAK_CROWD_MOVES with its loop running, waiting (up to 600 s) for the
# domU to judge the move before the next; then it may stop.
soak_crowd_mover() {
	for _cd in $soak_crowd; do
		_cm=0
		# (a domU whose load failed has stopped asking)
		grep -q '^ok' "$SOAK_RUN/soak-up-$_cd" 2>/dev/null || { touch "$SOAK_RUN/soak-stop-$_cd"; continue; }
		echo "$_cd" >"$SOAK_RUN/soak-turn"
		_ct=$(up)
		until [ -e "$SOAK_RUN/soak-ready-$_cd" ] || [ "$(since "$_ct")" -ge 600 ]; do sleep 5; done
		if [ ! -e "$SOAK_RUN/soak-ready-$_cd" ]; then
			echo "xps: $_cd: its loop not running after 600 s; not moved"
		else
			for _cc in $SOAK_CROWD_MOVES; do
				_cm=$((_cm + 1))
				soak_crowd_move "$_cd" "$_cc"
				_ct=$(up)
				until [ "$(cat "$SOAK_RUN/soak-settled-$_cd" 2>/dev/null)" = "$_cm" ] ||
				      [ "$(since "$_ct")" -ge 600 ]; do sleep 5; done
			done
		fi
		touch "$SOAK_RUN/soak-stop-$_cd"
	done
}

# soak_crowd_move NAME save-restore|migrate: one move of a crowd domU;
# it is served again under its new domain id, its new console log
# followed
soak_crowd_move() {
	_cid=$(xl domid "$1") || return 1
	touch "$SOAK_RUN/$1.busy"
	_t=$(up)
	case "$2" in
	save-restore)
		if xl save "$1" "/tmp/$1.chk" >"$SOAK_RUN/$1-xl.log" 2>&1 &&
		   xl restore "/tmp/$1.chk" >>"$SOAK_RUN/$1-xl.log" 2>&1; then
			_cr=ok
		else
			_cr="error: $(tail -n 3 "$SOAK_RUN/$1-xl.log" | tr '\n' ' ')"
		fi
		rm -f "/tmp/$1.chk" ;;
	migrate)
		if xl migrate -s "" "$1" "xl migrate-receive" >"$SOAK_RUN/$1-xl.log" 2>&1; then
			_cr=ok
		else
			_cr="error: $(grep -iE 'error|fail' "$SOAK_RUN/$1-xl.log" | head -n 3 | tr '\n' ' ')"
		fi ;;
	esac
	_cn=$(xl domid "$1" 2>/dev/null)
	echo "xps: $1: crowd $2: $_cr in $(since "$_t")s; domain ${_cid} -> ${_cn:-none}"
	for _f in /var/log/xen/console/guest-"$1"--*.log; do
		[ -f "$_f" ] && [ ! -e "$SOAK_RUN/$1.tail-${_f##*--}" ] && bfl_tail "$1" "$_f"
	done
	if [ -n "$_cn" ] && [ "$_cn" != "$_cid" ]; then
		rpc_serve "$_cn" soak &
	fi
	rm -f "$SOAK_RUN/$1.busy"
}

soak_domU() {
	case "$1" in
	bfl)
		[ "$SOAK_CROWD" = 0 ] || soak_crowd_wait
		BFL_SCN=soak blkfront_life_domU ;;
	*) soak_crowd_domU "$1" ;;
	esac
}

# soak_moves_end: bfl, after its moves and detaches (BFL_MOVES_END):
# step net, then dom0 may begin the crowd's turns: they overlap bfl's
# reloads, which move no domain (apart, the crowd's turns took 631 s in
# a short run, 2026-12-07; 100 reloads at the short runs' 5-10 s each
# would take 8-17 minutes, an estimate no run has measured); bfl's
# domain gone starts them too
soak_moves_end() {
	[ "$SOAK_NET" != 1 ] || soak_net_down
	[ "$SOAK_CROWD" = 0 ] || rpc crowd-go >/dev/null
}

# soak_crowd_wait: bfl waits (up to 900 s) until every crowd domU has
# said how its load went: step crowd-up
soak_crowd_wait() {
	_t=$(up) _cn='0 0'
	while [ "$(since "$_t")" -lt 900 ]; do
		_cn=$(RPC_SLICE=5 rpc crowd-count)
		case "$_cn" in "$SOAK_CROWD "*) break ;; esac
		sleep 10
	done
	if [ "$_cn" = "$SOAK_CROWD $SOAK_CROWD" ]; then
		pass soak/crowd-up "$SOAK_CROWD crowd domUs run with $BF_DRV, their references written, $(since "$_t")s after bfl's boot"
	else
		fail soak/crowd-up "crowd domUs reported, loaded: ${_cn:-none} of $SOAK_CROWD after $(since "$_t")s; bfl goes on"
	fi
}

# soak_crowd_domU NAME: a crowd domU's life (step crowd-NAME)
soak_crowd_domU() {
	_st=soak/crowd-$1 _ck=${1#sk}	# (not _k: bfl_set_disks and bfl_snap loop with it)
	if ! bf_stock && ! bf_built; then
		rpc crowd-up "$1" failed >/dev/null
		fail "$_st" "module not built"
		return
	fi
	if ! { bf_stock || modprobe xen-grant-pool; } || ! modprobe "$BF_MOD" ||
	   ! wait_for 30 test -b /dev/xvda || [ "$(bf_drv xvda)" != "$BF_DRV" ]; then
		rpc crowd-up "$1" failed >/dev/null
		fail "$_st" "no disk with $BF_DRV: xvda's driver '$(bf_drv xvda)'; $(dmesg | grep -iE 'vbd|xbf|blkfront' | tail -n 2 | tr '\n' ' ')"
		return
	fi
	# shellcheck disable=SC2086 # word splitting intended: fio arguments
	if ! _o=$(bf_fio sref 240 $SOAK_REF); then
		rpc crowd-up "$1" failed >/dev/null
		fail "$_st" "reference write: $_o"
		return
	fi
	bfl_set_disks xvda
	rm -f "$BFL_TMP/bfl.stop" "$BFL_TMP/bfl.moved" "$BFL_TMP"/bfl-a.*
	rpc crowd-up "$1" ok >/dev/null
	# until dom0 says stop, asked every 60 s while it waits (one 64 KB
	# direct read of xvda each time, the disk answering), every 10 s
	# once dom0 moves the crowd ("soon": at 60 s, a domU found its turn
	# up to 60 s late, turns 114-172 s apart for 98-132 s of work,
	# 2026-12-07) and in its turn: then its loop runs, and a new domain
	# id is a move dom0 made (a save, then a migration), judged once the
	# loop ran a whole run after it.  (Loops in all seven beside bfl's
	# moves made each of them take minutes, 2026-12-07.)
	_id=$(xenstore-read domid) _mv=0 _mbad='' _lp='' _hb=0 _hbf=0 _t0=$(up)
	# (only dom0's "stop" ends it: a poll that failed is asked again)
	while _pr=$(RPC_SLICE=5 rpc crowd-poll "$1"); [ "$_pr" != stop ]; do
		if [ "$_pr" != turn ]; then
			_hb=$((_hb + 1))
			dd if=/dev/xvda of=/dev/null bs=64k count=1 skip=$((_hb % 400)) iflag=direct 2>/dev/null || _hbf=$((_hbf + 1))
			case "$_pr" in soon) sleep 10 ;; *) sleep 60 ;; esac
			continue
		fi
		if [ -z "$_lp" ]; then
			_w0=$(bfl_writes xvda) _t0=$(up)
			# shellcheck disable=SC2086 # word splitting intended: fio arguments
			bfl_loop xvda a 0 crc32c $SOAK_LOOP &
			_lp=$!
			wait_for 120 bfl_wrote xvda "$_w0"
			eval "$(bfl_snap _s0)"
			rpc crowd-ready "$1" >/dev/null
		fi
		_id1=$(xenstore-read domid)
		if [ "$_id1" != "$_id" ]; then
			_mv=$((_mv + 1))
			soak_crowd_judge "$_mv" "$_id" "$_id1" || _mbad="$_mbad $_mv"
			_id=$_id1
			eval "$(bfl_snap _s0)"
			rpc crowd-settled "$1" "$_mv" >/dev/null
		fi
		sleep 10
	done
	touch "$BFL_TMP/bfl.stop"
	if [ -n "$_lp" ]; then
		kill "$(cat /tmp/fio-bfl-a.pid 2>/dev/null)" 2>/dev/null
		wait "$_lp"
	fi
	_secs=$(since "$_t0")
	eval "$(bfl_snap _s1)"
	_why='' _ref=ok _c=$_s1_c _e=- _nm=$(echo $SOAK_CROWD_MOVES | wc -w)
	[ "$_s1_n_a" -gt 0 ] || _why="$_why no-run"
	[ "$_mv" = "$_nm" ] || _why="$_why moved-$_mv-of-$_nm"
	[ "$_hbf" = 0 ] || _why="$_why $_hbf-reads-failed"
	[ "$_s1_f" = 0 ] || _why="$_why $_s1_f-failed-runs:$(bfl_cat fail | head -n 1)"
	[ -z "$_mbad" ] || _why="$_why bad-moves:$_mbad"
	# shellcheck disable=SC2086 # word splitting intended: fio arguments
	if ! _o=$(bf_fio sref2 120 $SOAK_REF --verify_only); then
		_ref="FAILED $_o" _why="$_why reference"
		! bf_fio_corrupt sref2 || _c=$((_c + 1))
	fi
	_pl=''
	if ! bf_stock; then
		_e=$_s1_e_xvda
		[ "$_e" = 0 ] || _why="$_why errors=$_e"
		if ! bf_unbind_all || ! rmmod "$BF_MOD"; then
			_why="$_why unload"
		elif wait_for 20 bfl_pool_empty; then
			_pl=pool_live=0
		else
			_pl="pool_live=$(bf_gp pages_live)/$(bf_gp grants_live)"
			_why="$_why $_pl"
		fi
	fi
	bfl_soak crowd "$_ck" "$([ -z "$_why" ] && echo ok || echo bad)" "$_secs" \
		corrupt="$([ "$_c" = 0 ] && echo 0 || echo 1)" hang=0 $_pl
	_d="$_hb reads of xvda while it waited ($_hbf failed); moved $_mv times; $_s1_n_a runs of its fio verify loop in ${_secs}s (failed: $_s1_f, did not verify: $_c); reference $_ref; errors $_e${_pl:+; after rmmod $_pl}"
	if [ -z "$_why" ]; then pass "$_st" "$_d"; else fail "$_st" "$_d; bad:$_why"; fi
}

# soak_crowd_judge N OLDID NEWID: a crowd domU's move N (1: the save and
# restore, 2: the migration), with the loop running: a whole run after
# it, the loop's failures and corruptions, ours: one resume and no
# error on xvda; the reference verifies.  An XPS-SOAK line.
soak_crowd_judge() {
	_jt=$(up) _jw='' _jc=0
	case "$1" in 1) _js=crowd-saves ;; *) _js=crowd-migrate ;; esac
	echo "$1" >"$BFL_TMP/bfl.moved"
	wait_for 300 bfl_ran_after "$1" || _jw="$_jw no-run-after"
	eval "$(bfl_snap _s1)"
	[ "$_s1_f" = "$_s0_f" ] || _jw="$_jw loop-failed"
	[ "$_s1_c" = "$_s0_c" ] || _jc=1
	if ! bf_stock; then
		[ $((_s1_r_xvda - _s0_r_xvda)) = 1 ] || _jw="$_jw resumes+$((_s1_r_xvda - _s0_r_xvda))"
		[ "$_s1_e_xvda" = "$_s0_e_xvda" ] || _jw="$_jw errors+$((_s1_e_xvda - _s0_e_xvda))"
	fi
	[ "$(bf_drv xvda)" = "$BF_DRV" ] || _jw="$_jw driver:$(bf_drv xvda)"
	# shellcheck disable=SC2086 # word splitting intended: fio arguments
	if ! _jo=$(bf_fio "sref-m$1" 120 $SOAK_REF --verify_only); then
		_jw="$_jw reference"
		! bf_fio_corrupt "sref-m$1" || _jc=1
	fi
	[ "$_jc" = 0 ] || _jw="$_jw corrupt"
	bfl_soak "$_js" "${DOM#sk}" "$([ -z "$_jw" ] && echo ok || echo bad)" "$(since "$_jt")" corrupt=$_jc hang=0
	echo "xps: $DOM $_js: domain $2 -> $3, resumes +$((${_s1_r_xvda:-0} - ${_s0_r_xvda:-0})), errors +$((${_s1_e_xvda:-0} - ${_s0_e_xvda:-0})), loop runs +$((_s1_n_a - _s0_n_a)), reference ${_jo:-?};${_jw:- ok}"
	[ -z "$_jw" ]
}

# ---- the net pair, in bfl ----------------------------------------------------
# soak_net_up: bfl, before the moves (BFL_MOVES_BEGIN): the frontend
# loaded, its interface up and dom0 answering; then the transfer loop
# runs beside the fio loops (blkfront-life.sh's BFL_MORE_LOOP, tag n).
# When this fails the moves run without it and net fails.
soak_net_up() {
	SOAK_NET_BAD='' SOAK_NET_T0=$(up)
	nf_helpers /tmp
	rm -f "$BFL_TMP/soak-net.all"
	if ! nf_built; then
		SOAK_NET_BAD="module not built ($NF_MOD.ko missing from --modules)"
	elif ! nf_load; then
		SOAK_NET_BAD="modprobe $NF_MOD or no interface within 30 s: $(dmesg | grep -iE 'vif|netfront' | tail -n 2 | tr '\n' ' ')"
	elif [ "$(nf_mod "$(nf_vif)")" != "$NF_KMOD" ]; then
		SOAK_NET_BAD="the vif's module is '$(nf_mod "$(nf_vif)")', not $NF_KMOD"
	elif ! nf_up; then
		SOAK_NET_BAD="$(nf_if): dom0 unreachable from $IP within 30 s"
	fi
	if [ -n "$SOAK_NET_BAD" ]; then
		echo "xps: net: $SOAK_NET_BAD"
		return
	fi
	_g=$(soak_net_grants)
	echo "xps: net: $(nf_vif) with $NF_KMOD, $(nf_if) $IP up${_g:+; $_g}"
	BFL_MORE_LOOP=soak_net_loop BFL_MORE_TAG=n
}

# soak_net_loop: transfers with dom0 until bfl.stop, counted as
# bfl_loop counts its fio runs (bfl-n.runs, .fail, .corrupt, .after); each
# run's exit (0, 1 failed, 2 corrupt) also goes to soak-net.all, which no
# step start clears
soak_net_loop() {
	read -r _me _ </proc/self/stat
	renice -n 19 -p "$_me" >/dev/null
	_n=0
	rm -f "$BFL_TMP/bfl-n.fail" "$BFL_TMP/bfl-n.corrupt" "$BFL_TMP/bfl-n.after"
	while [ ! -e "$BFL_TMP/bfl.stop" ]; do
		_aft=$(cat "$BFL_TMP/bfl.moved" 2>/dev/null)
		_nrc=0 _no2=''
		_no=$(nf_send "$NF_DOM0" "$NF_SINK" "$SOAK_NET_MB" 60) || _nrc=$?
		if [ "$_nrc" = 0 ]; then
			_no2=$(nf_recv "$NF_DOM0" "$NF_SOURCE" "$SOAK_NET_MB" 60) || _nrc=$?
		fi
		if [ "$_nrc" != 0 ]; then
			echo "run $_n: $_no${_no2:+; $_no2}" >>"$BFL_TMP/bfl-n.fail"
			[ "$_nrc" != 2 ] || echo "$_n" >>"$BFL_TMP/bfl-n.corrupt"
			echo "xps: net run $_n failed: $_no${_no2:+; $_no2}"
		fi
		echo "$_nrc" >>"$BFL_TMP/soak-net.all"
		_n=$((_n + 1))
		echo "$_n" >"$BFL_TMP/bfl-n.runs"
		[ -z "$_aft" ] || echo "$_aft" >"$BFL_TMP/bfl-n.after"
	done
}

# soak_net_pools: the xen-grant-pool pools that are not the block
# frontend's (xbf*), "NAME:PAGES/GRANTS ...", empty when none; one awk
# reads every pool's stats.  SOAK_GP_DEBUGFS: xen-grant-pool's debugfs
# folder but in tests/lab/test-soak-net.sh.
SOAK_GP_DEBUGFS=/sys/kernel/debug/xen-grant-pool
soak_net_pools() {
	_fl=''
	for _pd in "$SOAK_GP_DEBUGFS"/*/stats; do
		case "$_pd" in */xbf*/stats) continue ;; esac
		[ ! -f "$_pd" ] || _fl="$_fl $_pd"
	done
	[ -n "$_fl" ] || return 0
	# shellcheck disable=SC2086 # word splitting intended: the file list
	awk 'function out() { if (pn != "") printf "%s:%d/%d ", pn, p, g }
		FNR == 1 { out(); pn = FILENAME; sub(/\/stats$/, "", pn); sub(/.*\//, "", pn); p = g = 0 }
		$1 == "pages_live" { p = $2 }
		$1 == "slots" { g = $2 }
		END { out() }' $_fl </dev/null
}

soak_net_pools_gone() { [ -z "$(soak_net_pools)" ]; }
# soak_net_grants: ours, how the frontend's last (re)connection grants
# (its "persistent grants: ..." or "per-packet grants: ..." line)
soak_net_grants() {
	[ "$NF_DRIVER" != stock ] || return 0
	# ("vif-pgnt vif-0: persistent grants: ...")
	dmesg | grep -o 'vif-[0-9]*: \(persistent\|per-packet\) grants: .*' | tail -n 1 | sed 's/^vif-[0-9]*: //'
}

# soak_net_down: bfl, after the detaches (BFL_MOVES_END): step net
soak_net_down() {
	BFL_MORE_LOOP='' BFL_MORE_TAG=''
	if [ -n "$SOAK_NET_BAD" ]; then
		bfl_soak net 1 bad 0 corrupt=0 hang=0
		bf_step net FAIL "no network: $SOAK_NET_BAD"
		return
	fi
	_nw='' _nl='' _pl=''
	# shellcheck disable=SC2046 # word splitting intended: the counts
	set -- $(awk '{ n++ } $1 != 0 { f++ } $1 == 2 { c++ } END { print n + 0, f + 0, c + 0 }' "$BFL_TMP/soak-net.all" 2>/dev/null)
	_nn=${1:-0} _nf=${2:-0} _nc=${3:-0}
	[ "$_nn" -gt 0 ] || _nw="$_nw no-run"
	[ "$_nf" = 0 ] || _nw="$_nw $_nf-failed-runs"
	if ! _nl=$(nf_send "$NF_DOM0" "$NF_SINK" "$SOAK_NET_MB" 30) || ! _nl="$_nl; $(nf_recv "$NF_DOM0" "$NF_SOURCE" "$SOAK_NET_MB" 30)"; then
		_nw="$_nw last-transfer"
	fi
	# ours with ours, after every reconnection: persistent grants, the
	# backend mapping every pool grant
	_ng=$(soak_net_grants)
	if [ "$NF_DRIVER:$NB_DRIVER" = ours:ours ]; then
		case "$_ng" in "persistent grants: the backend maps all "*) ;; *) _nw="$_nw grants:${_ng:-no-line}" ;; esac
	fi
	if ! nf_unload; then
		_nw="$_nw unload:$_how:$(cat /tmp/nf-rmmod.log)"
	elif [ "$NF_DRIVER" != stock ]; then
		if wait_for 20 soak_net_pools_gone; then
			_pl=pool_live=0
		else
			_pl="pool_live=$(soak_net_pools | tr ' ' ',')"
			_nw="$_nw $_pl"
		fi
	fi
	_ns=$(since "$SOAK_NET_T0")
	bfl_soak net 1 "$([ -z "$_nw" ] && echo ok || echo bad)" "$_ns" \
		corrupt="$([ "$_nc" = 0 ] && echo 0 || echo 1)" hang=0 $_pl
	_nd="$_nn transfer runs of ${SOAK_NET_MB} MB each way with dom0 in ${_ns}s, beside the moves and detaches (failed: $_nf, corrupt: $_nc); after them: $_nl;${_ng:+ $_ng;} $NF_MOD unbound and rmmod'ed${_pl:+, $_pl}"
	if [ -z "$_nw" ]; then bf_step net PASS "$_nd"; else bf_step net FAIL "$_nd; bad:$_nw"; fi
}
