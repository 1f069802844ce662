# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# debs.sh - Debian packages the labs take as Debian built them: fetched
# once with apt into the cache, keyed by version (what they become,
# images.sh and arm64.sh key on those versions; a change here rebuilds
# no image).

XEN_PKG=xen-hypervisor-4.17-amd64

# fetch_deb PKG[:ARCH][=VERSION] [DIR]: download VERSION (default the
# candidate) once into DIR (default the cache's debs/); print its path.
fetch_deb() {
	local spec=${1%%=*} dir=${2:-$LAB_CACHE/debs} pkg=${1%%[:=]*} ver f
	ver=
	[ "$spec" = "$1" ] || ver=${1#*=}
	[ -n "$ver" ] || ver=$(apt_candidate "$spec")
	if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
		[ "$spec" = "$pkg" ] ||
			die "no apt candidate for $spec (dpkg --add-architecture ${spec#*:} && apt-get update; scripts/install-deps.sh does both)"
		die "no apt candidate for $spec"
	fi
	mkdir -p "$dir"
	f=$(ls "$dir/${pkg}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n1 || true)
	if [ -z "$f" ]; then
		# apt-get download uses apt's own sources and proxy settings.  The
		# cache is root's, which apt's _apt sandbox user cannot write to.
		(cd "$dir" && apt-get download -q -o APT::Sandbox::User=root "$spec=$ver" >&2) ||
			die "apt-get download $spec=$ver failed"
		f=$(ls "$dir/${pkg}_${ver//:/%3a}_"*.deb | head -n1)
	fi
	echo "$f"
}

# xen_shadow_elf: the path of a hypervisor that can migrate PV guests.
# PV log-dirty (xl migrate, #16) needs CONFIG_SHADOW_PAGING, which
# Debian's bookworm-security build (4.17.7, after XSA-477) turned off
# and bookworm's own 4.17.5+72 has on: of the versions of
# xen-hypervisor-4.17-amd64 apt offers, the newest built with it, as
# Debian built it.  Cached under xen-shadow/<version>; a version found
# without it is remembered as such.  The toolstack stays the images' one
# (same 4.17 branch, same hypercall interface).
xen_shadow_elf() {
	local v dir deb
	for v in $(apt-cache madison "$XEN_PKG" | awk '{ print $3 }'); do
		dir=$LAB_CACHE/xen-shadow/$v
		if [ -f "$dir/xen.elf" ]; then echo "$dir/xen.elf"; return 0; fi
		[ ! -f "$dir/no-shadow" ] || continue
		need_root "fetching $XEN_PKG $v"
		rm -rf "$dir.tmp"
		deb=$(fetch_deb "$XEN_PKG=$v" "$dir.tmp") || return 1
		dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './boot/xen-4.17-amd64.config' >"$dir.tmp/config"
		if grep -qx 'CONFIG_SHADOW_PAGING=y' "$dir.tmp/config"; then
			dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './boot/xen-4.17-amd64.gz' | gunzip >"$dir.tmp/xen.elf"
			file "$dir.tmp/xen.elf" | grep -q ELF || die "$XEN_PKG $v: xen.elf is not an ELF file"
		else
			touch "$dir.tmp/no-shadow"
		fi
		rm -f "$deb"; rm -rf "$dir"; mv "$dir.tmp" "$dir"
		log "images: $XEN_PKG $v: $(grep -q CONFIG_SHADOW_PAGING=y "$dir/config" && echo with || echo without) shadow paging"
		if [ -f "$dir/xen.elf" ]; then echo "$dir/xen.elf"; return 0; fi
	done
	die "no version of $XEN_PKG that apt offers is built with CONFIG_SHADOW_PAGING=y"
}
