# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # the scenario interface (<fn>_steps, _budget,
# _domus) is read by dom0-init, the judge and the helpers; netfront_steps
# comes from netfront.sh, sourced below
# netback - xen-netback-pgnt in dom0 (in place of xen-netback) and
# xen-netfront-pgnt in the domU: persistent grants end to end (the control ring maps every pool grant; the backend copies with memcpy, no grant operation per packet);
# domu2domu's far end, nf2, runs Debian's xen-netfront (grant-copied).
# The steps are netfront.sh's (see there), run with
# NB_DRIVER=ours, which adds "domu2domu" (with nf2), "backend" (the
# backend's own counters around 16 MB each way) and "nb-reload" (the
# backend module reloaded under a running iperf3); XPS_SCN_NF_DRIVER,
# XPS_SCN_NF_PEER_DRIVER and XPS_SCN_NB_DRIVER still override.
NF_SCN=netback NF_DEFAULT=ours NB_DEFAULT=ours
# The guests carry the scenarios in /xps; the host (the judge reads the
# steps) in the lab's own directory.
. "${LAB_DIR:-/xps}/scenarios/netfront.sh"
netback_steps=$netfront_steps
# netfront.sh's budget: its steps and two more of about 20 s each
# (netback measured: 448 s of scenario time, host otherwise idle)
netback_budget=960
netback_domus="nf"
netback_dom0_prepare() { netfront_dom0_prepare; }
netback_domU_cfg() { netfront_domU_cfg "$@"; }
netback_domU_cmdline() { netfront_domU_cmdline "$@"; }
netback_rpc() { netfront_rpc "$@"; }
netback_domU() { netfront_domU "$@"; }
