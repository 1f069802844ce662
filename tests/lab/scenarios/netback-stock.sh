# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # the scenario interface (<fn>_steps, _budget,
# _domus) is read by dom0-init, the judge and the helpers; netfront_steps
# comes from netfront.sh, sourced below
# netback-stock - xen-netback-pgnt in dom0 (in place of xen-netback) and
# Debian's stock xen-netfront in the domUs: the fallback, every packet grant-copied by the backend
# (make check-full only: make check's netback covers this pairing in
# its domu2domu and nb-reload steps).
# The steps are netfront.sh's (see there), run with
# NB_DRIVER=ours, which adds "domu2domu" (with nf2), "backend" (the
# backend's own counters around 16 MB each way) and "nb-reload" (the
# backend module reloaded under a running iperf3); XPS_SCN_NF_DRIVER and
# XPS_SCN_NB_DRIVER still override.
NF_SCN=netback-stock NF_DEFAULT=stock NB_DEFAULT=ours
# The guests carry the scenarios in /xps; the host (the judge reads the
# steps) in the lab's own directory.
. "${LAB_DIR:-/xps}/scenarios/netfront.sh"
netback_stock_steps=$netfront_steps
# netfront.sh's budget: its steps and two more of about 20 s each
netback_stock_budget=960
netback_stock_domus="nf"
netback_stock_dom0_prepare() { netfront_dom0_prepare; }
netback_stock_domU_cfg() { netfront_domU_cfg "$@"; }
netback_stock_domU_cmdline() { netfront_domU_cmdline "$@"; }
netback_stock_rpc() { netfront_rpc "$@"; }
netback_stock_domU() { netfront_domU "$@"; }
