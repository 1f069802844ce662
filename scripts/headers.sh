#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# headers.sh PACKAGE
#
# Print the path of a ready-to-use kernel header tree for the Debian
# package PACKAGE (e.g. linux-headers-6.12.117+deb12-cloud-amd64). An
# installed package is used as it is; otherwise the package, its -common
# part and its linux-kbuild are fetched with apt-get download and unpacked
# (not installed) into the cache, keyed by package version. Facts behind
# the unpacking: the flavour Makefile includes an absolute
# /usr/src/linux-headers-*-common/Makefile, so that line is pointed at the
# unpacked copy; the scripts/ and tools/ links are relative and just work.
set -euo pipefail

pkg=${1:?usage: headers.sh PACKAGE}
cache=${XPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xen-pv-suite}
name=${pkg#linux-headers-}

if [ "$(dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ] &&
   [ -f "/usr/src/$pkg/Makefile" ]; then
	echo "/usr/src/$pkg"
	exit 0
fi

ver=$(apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	echo "error: apt knows no package $pkg (run apt-get update?)" >&2
	exit 1
fi
dest="$cache/headers/${pkg}_$ver"
if [ ! -f "$dest/.complete" ]; then
	rm -rf "$dest"
	mkdir -p "$dest/debs"
	# The flavour package, and what it needs to build modules: its
	# -common headers and the linux-kbuild host tools.
	deps=$(apt-cache depends "$pkg" | sed -n 's/^ *Depends: //p' |
	       grep -E '^linux-(headers|kbuild)-' || true)
	(cd "$dest/debs" && apt-get download -q $pkg $deps >/dev/null 2>&1) || {
		echo "error: apt-get download $pkg $deps failed" >&2
		exit 1
	}
	for d in "$dest"/debs/*.deb; do
		dpkg-deb -x "$d" "$dest/root"
	done
	rm -rf "$dest/debs"
	sed -i "s|^include /usr/src/|include $dest/root/usr/src/|" \
		"$dest/root/usr/src/$pkg/Makefile"
	touch "$dest/.complete"
fi
echo "$dest/root/usr/src/$pkg"
