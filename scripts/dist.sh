#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dist.sh OUTDIR: `make dist`. The versioned source tarball
# OUTDIR/xen-pv-suite-<VERSION>.tar.gz of every file git tracks, with the
# version (from VERSION, the one source of truth) stamped into dkms.conf
# and the rpm specs (rpm/*.spec.in -> rpm/*.spec, so `rpmbuild -ta`
# works on the tarball). Reproducible: sorted, owner 0, the mtime of the
# last commit. Prints the tarball's path.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(cat "$root/VERSION")
case "$version" in
'' | *[!0-9A-Za-z.+~]*) echo "dist: bad VERSION '$version'" >&2; exit 1 ;;
esac
name=xen-pv-suite-$version
changelog=$(cd "$root" && dpkg-parsechangelog -S Version 2>/dev/null || true)
if [ -n "$changelog" ] && [ "$changelog" != "$version" ]; then
	echo "dist: debian/changelog is at $changelog, VERSION says $version" >&2
	exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
(cd "$root" && git ls-files -z | xargs -0 cp -a --parents -t "$stage/$name")
sed -i "s/#MODULE_VERSION#/$version/" "$stage/$name/dkms.conf"
for s in "$stage/$name"/rpm/*.spec.in; do
	[ -e "$s" ] || continue
	sed "s/@VERSION@/$version/g" "$s" >"${s%.in}"
done
mtime=$(cd "$root" && git log -1 --format=%ct 2>/dev/null || date +%s)
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner \
	--mtime="@$mtime" -cf - "$name" | gzip -n -9 >"$out/$name.tar.gz"
echo "$out/$name.tar.gz"
