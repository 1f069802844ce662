# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # LAB_* are the other lib files' settings
# common.sh - paths, logging, timing and version discovery shared by the
# lab's host-side libraries.  Sourced by tests/lab/lab (bash).

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_DIR=$(cd "$LAB_DIR/../.." && pwd)
LAB_ARCH=x86
# The cache lives outside the checkout so that a fresh clone (CI makes one
# per run) reuses the images built by an earlier run.
# XPS_CACHE is the suite-wide cache root the top-level Makefile exports.
LAB_CACHE=${XPS_LAB_CACHE:-${XPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xen-pv-suite}/lab}
LAB_OUT=${XPS_LAB_OUT:-$REPO_DIR/build/lab}

log()  { printf 'lab: %s\n' "$*" >&2; }
die()  { printf 'lab: error: %s\n' "$*" >&2; exit 2; }
now()  { date +%s; }
# time_line WHAT START: the machine-readable timing line the brief asks for.
time_line() { printf 'TIME: %s %ss\n' "$1" "$(( $(now) - $2 ))"; }

need_root() { [ "$(id -u)" = 0 ] || die "$1 needs root (debootstrap, chroot)"; }

need_tools() {
	local t missing=
	for t in "$@"; do command -v "$t" >/dev/null 2>&1 || missing="$missing $t"; done
	[ -z "$missing" ] || die "missing host tools:$missing (see tests/lab/README.md)"
}

# apt_candidate PKG: the version apt would install on this host.
apt_candidate() {
	apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }'
}

# apt_candidates PKG...: "PKG=VERSION" lines, one apt call for all.
apt_candidates() {
	apt-cache policy "$@" 2>/dev/null |
		awk '/^[^ ]/ { sub(":$", "", $1); p = $1 } $1 == "Candidate:" { print p "=" $2 }'
}

# lab_kver: the kernel release the lab boots.  It is taken from the same
# apt candidate as linux-headers-amd64, so the lab kernel always equals the
# headers that the suite's modules are built against on this host.
lab_kver() {
	if [ -n "${XPS_LAB_KVER:-}" ]; then echo "$XPS_LAB_KVER"; return; fi
	local dep
	dep=$(apt-cache show --no-all-versions linux-headers-amd64 2>/dev/null |
	      sed -n 's/^Depends:.*linux-headers-\([0-9][^ ,]*-amd64\).*/\1/p' | head -n1)
	[ -n "$dep" ] || die "cannot derive the kernel release from linux-headers-amd64 (apt-get update?)"
	echo "$dep"
}
