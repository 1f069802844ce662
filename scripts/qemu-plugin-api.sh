#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-plugin-api.sh: print a directory holding qemu-plugin.h, the TCG
# plugin API header of the QEMU installed here (qemu-system-x86), taken
# from Debian's own source package of that version: the lab's instruction
# counter (tests/lab/tools/xps-insn.c) is built against it. Cached under
# $XPS_CACHE/qemu-plugin-api/<source version>/ (a fresh clone reuses it);
# the first call downloads the source (about 24 MB) through a private apt
# configuration (deb-src lines of bookworm, never the host's own lists).
set -euo pipefail

cache=${XPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xen-pv-suite}/qemu-plugin-api
ver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86 2>/dev/null) ||
	{ echo "qemu-plugin-api: qemu-system-x86 is not installed" >&2; exit 1; }
dir=$cache/${ver//:/_}
if [ -f "$dir/qemu-plugin.h" ]; then echo "$dir"; exit 0; fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/src"
key=/usr/share/keyrings/debian-archive-keyring.gpg
for s in "debian bookworm" "debian bookworm-updates" "debian-security bookworm-security"; do
	echo "deb-src [signed-by=$key] http://deb.debian.org/${s% *} ${s#* } main"
done >"$tmp/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/nonexistent
	-o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o APT::Sandbox::User=root
	-o Debug::NoLocking=1)
apt-get -q "${apt_opts[@]}" update >"$tmp/apt.log" 2>&1 ||
	{ cat "$tmp/apt.log" >&2; echo "qemu-plugin-api: apt update failed" >&2; exit 1; }
(cd "$tmp/src" && apt-get -q "${apt_opts[@]}" source --download-only "qemu=$ver") >>"$tmp/apt.log" 2>&1 ||
	{ tail -n 5 "$tmp/apt.log" >&2; echo "qemu-plugin-api: no source for qemu=$ver" >&2; exit 1; }
orig=$(ls "$tmp"/src/qemu_*.orig.tar.* | head -n 1)
tar -xf "$orig" -C "$tmp/src" --wildcards '*/include/qemu/qemu-plugin.h'
mkdir -p "$dir"
cp "$tmp"/src/qemu-*/include/qemu/qemu-plugin.h "$dir/qemu-plugin.h.new"
mv "$dir/qemu-plugin.h.new" "$dir/qemu-plugin.h"
echo "$dir"
