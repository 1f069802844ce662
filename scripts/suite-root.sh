#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# suite-root.sh SUITE: print the path of a ready build chroot of the
# Debian suite SUITE (bullseye, bookworm, trixie, sid, experimental),
# made on first use and cached (issue #17: the suite's kernels built with
# the suite's own compiler, never this host's).  It holds a minbase
# system of SUITE with its security updates (experimental: sid, with the
# newest kernel headers from experimental), gcc, make, kmod and:
#   /usr/src/linux-headers-K-amd64      the headers linux-headers-amd64
#                                       points at, with their compiler
#   /usr/src/linux-headers-K-arm64      the arm64 flavour of the same
#                                       release, unpacked (not installed:
#                                       its kbuild tools are the amd64
#                                       ones), and gcc-N-aarch64-linux-gnu
#                                       for the compiler the headers name
# perl (a W=1 build runs kernel-doc), and /xps-suite.env: SUITE, KREL
# (K-amd64), KREL_ARM64 (empty when the mirror has no arm64 headers of
# that release), CC_AMD64 and CC_ARM64 (the compilers' commands).
# The apt lists live in a private folder beside the chroots (never the
# host's sources), and a chroot is keyed by the apt candidates of what
# it holds: a new kernel or compiler in the suite makes a new one, and
# the old one is removed.
# XPS_CACHE: the cache root.  XPS_SUITE_REFRESH=0: use the lists as they
# are (no apt-get update).
set -euo pipefail

suite=${1:?usage: suite-root.sh SUITE}
cache=${XPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xen-pv-suite}/suites
mirror=${XPS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
secmirror=${XPS_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
# Bump when the way a chroot is made (below) changes.
RECIPE=1

case "$suite" in
bullseye|bookworm|trixie)
	base=$suite
	lines="deb $mirror $suite main
deb $secmirror $suite-security main" ;;
sid)
	base=sid
	lines="deb $mirror sid main" ;;
experimental)
	base=sid
	lines="deb $mirror sid main
deb $mirror experimental main" ;;
*)
	echo "error: suite-root.sh: unknown suite '$suite' (bullseye bookworm trixie sid experimental)" >&2
	exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "error: suite-root.sh needs root (debootstrap, chroot)" >&2; exit 1; }

mkdir -p "$cache"
exec 9>"$cache/.lock-$suite"
flock 9

# ---- the suite's apt lists, private ----
apt=$cache/apt-$suite
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
printf '%s\n' "$lines" >"$apt/sources.list"
aptopt=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
	-o Dir::State::status=/dev/null -o APT::Architectures::=amd64
	-o Acquire::Languages=none -o Acquire::Check-Valid-Until=false)
# experimental's packages are not candidates unless asked for
hdropt=()
[ "$suite" != experimental ] || hdropt=(-o APT::Default-Release=experimental)
if [ "${XPS_SUITE_REFRESH:-1}" != 0 ] || [ ! -e "$apt/lists/lock" ]; then
	apt-get "${aptopt[@]}" update -q >"$apt/update.log" 2>&1 ||
		{ tail -n 5 "$apt/update.log" >&2; echo "error: apt-get update for $suite failed" >&2; exit 1; }
fi
cand() { # PKG...: PKG=VERSION for each (the suite's candidate)
	apt-cache "${aptopt[@]}" "${hdropt[@]}" policy "$@" 2>/dev/null |
		awk '/^[^ ]/ { sub(":$", "", $1); p = $1 } $1 == "Candidate:" && $2 != "(none)" { print p "=" $2 }'
}
dep() { # PKG PATTERN: the first dependency of PKG's candidate matching PATTERN
	apt-cache "${aptopt[@]}" "${hdropt[@]}" depends "$1" 2>/dev/null |
		sed -n "s/^ *Depends: \($2\)\$/\1/p" | head -n 1
}
hdr=$(dep linux-headers-amd64 'linux-headers-.*-amd64')
[ -n "$hdr" ] || { echo "error: $suite: no linux-headers-amd64 candidate" >&2; exit 1; }
krel=${hdr#linux-headers-}
kbase=${krel%-amd64}
gccv=$(apt-cache "${aptopt[@]}" "${hdropt[@]}" show "$hdr=$(cand "$hdr" | cut -d= -f2)" 2>/dev/null |
	sed -n 's/^Depends:.*\bgcc-\([0-9]\+\)\b.*/\1/p' | head -n 1)
[ -n "$gccv" ] || { echo "error: $suite: $hdr names no gcc-N" >&2; exit 1; }
set_main="gcc make libc6-dev kmod perl ca-certificates gcc-$gccv gcc-$gccv-aarch64-linux-gnu"
set_hdr="$hdr linux-headers-$kbase-arm64"
key=$( { echo "$suite $RECIPE"; cand $set_main; cand $set_hdr; } | sha256sum | cut -c1-16)
dir=$cache/$suite-$key

if [ ! -f "$dir/.complete" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "suite-root: $suite: debootstrap $base, then $hdr and gcc-$gccv (cached as ${dir##*/})" >&2
	if ! debootstrap --variant=minbase "$base" "$dir/root" "$mirror" >"$dir/debootstrap.log" 2>&1; then
		tail -n 20 "$dir/debootstrap.log" >&2
		echo "error: debootstrap $base failed (log: $dir/debootstrap.log)" >&2
		exit 1
	fi
	printf '%s\n' "$lines" >"$dir/root/etc/apt/sources.list"
	printf '#!/bin/sh\nexit 101\n' >"$dir/root/usr/sbin/policy-rc.d"
	chmod +x "$dir/root/usr/sbin/policy-rc.d"
	t=()
	[ "$suite" != experimental ] || t=(-t experimental)
	# shellcheck disable=SC2016 # expanded in the chroot
	if ! unshare --mount --propagation private sh -ec '
		cp -L /etc/resolv.conf "$1/etc/resolv.conf"
		mount -t proc proc "$1/proc"
		chroot "$1" env DEBIAN_FRONTEND=noninteractive LC_ALL=C \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -ec "
			echo Acquire::Check-Valid-Until false\; >/etc/apt/apt.conf.d/90xps
			apt-get update -q
			apt-get install -y -q --no-install-recommends $2
			apt-get install -y -q --no-install-recommends $4 $3
			dpkg --add-architecture arm64
			apt-get update -q
			# (bullseye-security lists arm64 headers its pool lacks:
			# amd64 alone then)
			cd /tmp
			if apt-get download -q linux-headers-$5-arm64:arm64; then
				dpkg -x /tmp/linux-headers-*-arm64_*.deb /
			else
				echo xps: no arm64 headers on the mirror
			fi
			rm -f /tmp/*.deb
			apt-get clean"' sh "$dir/root" "$set_main" "$hdr" "${t[*]}" "$kbase" \
			>"$dir/apt.log" 2>&1; then
		tail -n 20 "$dir/apt.log" >&2
		echo "error: apt in the $suite chroot failed (log: $dir/apt.log)" >&2
		exit 1
	fi
	r=$dir/root
	[ -f "$r/usr/src/$hdr/Makefile" ] ||
		{ echo "error: $suite: headers missing in the chroot after apt" >&2; exit 1; }
	ka=$kbase-arm64
	[ -f "$r/usr/src/linux-headers-$ka/Makefile" ] || ka=''
	cat >"$r/xps-suite.env" <<-EOF
		SUITE=$suite
		KREL=$krel
		KREL_ARM64=$ka
		CC_AMD64=gcc-$gccv
		CC_ARM64=aarch64-linux-gnu-gcc-$gccv
	EOF
	touch "$dir/.complete"
	find "$cache" -maxdepth 1 -name "$suite-*" ! -name "${dir##*/}" -exec rm -rf {} +
fi
echo "$dir/root"
