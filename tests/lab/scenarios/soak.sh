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
#               save: each time every loop passes before, across and
#               after, each disk counts one resume and no error, some
#               held request is replayed, the reference verifies
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
# Every cycle prints an XPS-SOAK line; scripts/soak.sh turns them and the
# boot's kernel logs into the run's table.  XPS_SCN_SOAK_SAVES,
# _MIGRATIONS, _DETACHES and _RELOADS set the counts;
# XPS_SCN_SOAK_DRIVER=stock runs load, saves, migrate and detaches with
# Debian's xen-blkfront (the reference row:
# it has no counters, so a cycle is judged by its loops, the reference
# data, the disks still bound and the guest's new domain id).
if [ -f /xps/scenarios/blkfront-life.sh ]; then
	. /xps/scenarios/blkfront-life.sh
else
	. "$LAB_DIR/scenarios/blkfront-life.sh"
fi
BFL_SAVES=${XPS_SCN_SOAK_SAVES:-50}
BFL_MIGRATIONS=${XPS_SCN_SOAK_MIGRATIONS:-20}
BFL_DETACHES=${XPS_SCN_SOAK_DETACHES:-20}
BFL_CYCLES=${XPS_SCN_SOAK_RELOADS:-100}
BFL_POOLCHECK=1
bfl_scenario soak "cpu-selfcheck load saves migrate detaches reload-load leaks" "${XPS_SCN_SOAK_DRIVER:-ours}"
! bf_stock || BFL_CYCLES=0
soak_lab_xen=shadow
# Measured alone (2026-12-06, loops running across the moves, 2 or 3 of
# each): a save/restore cycle 64 to 73 s, a migration 78 and 93 s, a
# detach 36 s, a reload 5 to 7 s; the budget allows two to four times
# that, and 600 s for the boot and the load.
soak_budget=$((600 + (BFL_SAVES + BFL_MIGRATIONS) * 220 + BFL_DETACHES * 150 + BFL_CYCLES * 20))
