# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # the scenario interface (<fn>_steps, _budget,
# _domus, _lab_xen) is read by dom0-init, the judge and the helpers; the
# blkfront_life_* functions and BFL_* settings come from blkfront-life.sh
# migrate - xen-blkfront-64k across live migration (issue #16).  The
# boot's hypervisor can migrate PV guests (migrate_lab_xen=shadow:
# lib/debs.sh's xen_shadow_elf, Debian's bookworm build with shadow
# paging; the default, bookworm-security's, refuses log-dirty).
# blkfront-life's machinery and domU (three disks, a fio write+verify
# loop on each, a 6 MB reference on xvdb), with its steps:
#   load        xen-grant-pool and xen-blkfront-64k, the reference written
#   save-restore blkfront-life's two rounds of xl save/restore with the
#               loops running (the second onto a smaller backend, with
#               feature_persistent=0), then the driver reloaded with its
#               defaults; make check runs them here, in a boot of one
#               domU, not in the block lab's crowded one
#   migrate     xl migrate to localhost (-s "": xl migrate-receive run
#               by dom0 itself), MIG_COUNT (3) times in a row with the
#               loops running: each time every loop passes before,
#               across and after, each disk counts one resume and no
#               error, the held writes and the reference verify
#   detaches    xl block-detach/block-attach of xvdc with fio writing to
#               it, DETACHES (2) times (blkfront-life.sh's bfl_detaches)
#   reload-load the reload cycles under I/O, after the migrations
#   leaks       no pool page or grant live after rmmod
# XPS_SCN_MIG_COUNT and XPS_SCN_MIG_DETACHES override the counts.
# XPS_SCN_MIG_DRIVER=stock runs load, migrate and detaches with Debian's
# xen-blkfront instead (the reference: it has no counters, so each
# migration is judged by its loops, its reference data, the disks still
# bound and the guest's new domain id).
. "${LAB_DIR:-/xps}/scenarios/blkfront-life.sh"
bfl_scenario migrate "cpu-selfcheck load save-restore migrate detaches reload-load leaks" "${XPS_SCN_MIG_DRIVER:-ours}"
# alone (2026-12-07): 403 s, save-restore 118 s, 3 migrations 152 s,
# 2 detaches 67 s; the budget only catches a hang
migrate_budget=1500
migrate_lab_xen=shadow
BFL_MIGRATIONS=${XPS_SCN_MIG_COUNT:-3}
BFL_DETACHES=${XPS_SCN_MIG_DETACHES:-2}
