#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# headers.sh PACKAGE[:ARCH]
#
# Print the path of a ready-to-use kernel header tree for the Debian
# package PACKAGE (e.g. linux-headers-6.12.117+deb12-cloud-amd64). With
# :ARCH (linux-headers-6.1.0-57-arm64:arm64, for a cross build) the
# flavour package is that architecture's while its -common part and
# linux-kbuild are the host's: kbuild holds the host tools (fixdep,
# modpost) the build runs here; the apt sources need that architecture
# (dpkg --add-architecture). An
# installed package is used as it is; otherwise the package, its -common
# part and its linux-kbuild are fetched with apt-get download and unpacked
# (not installed) into the cache, keyed by package version. Facts behind
# the unpacking: the flavour Makefile includes an absolute
# /usr/src/linux-headers-*-common/Makefile, so that line is pointed at the
# unpacked copy; the scripts/ and tools/ links are relative and just work.
set -euo pipefail

spec=${1:?usage: headers.sh PACKAGE[:ARCH]}
pkg=${spec%%:*}
cache=${XPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xen-pv-suite}

if [ "$spec" = "$pkg" ] && [ "$(dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ] &&
   [ -f "/usr/src/$pkg/Makefile" ]; then
	echo "/usr/src/$pkg"
	exit 0
fi

ver=$(apt-cache policy "$spec" | sed -n 's/^ *Candidate: //p')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	echo "error: apt knows no package $spec (run apt-get update?)" >&2
	exit 1
fi
dest="$cache/headers/${pkg}_$ver"
if [ ! -f "$dest/.complete" ]; then
	rm -rf "$dest"
	mkdir -p "$dest/debs"
	# The flavour package, and what it needs to build modules: its
	# -common headers and the linux-kbuild host tools.
	# (A foreign flavour lists them as "<name:arch>": the host's are
	# taken.)
	deps=$(apt-cache depends "$spec" | sed -n 's/^ *Depends: <\{0,1\}\([^>:]*\).*/\1/p' |
	       grep -E '^linux-(headers|kbuild)-' || true)
	# shellcheck disable=SC2086 # word splitting intended: a list
	(cd "$dest/debs" && apt-get download -q "$spec" $deps >/dev/null 2>&1) || {
		echo "error: apt-get download $spec $deps failed" >&2
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
